"""Run one submitted notebook in a sandbox and take back only its answers, as plain data.

The grader never trusts what runs in a student's kernel: code there can print anything,
patch anything and start processes. So the kernel is asked for answers, not verdicts:
each exercise's answer variables as plain data (ints, floats, strings, lists, a ``Turn``
as its two texts, a function as its outputs on the grading inputs). They leave the
sandbox through a pipe that only the runner holds, and the grader judges them in its own
process with the same checks a learner's ``check()`` uses (``judge``; the format is
``answers``). A forged answer is only an answer: it earns what it earns.

The sandbox is bubblewrap (``bwrap``, Debian's ``bubblewrap``, what Flatpak uses): a
read-only view of the system, the Python and the installed package; a private writable
home and /tmp of limited size; no network (only its own loopback, for the kernel); its
own PID namespace, so every process a submission starts dies with it; an unprivileged
user without capabilities; and limits on memory, CPU time and file size.
"""

from __future__ import annotations

import ast
import ctypes
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..exercises import GRADED
from .answers import MARK, answers_cell

CELL_TIMEOUT = 30  # seconds per cell, the answer cells included
NOTEBOOK_TIMEOUT = 600  # seconds per submission, kernel start included
MEMORY_BYTES = 3 * 1024**3  # address space per process: a clean MemoryError, not a dead host
CPU_SECONDS = 300  # per process
FILE_BYTES = 64 * 1024**2  # the largest file a submission may write
TMPFS_BYTES = 256 * 1024**2  # its home and /tmp together hold no more than this each
ANSWER_BYTES = 256 * 1024  # one exercise's answers, as JSON
HOME = "/home/student"
# bwrap's own environment. bwrap stays in the sandbox as its PID 1, and every process there can
# read /proc/1/environ: so bwrap starts with nothing of the grader's (a JUPYTERHUB_API_TOKEN
# came back that way), and --clearenv gives the runner and the kernel their own.
BWRAP_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
# This Python, by a path that holds no "..": in the sandbox only the venv is bound, not the
# folder a relative path such as tests/../.venv/bin/python passes through.
PYTHON = os.path.abspath(sys.executable)


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot make namespaces here (macOS, no user namespaces)."""


@dataclass(frozen=True)
class Outcome:
    """What came back from one run: each exercise's plain answers, and why some did not."""

    answers: dict[str, dict]  # exercise name -> {variable: plain value}
    problem: str  # "" when the run ended normally
    seconds: float


# --- Inside the sandbox: run the notebook, and ask for answers as soon as they exist --------

def drive(notebook: Path, names: list[str], answers_fd: int, cell_timeout: int) -> None:
    """Run the student's cells, asking the kernel for each exercise's answers after the last
    cell that assigns them and again at the end; then say how the run ended.

    Only the answers cells' outputs are kept (a flood of output elsewhere costs nothing).
    Each exercise's answers go to ``answers_fd`` as soon as its cell ends, so a kernel that
    dies later loses none of them; the last record ``ended`` says how the run ended (done,
    the kernel died, or it was stopped by a signal). The grader reads the latest answers.
    """
    _not_dumpable()  # the kernel runs as the same user: keep it out of /proc/<this>/fd
    import nbformat
    from nbclient import NotebookClient
    from jupyter_client.channels import HBChannel
    from nbclient.exceptions import DeadKernelError
    from traitlets.config import Config

    HBChannel.stop = _stop_heartbeat  # this process runs one kernel, and never reuses it

    nb = nbformat.read(notebook, as_version=4)
    total = len(nb.cells)
    student = [(number, cell) for number, cell in enumerate(nb.cells, start=1)
               if cell.cell_type != "raw"]
    after = _asked_after([cell for _, cell in student], names)
    cells, asked, numbers = [], {}, []  # asked: cell index -> exercise; numbers: -> the student's

    def ask(name: str, number: int | None) -> None:
        asked[len(cells)] = name
        cells.append(nbformat.v4.new_code_cell(answers_cell(name)))
        numbers.append(number)

    for position, (number, cell) in enumerate(student):
        cells.append(cell)
        numbers.append(number)
        for name in after.get(position, ()):
            ask(name, number)
    for name in names:
        ask(name, None)
    nb.cells = cells
    out = os.fdopen(answers_fd, "w", encoding="utf-8")
    kernel = {}  # the kernel's process, once started: its state and exit status
    current = {"index": None}

    def put(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    class AnswersOnly(NotebookClient):
        def output(self, outs, msg, display_id, cell_index):
            return super().output(outs, msg, display_id, cell_index) if cell_index in asked \
                else None

    def started(**_):
        kernel["process"] = getattr(getattr(client.km, "provisioner", None), "process", None)

    def starting(cell, cell_index, **_):
        current["index"] = cell_index

    def executed(cell, cell_index, **_):
        if cell_index in asked:
            # Only this exercise's line: a thread cannot slip another exercise's into it.
            prefix = f'{MARK}{{"exercise": {json.dumps(asked[cell_index])}, '
            text = "".join(output.get("text", "") for output in cell.outputs
                           if output.get("output_type") == "stream")
            line = next((line for line in text.splitlines() if line.startswith(prefix)), "")
            if line and len(line) <= ANSWER_BYTES:
                put(line[len(MARK):])
        if _stopped(kernel.get("process")):  # a cell that ran out its time in a stopped kernel
            raise _Halted("stopped")

    def where() -> dict:
        """The student's cell the kernel was in (or last ran, for an answers cell), and the
        exercise whose answers were being read."""
        index = current["index"]
        if index is None:  # before the first cell: the kernel's start
            return {"cell": None, "of": total, "exercise": None}
        return {"cell": numbers[index], "of": total, "exercise": asked.get(index)}

    timed_out = {"ename": "CellTimeoutError", "evalue": f"stopped after {cell_timeout} s",
               "traceback": []}
    # The standard json packer on both ends, even where orjson is installed: with orjson,
    # a 1 GiB print outran the cell's time limit and the kernel died, so the answers after
    # it were lost (tests/course/test_grading_hostile.py, "flood").
    json_only = ["--Session.packer=json", "--Session.unpacker=json"]
    client = AnswersOnly(nb, timeout=cell_timeout, interrupt_on_timeout=True,
                         error_on_timeout=timed_out, allow_errors=True, kernel_name="python3",
                         shutdown_kernel="immediate",
                         config=Config(Session={"packer": "json", "unpacker": "json"}),
                         extra_arguments=json_only,
                         # Where the runner was started: HOME in the sandbox, the temp folder
                         # without it.
                         resources={"metadata": {"path": os.getcwd()}},
                         on_notebook_start=started, on_cell_start=starting,
                         on_cell_executed=executed)
    try:
        client.execute()
    except DeadKernelError:
        process = kernel.get("process")
        status = process.poll() if process is not None else None
        put(json.dumps({"ended": {"how": "died", **where(), "status": status}}))
    except _Halted:
        put(json.dumps({"ended": {"how": "stopped", **where()}}))
    except Exception:  # a kernel that never started, say: the grader names where, not why
        put(json.dumps({"ended": {"how": "failed", **where()}}))
        raise
    else:
        put(json.dumps({"ended": {"how": "done"}}))


def _stop_heartbeat(channel) -> None:
    """``HBChannel.stop`` without waiting for ever. After a kernel dies, the heartbeat
    thread can block in a ping that no peer will take, and ``stop`` joins that thread: the
    run then hung until the notebook's time limit (seen in the hostile grading test). The
    thread is a daemon, so give it a second and go on; its socket is closed only if it
    ended (a zmq socket is not for two threads at once)."""
    channel._running = False
    channel._exit.set()
    channel.join(timeout=1)
    if not channel.is_alive():
        channel.close()


class _Halted(Exception):
    """The kernel was stopped by a signal (SIGSTOP): no cell after this one can run."""


def _stopped(process) -> bool:
    """Whether the kernel's process is stopped by a signal (state T in /proc)."""
    if process is None:
        return False
    try:
        stat = Path(f"/proc/{process.pid}/stat").read_text()
    except OSError:  # gone, or not Linux (the unsafe mode on macOS)
        return False
    return stat.rpartition(")")[2].split()[:1] == ["T"]


def _asked_after(cells: list, names: list[str]) -> dict[int, list[str]]:
    """For each exercise, the position of the last cell that assigns one of its answers,
    when that is not the last cell (the answers are asked for at the end anyway).

    Read from the cells' code, IPython's magics translated: a name bound by an assignment,
    a def, an import or a loop, or any name after ``from x import *``. A name bound only by
    exec() or globals() is not seen; its answer is then read at the end, as before.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell
    bound = []
    for cell in cells:
        try:
            tree = ast.parse(transform(cell.source)) if cell.cell_type == "code" else None
        except (SyntaxError, ValueError):  # a cell that cannot run binds nothing
            tree = None
        bound.append(_names_bound(tree) if tree else set())
    last, after = len(cells) - 1, {}
    for name in names:
        answers = set(GRADED[name].answers)
        found = [position for position, names_here in enumerate(bound)
                 if "*" in names_here or answers & names_here]
        if found and found[-1] < last:
            after.setdefault(found[-1], []).append(name)
    return after


def _names_bound(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names |= set(node.names)
    return names


def _not_dumpable() -> None:
    try:
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass  # not Linux: the unsafe mode has no such protection anyway


# --- Outside: start the sandbox, read the pipe, stop everything ----------------------------

def check_bwrap() -> None:
    """Raise SandboxUnavailable unless bwrap can build this sandbox here."""
    if shutil.which("bwrap") is None:
        raise SandboxUnavailable("bwrap is not installed (Debian: apt-get install bubblewrap)")
    # Not /bin/true: the sandbox must hold a Python that imports this package.
    probe = subprocess.run([*_bwrap(Path(tempfile.gettempdir())), PYTHON, "-c",
                            "import ledgerlab.course.grading.sandbox"], capture_output=True,
                           text=True, env=BWRAP_ENV)
    if probe.returncode != 0:
        raise SandboxUnavailable(f"bwrap cannot build the sandbox here: "
                                 f"{probe.stderr.strip()[-300:] or probe.returncode}")


def _bwrap(work: Path) -> list[str]:
    """The bwrap command line: bind only what the kernel needs, read-only."""
    import ledgerlab

    package = str(Path(ledgerlab.__file__).resolve().parent)
    # Found on the grader's PATH: bwrap itself runs with BWRAP_ENV's.
    command = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
               "--disable-userns", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
               "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        top = Path("/") / name
        if top.is_symlink():
            command += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            command += ["--ro-bind", str(top), str(top)]
    for etc in ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts", "/etc/alternatives",
                "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts"):
        command += ["--ro-bind-try", etc, etc]
    # The private /tmp and /home first, then Python, the venv and the package on top: a
    # checkout under /tmp or /home stays visible, read-only.
    command += ["--dev", "/dev", "--proc", "/proc",
                "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp",
                "--size", str(TMPFS_BYTES), "--tmpfs", "/home", "--dir", HOME,
                "--size", str(TMPFS_BYTES // 4), "--tmpfs", "/dev/shm"]
    for path in sorted({sys.base_prefix, sys.prefix, package}):
        command += ["--ro-bind", path, path]
    command += ["--ro-bind", str(work), "/submission",
                "--clearenv", "--setenv", "HOME", HOME, "--setenv", "LANG", "C.UTF-8",
                "--setenv", "PATH", f"{Path(PYTHON).parent}:/usr/bin:/bin",
                "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "MPLBACKEND", "Agg",
                "--chdir", HOME, "--remount-ro", "/dev", "--remount-ro", "/"]
    return command


def _limits() -> None:
    """In the child, before bwrap starts: what every process of the sandbox inherits."""
    for limit, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
                         (resource.RLIMIT_FSIZE, FILE_BYTES), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))


def run(notebook: bytes, names: list[str], *, cell_timeout: int, notebook_timeout: int,
        sandboxed: bool = True) -> Outcome:
    """Run ``notebook`` (its bytes) and collect the plain answers of ``names``."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ledgerlab-grade-") as tmp:
        work = Path(tmp)
        (work / "submission.ipynb").write_bytes(notebook)
        read, write = os.pipe()
        inner = [PYTHON, "-m", "ledgerlab.course.grading.sandbox",
                 "/submission/submission.ipynb" if sandboxed else str(work / "submission.ipynb"),
                 str(write), str(cell_timeout), *names]
        command = [*_bwrap(work), *inner] if sandboxed else inner
        env = BWRAP_ENV if sandboxed else {**os.environ, "HOME": str(work)}
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       pass_fds=(write,), preexec_fn=_limits, env=env,
                                       cwd=work, start_new_session=True)
        finally:
            os.close(write)
        lines, problem = _read_answers(read, started + notebook_timeout)
        if problem:
            _kill(process)
        process.wait()
        _kill(process)  # the unsafe mode's strays; in the sandbox, the PID namespace took them
    answers, ended = {}, None
    for line in lines:
        record = _parse(line)
        if record is None:
            continue
        if "ended" in record:
            ended = record["ended"]
        elif record["exercise"] in names:
            # The latest: read after the cell that last assigns them, then again at the end.
            answers[record["exercise"]] = record["answers"]
    return Outcome(answers, problem or _ended(ended, names), time.monotonic() - started)


def _read_answers(fd: int, deadline: float) -> tuple[list[bytes], str]:
    """Lines from the runner's pipe until it closes, at most ANSWER_BYTES each."""
    buffer, lines = b"", []
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return lines, "stopped: the notebook ran past its time limit"
            if not select.select([pipe], [], [], min(left, 1.0))[0]:
                continue
            chunk = pipe.read(65536)
            if not chunk:
                return lines, ""
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            lines += complete
            if len(buffer) > ANSWER_BYTES or len(lines) > 1000:
                return lines, "stopped: more answers than any notebook gives"


def _parse(line: bytes) -> dict | None:
    """One record of the pipe: an exercise's answers, or how the run ended; else None."""
    try:
        found = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(found, dict):
        return None
    if set(found) == {"ended"} and isinstance(found["ended"], dict):
        return found
    if (set(found) == {"exercise", "answers"} and isinstance(found["exercise"], str)
            and isinstance(found["answers"], dict)):
        return found
    return None


def _ended(ended: dict | None, names: list[str]) -> str:
    """The note on how the run ended, in the grader's words ("" when it ran to the end).

    Only the runner writes these records; even so, only ints and known names are read."""
    if ended is None:
        return ("stopped: the run ended before the notebook's last cell (the grader's runner "
                "in the sandbox was killed); the answers read before count")
    how = ended.get("how")
    if how == "done":
        return ""
    cell, of, exercise = (_integer(ended.get("cell")), _integer(ended.get("of")),
                          ended.get("exercise"))
    exercise = exercise if exercise in names else None
    if cell is None and exercise is None:
        place = "before the notebook's first cell"
    elif exercise is None:
        place = f"in cell {cell} of {of}"
    elif cell is None:
        place = f"at the end, while the grader read {exercise}'s answers"
    else:
        place = f"after cell {cell} of {of}, while the grader read {exercise}'s answers"
    if how == "failed":
        return f"stopped: the grader's runner failed {place}; the answers read before count"
    if how == "stopped":
        return (f"stopped: the kernel was stopped by a signal (SIGSTOP) {place} and did not "
                f"answer within the cell's time limit; the answers read before count")
    status = _integer(ended.get("status"))
    if status is not None and status < 0:
        try:
            cause = f" (killed by {signal.Signals(-status).name})"
        except ValueError:
            cause = f" (killed by signal {-status})"
    else:
        cause = "" if status is None else f" (exit status {status})"
    return f"stopped: the kernel died {place}{cause}; the answers read before count"


def _integer(value: object) -> int | None:
    return value if type(value) is int else None


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    drive(Path(sys.argv[1]), sys.argv[4:], int(sys.argv[2]), int(sys.argv[3]))
