"""What `make lab` and `python -m ledgerlab.course lab` start: one command, JupyterLab on the
learner's copies with idle kernels culled."""

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ledgerlab.course import paths
from ledgerlab.course.cli import CULL_IDLE_KERNELS
from ledgerlab.course.learner import course_notebooks

CULL = ("--MappingKernelManager.cull_idle_timeout=1800",
        "--MappingKernelManager.cull_interval=300",
        "--MappingKernelManager.cull_connected=True")


def test_lab_culls_idle_kernels_even_with_a_tab_open(course_cli, tmp_path):
    code, out, _ = course_cli("lab", "--root", str(tmp_path / "work"), "--print")
    assert code == 0
    command = shlex.split(out)
    for flag in CULL:
        assert flag in command
    assert f"--ServerApp.root_dir={tmp_path / 'work'}" in command
    assert not (tmp_path / "work").exists()  # --print writes nothing


def test_the_cull_options_are_the_servers_own():
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager
    names = set(MappingKernelManager.class_trait_names(config=True))
    for flag in CULL_IDLE_KERNELS:
        assert flag.removeprefix("--MappingKernelManager.").split("=")[0] in names


def test_arguments_after_the_separator_go_to_jupyterlab_last(course_cli, tmp_path):
    code, out, _ = course_cli("lab", "--root", str(tmp_path), "--print", "--",
                              "--no-browser", "--ServerApp.port=9")
    assert shlex.split(out)[-2:] == ["--no-browser", "--ServerApp.port=9"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_lab_runs_the_course_command():
    # make -n prints the recipe without running it: nothing starts.
    shown = subprocess.run(["make", "-n", "-s", "-C", str(paths.CHECKOUT), "lab",
                            "LAB_ROOT=somewhere", "LAB_ARGS=--no-browser"],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    assert "-m ledgerlab.course lab --root=somewhere -- --no-browser" in shown


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_lab_fills_the_folder_then_serves_it(tmp_path):
    """The Windows path, run for real: copies made, then a server on loopback, stopped."""
    root, port = tmp_path / "work", _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_DATA_DIR": str(tmp_path / "data"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen(
        [sys.executable, "-m", "ledgerlab.course", "lab", "--root", str(root), "--",
         "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.port_retries=0", "--IdentityProvider.token="],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, status = time.monotonic() + 120, None
        while status is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status",
                                            timeout=5) as reply:
                    status = json.load(reply)
            except OSError:
                time.sleep(0.5)
        assert status is not None, "the server did not answer"
        assert [p.name for p in course_notebooks(root)] == \
            [p.name for p in course_notebooks(paths.learner())]
    finally:
        server.terminate()
        server.communicate(timeout=60)


# --- make links: Binder and hub links from the clone's own remote -------------------------

@pytest.mark.parametrize("remote", ["https://github.com/alice-b/ledger.lab.git",
                                    "git@github.com:alice-b/ledger.lab.git",
                                    "https://github.com/alice-b/ledger.lab"])
def test_links_name_the_remotes_owner_and_repository(course_cli, remote):
    code, out, _ = course_cli("links", "--remote", remote, "--hub", "https://hub.example.org/")
    assert code == 0
    binder, hub = (line.split()[1] for line in out.splitlines())
    assert binder == ("https://mybinder.org/v2/gh/alice-b/ledger.lab/HEAD"
                      "?urlpath=lab/tree/learner/00-contents.ipynb")
    assert hub == ("https://hub.example.org/hub/user-redirect/git-pull?repo=https%3A%2F%2F"
                   "github.com%2Falice-b%2Fledger.lab&branch=main"
                   "&urlpath=lab%2Ftree%2Fledger.lab%2Flearner%2F00-contents.ipynb")


def test_links_read_origin_of_the_clone(tmp_path):
    from ledgerlab.course.cli import course_links, origin_url
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin",
                    "git@github.com:carol/ledgerlab.git"], check=True, timeout=30)
    assert course_links(origin_url(tmp_path))["binder"].startswith(
        "https://mybinder.org/v2/gh/carol/ledgerlab/HEAD?")


def test_links_refuse_a_remote_that_is_not_github(course_cli, tmp_path):
    code, out, err = course_cli("links", "--remote", "https://gitlab.com/alice/ledgerlab.git")
    assert (code, out) == (2, "")
    assert "not a GitHub repository" in err
    from ledgerlab.course.cli import origin_url
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=30)
    with pytest.raises(ValueError, match="no remote named origin"):
        origin_url(tmp_path)


def test_the_documented_links_are_what_links_prints_for_owner():
    from ledgerlab.course.cli import course_links
    docs = (paths.CHECKOUT / "docs" / "editions.md").read_text(encoding="utf-8")
    for link in course_links("https://github.com/OWNER/ledgerlab").values():
        assert link in docs
