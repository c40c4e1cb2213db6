"""A real front end on loopback and Debian's Chromium driven by Playwright.

The servers (Voilà serving the explorer, JupyterLab serving a copy of a course
notebook) run as subprocesses in their own process group, with config, data and
runtime directories under a temporary directory, so nothing is written to the
repository. Each is stopped when its module ends, whatever the tests did.

Chromium is the system one (Playwright's own browser download does not work on
these machines). Without it the tests skip locally and fail in CI (``CI`` set).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[3]
# The course notebook with the budget slider (its number may change as the course grows),
# as learners open it: learner/, without outputs.
COURSE_NOTEBOOKS = sorted((ROOT / "learner").glob("*-the-boundary-table.ipynb"))
ARTIFACTS = ROOT / "build" / "browser"
BIN = Path(sys.executable).parent
# As the Makefile starts servers: kernels speak CurveZMQ on loopback (no "running over TCP
# without encryption" in the servers' logs).
ENCRYPTED = "--KernelManager.transport_encryption=auto"
CHROMIUM = os.environ.get("LEDGERLAB_CHROMIUM", "/usr/bin/chromium")
# Without the networking flags Chromium keeps calling hosts this machine cannot reach.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SERVER_START_SECONDS = 90
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def missing(reason: str) -> None:
    """A missing browser fails in CI and skips, with the reason, elsewhere.

    (A missing Playwright is handled the same way where it is imported, in frontend.py.)
    """
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: browser tests may not be skipped)", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (Jupyter starts kernels in sessions of their own)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def stop(process: subprocess.Popen) -> None:
    """SIGTERM (Jupyter then shuts its kernels down), then SIGKILL whatever is left."""
    leftovers = descendants(process.pid)
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    for pid in leftovers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def jupyter_env(home: Path) -> dict[str, str]:
    """Config, data, runtime and IPython directories of the server's own, under ``home``."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for name, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                      ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
        env[name] = str(home / sub)
        (home / sub).mkdir(parents=True, exist_ok=True)
    env.pop("JUPYTER_TOKEN", None)
    return env


def wait_until_listening(process: subprocess.Popen, port: int, log: Path) -> None:
    """Until the port accepts connections (an HTTP probe of Voilà's page would start a kernel)."""
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.25)
    pytest.fail(f"nothing listens on port {port} after {SERVER_START_SECONDS} s:\n"
                f"{log.read_text()[-3000:]}")


def serve(command: list[str], port: int, path: str, home: Path, cwd: Path) -> Iterator[str]:
    """Start ``command``, yield its URL once it listens on ``port``, stop it afterwards."""
    log = home / "server.log"
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=jupyter_env(home), stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until_listening(process, port, log)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        stop(process)


class QuietHandler(SimpleHTTPRequestHandler):
    # Module workers (Pyodide's pyodide.mjs) need a JavaScript type; 3.10's table lacks .mjs.
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def serve_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder``'s static files on loopback from this process; yield its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        missing(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=20_000)  # a kernel callback renders a PNG; CI has 2 cores
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """build/browser, emptied once per run so every screenshot there is from this run."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.failed_call = report.failed
    return report


@pytest.fixture
def page(browser, artifacts, request):
    """A fresh page, large enough for the explorer; its screenshot is kept if the test fails."""
    from playwright.sync_api import Error as PlaywrightError

    # Service workers blocked: their requests would bypass the routes that refuse other hosts.
    context = browser.new_context(viewport={"width": 1280, "height": 1000},
                                  service_workers="block")
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        yield page
    finally:
        if getattr(request.node, "failed_call", False):
            try:
                page.screenshot(path=artifacts / f"FAILED-{request.node.name}.png",
                                full_page=True)
            except PlaywrightError:  # a crashed page: the test's own failure says more
                pass
        context.close()


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory) -> Iterator[str]:
    """Voilà serving the budget explorer, started by `make present` itself (its template,
    its flags) on a port of the test's; config, data and runtime directories of its own."""
    home = tmp_path_factory.mktemp("voila")
    port = free_port()
    yield from serve(["make", "-s", "-C", str(ROOT), "present", f"PRESENT_PORT={port}",
                      "PRESENT_ARGS=--show_tracebacks=True"],
                     port, "/", home, cwd=home)


@pytest.fixture(scope="module")
def lab_notebook_url(tmp_path_factory) -> Iterator[str]:
    """JupyterLab opening a copy of the course notebook, token disabled, news prompt off."""
    assert len(COURSE_NOTEBOOKS) == 1, f"one boundary-table notebook expected: {COURSE_NOTEBOOKS}"
    notebook = COURSE_NOTEBOOKS[0]
    home = tmp_path_factory.mktemp("lab")
    root = home / "root"
    root.mkdir()
    shutil.copy(notebook, root)
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = free_port()
    yield from serve([str(BIN / "jupyter"), "lab", "--no-browser", "--allow-root",
                      "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
                      "--ServerApp.port_retries=0", "--IdentityProvider.token=",
                      f"--ServerApp.root_dir={root}",
                      "--LabApp.news_url=None",
                      "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                      ENCRYPTED],
                     port, f"/lab/tree/{notebook.name}", home, cwd=root)


@pytest.fixture
def outside(page) -> list[str]:
    """Every request for another host is aborted and its URL kept here."""
    refused: list[str] = []

    def only_loopback(route) -> None:
        url = route.request.url
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and \
                urlsplit(url).hostname not in LOOPBACK:
            refused.append(url)
            route.abort()
        else:
            route.continue_()

    page.context.route("**/*", only_loopback)
    return refused


@pytest.fixture(scope="module")
def make_lab(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """JupyterLab launched by `make lab` itself, over an empty folder that `make lab` fills
    with its copies of learner/ as it does work/: (its URL, the folder of copies). Only what
    a test needs is added through LAB_ROOT (the copies' folder) and LAB_ARGS (port, no
    browser, no token); config, data and user settings are
    fresh ones under a temporary directory, so nothing answers the news question but the
    repository's own settings. Autosave runs every 2 s, so a notebook that opens modified
    is rewritten on disk while the test watches."""
    home = tmp_path_factory.mktemp("make-lab")
    root = home / "root"  # empty: make lab fills it
    root.mkdir()
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosaveInterval": 2}))
    port = free_port()
    lab_args = (f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
                "--ServerApp.port_retries=0 --IdentityProvider.token=")
    for url in serve(["make", "-s", "-C", str(ROOT), "lab", f"LAB_ROOT={root}",
                      f"LAB_ARGS={lab_args}"],
                     port, "/lab/tree/", home, cwd=root):
        yield url, root
