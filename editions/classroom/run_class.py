"""``make test-classroom``: a simulated class on a local JupyterHub, all on 127.0.0.1.

Each student logs in through the hub's login form (dummy authenticator), asks the hub for
a token, starts a server, follows the course's nbgitpuller link (which pulls a local clone
of the course into the student's home and opens ``learner/00-contents.ipynb``), and then
executes notebooks 02 and 04 of ``learner/`` (the copies without outputs, which each
student checks show none) in a kernel of their own through the server's REST API and
kernel websocket, comparing every cell's outputs with those committed in ``notebooks/`` as
strict nbval does. Student 1 also runs notebook 05.
The students run concurrently. The pulled course folder is made read-only first; a hub
started by root starts its servers without the capabilities that let root ignore that
(see jupyterhub_config.py), and each student checks once that a write there is refused.

Settings (environment): STUDENTS (default 10); KILL_ONE=N kills student N's kernel in the
middle of its first notebook and then expects exactly that student to fail, naming the cell.

Prints one line, ``classroom: N students, S s until all were ready, P s until all had run,
M MiB per student (peak RSS of server + kernel)``, and writes details (CPU seconds, where
each notebook wrote files) to build/classroom/report.json (report-kill.json with KILL_ONE). Exit status 1 on any failure,
each failure on its own line naming the student, the notebook and the cell. Whatever
happens, the hub, the proxy, every server and every kernel are stopped, and nothing of
this run is left running or listening.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import httpx
import nbformat
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

import ledgerlab
from nbcheck import Cell, code_cells, difference, sanitizer

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BUILD = ROOT / "build" / "classroom"
PROXY = BUILD / "npm" / "node_modules" / ".bin" / "configurable-http-proxy"
BIN = Path(sys.executable).parent
COURSE = "ledgerlab"             # the folder nbgitpuller pulls into, in each home
LEARNER = "learner"               # the course folder the link opens: notebooks with no outputs
NOTEBOOKS = ["02-bad-slice-vs-whole-turn.ipynb", "04-the-boundary-table.ipynb"]
SCENARIO = "05-the-ledger.ipynb"  # student 1 runs it too
KILL_AT_CELL = 3                  # KILL_ONE: the cell of the first notebook that is cut short
START_SECONDS = 120               # for the hub to answer
READY_SECONDS = 300               # for every server of the class to be ready
CELL_SECONDS = 300                # for one cell's outputs


class StudentFailed(Exception):
    """One student's failure; the message names the student and where it happened."""


@dataclass
class Student:
    number: int
    name: str
    ready: float | None = None     # seconds since the class started
    done: float | None = None
    failure: str | None = None
    step: str = "logging in"       # where an unexpected error happened
    server_pid: int | None = None
    peak_kernel_kib: int = 0       # the largest of its kernels' VmHWM
    kernel_cpu: float = 0.0        # CPU seconds of all its kernels
    writes: dict = field(default_factory=dict)   # notebook -> places it wrote to


# ---------------------------------------------------------------- processes and ports

def marked_processes(run: str, *also: str) -> list[int]:
    """Every process that carries this run's mark in its environment (hub, proxy, servers,
    kernels, git), whichever session or parent it ended up in; with ``also``, only those
    whose environment has these ``NAME=value`` entries too."""
    marks, found = {f"CLASSROOM_RUN={run}".encode(), *(a.encode() for a in also)}, []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if marks <= set((entry / "environ").read_bytes().split(b"\0")):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def proc_text(pid: int, name: str) -> str:
    try:
        return (Path("/proc") / str(pid) / name).read_text(errors="replace")
    except OSError:
        return ""


def peak_rss_kib(pid: int) -> int:
    for line in proc_text(pid, "status").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = proc_text(pid, "stat").rsplit(")", 1)[-1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def listening_ports(pids: list[int] | None = None) -> set[int]:
    """TCP ports in LISTEN, of the given processes only (or of anyone)."""
    inodes = None
    if pids is not None:
        inodes = set()
        for pid in pids:
            for fd in Path(f"/proc/{pid}/fd").glob("*"):
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and (inodes is None or fields[9] in inodes):
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def find_pid(run: str, needle: str) -> int | None:
    """The marked process whose command line contains ``needle``."""
    for pid in marked_processes(run):
        if needle in proc_text(pid, "cmdline"):
            return pid
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---------------------------------------------------------------- files

def snapshot_course(dest: Path) -> None:
    """A git repository holding what is checked out here (tracked files as they are now),
    the ``file://`` source the nbgitpuller link points at."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git = ["git", "-c", "user.name=classroom", "-c", "user.email=classroom@localhost"]
    for command in (["init", "-q", "-b", "main"], ["add", "-A"],
                    ["commit", "-q", "-m", "The course as checked out"]):
        subprocess.run(git + command, cwd=dest, check=True, capture_output=True)


def skeleton_home(skel: Path) -> None:
    """The home every student starts from, with matplotlib's font cache already built, as
    an image or /etc/skel would have it. (Without it every student builds the cache on
    their first import: seconds of CPU each, and past 5 s matplotlib says so on stderr,
    which a busy class sees in notebook 02's first cell.)"""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    skel.mkdir()
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True,
                   env=dict(env, HOME=str(skel)), capture_output=True)


def tree(path: Path) -> dict[str, tuple]:
    """Every file and folder below ``path``: relative name -> (size, mtime, mode)."""
    found = {}
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            full = os.path.join(folder, name)
            try:
                info = os.lstat(full)
            except OSError:
                continue
            found[os.path.relpath(full, path)] = (info.st_size, info.st_mtime_ns, info.st_mode)
    return found


def make_read_only(path: Path) -> None:
    for folder, dirs, files in os.walk(path):
        for name in files:
            os.chmod(os.path.join(folder, name), 0o444, follow_symlinks=False)
        os.chmod(folder, 0o555)


def places(changed: set[str]) -> list[str]:
    """Changed paths (``home:name``, ``temp:name``), shortened to where they are (random
    temp names folded), without the folders that only hold another entry of the list."""
    short = set()
    for entry in changed:
        kind, name = entry.split(":", 1)
        parts = name.split(os.sep)
        if parts[0].startswith("tmp"):
            parts[0] = "tmp*"
        short.add(f"{kind}:{os.sep.join(parts[:3])}")
    return sorted(p for p in short if not any(o.startswith(p + os.sep) for o in short))


def package_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


# ---------------------------------------------------------------- one student

class Class:
    def __init__(self, url: str, class_dir: Path, repo: str, run: str, kill_one: int | None):
        self.url, self.class_dir, self.repo, self.run = url, class_dir, repo, run
        self.kill_one = kill_one
        self.sanitize = sanitizer(ROOT / "notebooks" / "nbval-sanitize.cfg")
        self.started = time.monotonic()

    def link(self) -> str:
        """The nbgitpuller link a teacher would hand out (see docs/classroom.md)."""
        query = urlencode({"repo": self.repo, "branch": "main",
                           "urlpath": f"lab/tree/{COURSE}/{LEARNER}/00-contents.ipynb"})
        return f"/hub/user-redirect/git-pull?{query}"

    async def attend(self, student: Student) -> None:
        try:
            async with httpx.AsyncClient(base_url=self.url, trust_env=False,
                                         timeout=httpx.Timeout(CELL_SECONDS)) as http:
                auth = await self.log_in(http, student)
                student.step = "starting a server"
                await self.start_server(http, student, auth)
                student.step = "pulling the course"
                await self.pull(http, student, auth)
                notebooks = NOTEBOOKS + ([SCENARIO] if student.number == 1 else [])
                for index, notebook in enumerate(notebooks):
                    await self.run_notebook(http, student, auth, notebook,
                                            kill=index == 0 and student.number == self.kill_one,
                                            probe=index == len(notebooks) - 1)
        except StudentFailed as failure:
            student.failure = str(failure)
        except Exception as error:  # an unexpected error is this student's failure, typed
            student.failure = f"{student.name}: {student.step}: {type(error).__name__}: {error}"
        finally:
            student.done = time.monotonic() - self.started
            student.server_pid = self.server_pid(student)

    def server_pid(self, student: Student) -> int | None:
        for pid in marked_processes(self.run, f"JUPYTERHUB_USER={student.name}"):
            if "jupyterhub-singleuser" in proc_text(pid, "cmdline"):
                return pid
        return None

    async def log_in(self, http: httpx.AsyncClient, student: Student) -> dict:
        """The login form (any password passes the dummy authenticator), then a token."""
        page = await http.get("/hub/login")
        xsrf = http.cookies.get("_xsrf")
        if page.status_code != 200 or not xsrf:
            raise StudentFailed(f"{student.name}: login page answered {page.status_code}")
        answer = await http.post("/hub/login", data={"username": student.name,
                                                     "password": "classroom", "_xsrf": xsrf})
        if answer.status_code != 302:
            raise StudentFailed(f"{student.name}: login answered {answer.status_code}")
        xsrf = http.cookies.get("_xsrf")   # a new one, bound to the session that logged in
        answer = await http.post(f"/hub/api/users/{student.name}/tokens",
                                 json={"note": "classroom", "expires_in": 3600},
                                 headers={"X-XSRFToken": xsrf})
        if answer.status_code != 201:
            raise StudentFailed(f"{student.name}: token request answered {answer.status_code}")
        return {"Authorization": f"token {answer.json()['token']}"}

    async def start_server(self, http: httpx.AsyncClient, student: Student, auth: dict) -> None:
        answer = await http.post(f"/hub/api/users/{student.name}/server", headers=auth)
        if answer.status_code not in (201, 202):
            raise StudentFailed(f"{student.name}: server start answered {answer.status_code}")
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            model = (await http.get(f"/hub/api/users/{student.name}", headers=auth)).json()
            server = model.get("servers", {}).get("")
            if server and server.get("ready"):
                student.ready = time.monotonic() - self.started
                return
            if not server or (not server.get("pending") and not server.get("ready")):
                raise StudentFailed(f"{student.name}: the server stopped while starting")
            # The hub waits its whole http_timeout for a server that has already died.
            if time.monotonic() > deadline - READY_SECONDS + 20 and not self.server_pid(student):
                raise StudentFailed(f"{student.name}: the server process exited while starting "
                                    f"(see {BUILD / 'hub.log'})")
            await asyncio.sleep(0.5)
        raise StudentFailed(f"{student.name}: no server after {READY_SECONDS} s")

    async def pull(self, http: httpx.AsyncClient, student: Student, auth: dict) -> None:
        """Follow the link through the hub to the student's nbgitpuller page, then do what
        that page's script does: read the pull's event stream until it has finished."""
        page = await http.get(self.link(), headers=auth, follow_redirects=True)
        if page.status_code != 200 or not page.url.path.endswith(f"/user/{student.name}/git-pull"):
            raise StudentFailed(f"{student.name}: the nbgitpuller link led to "
                                f"{page.status_code} {page.url.path}")
        query = {"repo": self.repo, "branch": "main", "targetpath": COURSE}
        phase = None
        async with http.stream("GET", f"/user/{student.name}/git-pull/api", params=query,
                               headers=auth) as events:
            async for line in events.aiter_lines():
                if line.startswith("data: "):
                    phase = json.loads(line[6:]).get("phase")
                    if phase in ("finished", "error"):
                        break
        if phase != "finished":
            raise StudentFailed(f"{student.name}: nbgitpuller ended with phase {phase!r}")
        course = self.home(student) / COURSE
        if package_digest(course / "ledgerlab") != package_digest(Path(ledgerlab.__file__).parent):
            raise StudentFailed(f"{student.name}: the kernel's ledgerlab is not the pulled course's")
        make_read_only(course)

    def home(self, student: Student) -> Path:
        return self.class_dir / "homes" / student.name

    def places(self, student: Student) -> dict[str, dict]:
        return {"home": tree(self.home(student)), "temp": tree(self.class_dir / "tmp" / student.name)}

    async def run_notebook(self, http, student, auth, notebook: str, kill: bool,
                           probe: bool) -> None:
        where = f"{student.name}: {notebook}"
        student.step = f"{notebook}: starting a kernel"
        cells = code_cells(ROOT / "notebooks" / notebook)   # the outputs committed here
        path = f"{COURSE}/{LEARNER}/{notebook}"
        pulled = nbformat.read(self.home(student) / path, as_version=4)
        shown = [number for number, cell in enumerate(pulled.cells, start=1)
                 if cell.cell_type == "code" and (cell.outputs or cell.execution_count)]
        if shown:
            raise StudentFailed(f"{where}: the pulled copy shows outputs before it runs "
                                f"(cells {shown})")
        answer = await http.post(f"/user/{student.name}/api/sessions", headers=auth, json={
            "path": path, "name": notebook, "type": "notebook", "kernel": {"name": "python3"}})
        if answer.status_code != 201:
            raise StudentFailed(f"{where}: starting a kernel answered {answer.status_code}")
        session = answer.json()
        kernel_id = session["kernel"]["id"]
        ws_url = self.url.replace("http", "ws", 1) + \
            f"/user/{student.name}/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex}"
        def connect():
            return websocket_connect(HTTPRequest(
                ws_url, headers=auth, connect_timeout=CELL_SECONDS, request_timeout=CELL_SECONDS))

        socket_ = await connect()
        first = True
        course_before = tree(self.home(student) / COURSE)
        before = self.places(student)
        written = set()
        try:
            for cell in cells:
                if cell.skip:
                    continue
                student.step = f"{notebook} cell {cell.number}"
                if kill and cell.number == KILL_AT_CELL:
                    os.kill(self.kernel_pid(kernel_id), signal.SIGKILL)  # dies under the student
                try:
                    outputs = await self.execute(socket_, cell, f"{where} cell {cell.number}")
                except ConnectionClosed:
                    if not first:
                        raise StudentFailed(f"{where} cell {cell.number}: the kernel's "
                                            "connection closed") from None
                    # As JupyterLab does: a socket closed before the first reply (the hub's
                    # proxy under a class's load) is opened again, and the cell sent again.
                    socket_.close()
                    socket_ = await connect()
                    outputs = await self.execute(socket_, cell, f"{where} cell {cell.number}")
                first = False
                problem = cell.check and difference(outputs, cell.outputs, self.sanitize)
                if problem:
                    raise StudentFailed(f"{where} cell {cell.number}: outputs differ: {problem}")
                after = self.places(student)
                for kind in after:
                    written |= {f"{kind}:{name}" for name, info in after[kind].items()
                                if before[kind].get(name) != info}
                before = after
                if tree(self.home(student) / COURSE) != course_before:
                    raise StudentFailed(f"{where} cell {cell.number}: wrote into the course folder")
            if probe:
                await self.probe_read_only(socket_, where)
        finally:
            student.writes[notebook] = places(written)
            pid = self.kernel_pid(kernel_id)
            if pid:
                student.peak_kernel_kib = max(student.peak_kernel_kib, peak_rss_kib(pid))
                student.kernel_cpu += cpu_seconds(pid)
            socket_.close()
            await http.delete(f"/user/{student.name}/api/sessions/{session['id']}", headers=auth)

    async def probe_read_only(self, socket_, where: str) -> None:
        """The check above only sees writes that succeed: make sure a write is refused."""
        probe = Cell(-1, "open('../probe.txt', 'w')", [], check=False, raises=True, skip=False)
        outputs = await self.execute(socket_, probe, f"{where} (read-only probe)")
        if [output.get("ename") for output in outputs] != ["PermissionError"]:
            raise StudentFailed(f"{where}: the course folder accepted a write: "
                                "the read-only check cannot be trusted")

    def kernel_pid(self, kernel_id: str) -> int | None:
        return find_pid(self.run, f"kernel-{kernel_id}.json")

    async def execute(self, socket_, cell, where: str) -> list:
        """Run one cell as nbval does (store_history off) and collect its outputs."""
        msg_id = uuid.uuid4().hex
        socket_.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "",
                       "session": uuid.uuid4().hex, "date": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": cell.source, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": False}}))
        outputs = []
        while True:
            try:
                raw = await asyncio.wait_for(socket_.read_message(), CELL_SECONDS)
            except asyncio.TimeoutError:
                raise StudentFailed(f"{where}: no output for {CELL_SECONDS} s") from None
            if raw is None:
                raise ConnectionClosed(where)
            if isinstance(raw, bytes):      # binary frames carry widget buffers only
                continue
            message = json.loads(raw)
            kind, content = message["msg_type"], message["content"]
            if kind == "status" and content["execution_state"] in ("restarting", "dead"):
                raise StudentFailed(f"{where}: the kernel died "
                                    f"(the server reports {content['execution_state']!r})")
            if message["parent_header"].get("msg_id") != msg_id or message["channel"] != "iopub":
                continue
            if kind == "status" and content["execution_state"] == "idle":
                return outputs
            if kind == "stream":
                outputs.append(nbformat.from_dict(
                    {"output_type": "stream", "name": content["name"], "text": content["text"]}))
            elif kind in ("display_data", "execute_result"):
                outputs.append(nbformat.from_dict(
                    {"output_type": kind, "data": content["data"],
                     "metadata": content["metadata"]}))
            elif kind == "error":
                if not cell.raises:
                    raise StudentFailed(f"{where}: raised {content['ename']}")
                outputs.append(nbformat.from_dict(
                    {"output_type": "error", "ename": content["ename"],
                     "evalue": content["evalue"], "traceback": content["traceback"]}))


class ConnectionClosed(Exception):
    """The kernel's websocket closed while a cell waited for its reply."""


# ---------------------------------------------------------------- the hub

def start_hub(class_dir: Path, run: str, token: str, ports: dict, log: Path):
    env = dict(os.environ, CLASSROOM_RUN=run, CLASSROOM_DIR=str(class_dir),
               CLASSROOM_TOKEN=token, CLASSROOM_PROXY=str(PROXY),
               CLASSROOM_SKEL=str(class_dir / "skel"),
               CLASSROOM_SINGLEUSER=str(BIN / "jupyterhub-singleuser"),
               CLASSROOM_PORT=str(ports["public"]), CLASSROOM_HUB_PORT=str(ports["hub"]),
               CLASSROOM_PROXY_API_PORT=str(ports["proxy_api"]),
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("JUPYTERHUB_API_TOKEN", None)
    with open(log, "wb") as out:
        hub = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(HERE / "jupyterhub_config.py")],
                               cwd=class_dir, env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{ports['public']}"
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if hub.poll() is not None:
            raise RuntimeError(f"the hub exited with {hub.returncode}; see {log}")
        try:
            if httpx.get(f"{url}/hub/api/", timeout=2, trust_env=False).status_code == 200:
                return hub, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the hub did not answer in {START_SECONDS} s; see {log}")


def stop_all(hub: subprocess.Popen | None, run: str) -> list[int]:
    """SIGTERM to the hub (it stops the servers, which stop their kernels, and the proxy),
    then SIGKILL to anything of this run still alive. Returns what could not be killed."""
    if hub is not None and hub.poll() is None:
        os.killpg(hub.pid, signal.SIGTERM)
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()
    deadline = time.monotonic() + 20
    while (left := marked_processes(run)) and time.monotonic() < deadline:
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)
    return marked_processes(run)


def stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt  # so that the cleanup in main's finally runs


def main() -> int:
    students = int(os.environ.get("STUDENTS", "10"))
    kill_one = int(os.environ["KILL_ONE"]) if os.environ.get("KILL_ONE") else None
    if students < 1 or (kill_one is not None and not 1 <= kill_one <= students):
        print("STUDENTS must be at least 1, and KILL_ONE a student's number", file=sys.stderr)
        return 2
    if not PROXY.exists():
        print(f"configurable-http-proxy is missing ({PROXY}): run make test-classroom",
              file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    BUILD.mkdir(parents=True, exist_ok=True)
    run, token = secrets.token_hex(8), secrets.token_hex(32)
    ports = {"public": free_port(), "hub": free_port(), "proxy_api": free_port()}
    class_dir = Path(tempfile.mkdtemp(prefix="ledgerlab-classroom-"))
    hub, ours, roster = None, set(), []
    try:
        source = class_dir / "course" / COURSE
        snapshot_course(source)
        skeleton_home(class_dir / "skel")
        (class_dir / "homes").mkdir()
        (class_dir / "tmp").mkdir()
        hub, url = start_hub(class_dir, run, token, ports, BUILD / "hub.log")
        lesson = Class(url, class_dir, f"file://{source}", run, kill_one)
        roster = [Student(n, f"student-{n:02d}") for n in range(1, students + 1)]

        async def everyone():
            await asyncio.gather(*(lesson.attend(student) for student in roster))
        asyncio.run(everyone())
        ours = listening_ports(marked_processes(run))   # before they stop: kernels, servers
        servers = {s.name: (peak_rss_kib(s.server_pid), cpu_seconds(s.server_pid))
                   for s in roster if s.server_pid}
    finally:
        left = stop_all(hub, run)
        still = (ours | set(ports.values())) & listening_ports()
        shutil.rmtree(class_dir, ignore_errors=True)
        if left or still:
            print(f"FAILED cleanup: {len(left)} processes of this run left, "
                  f"ports {sorted(still)} still listening", file=sys.stderr)
    status = report(roster, servers, kill_one, sorted(ours))
    return 1 if left or still else status


def report(roster: list[Student], servers: dict, kill_one: int | None, ports: list) -> int:
    per_student = {s.name: {
        "ready_s": s.ready, "done_s": s.done, "failure": s.failure,
        "peak_rss_mib": round((servers.get(s.name, (0, 0))[0] + s.peak_kernel_kib) / 1024, 1),
        "server_rss_mib": round(servers.get(s.name, (0, 0))[0] / 1024, 1),
        "kernel_rss_mib": round(s.peak_kernel_kib / 1024, 1),
        "cpu_s": round(servers.get(s.name, (0, 0))[1] + s.kernel_cpu, 1),
        "writes": s.writes} for s in roster}
    name = "report-kill.json" if kill_one else "report.json"
    (BUILD / name).write_text(json.dumps(
        {"students": per_student, "ports_used": ports, "cpus": os.cpu_count()}, indent=1) + "\n")
    failed = [s for s in roster if s.failure]
    for student in failed:
        print(f"FAILED {student.failure}")
    ready = [s.ready for s in roster if s.ready is not None]
    memory = [v["peak_rss_mib"] for v in per_student.values() if v["peak_rss_mib"]]
    ready_s = f"{max(ready):.0f} s" if len(ready) == len(roster) else "never"
    print(f"classroom: {len(roster)} students, {ready_s} until all were ready, "
          f"{max(s.done for s in roster):.0f} s until all had run, "
          f"{max(memory, default=0):.0f} MiB per student (peak RSS of server + kernel)")
    if kill_one is None:
        return 1 if failed else 0
    # KILL_ONE: that student, and only that one, must have failed, at a named cell.
    victim = f"student-{kill_one:02d}"
    expected = (len(failed) == 1 and failed[0].name == victim
                and f"cell {KILL_AT_CELL}" in failed[0].failure and "kernel" in failed[0].failure)
    print(f"kill test: {victim}'s kernel was killed; "
          + ("only that student failed, at the cell, and the others finished" if expected
             else "the failures above are not that one failure"))
    return 0 if expected else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("classroom: interrupted (the hub, its servers and kernels were stopped)",
              file=sys.stderr)
        sys.exit(130)
