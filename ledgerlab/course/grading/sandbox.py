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

from .answers import MARK, answers_cell

MEMORY_BYTES = 3 * 1024**3  # address space per process: a clean MemoryError, not a dead host
CPU_SECONDS = 300  # per process
FILE_BYTES = 64 * 1024**2  # the largest file a submission may write
TMPFS_BYTES = 256 * 1024**2  # its home and /tmp together hold no more than this each
ANSWER_BYTES = 256 * 1024  # one exercise's answers, as JSON
HOME = "/home/student"


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot make namespaces here (macOS, no user namespaces)."""


@dataclass(frozen=True)
class Outcome:
    """What came back from one run: each exercise's plain answers, and why some did not."""

    answers: dict[str, dict]  # exercise name -> {variable: plain value}
    problem: str  # "" when the run ended normally
    seconds: float


# --- Inside the sandbox: run the notebook, then one answers cell per exercise --------------

def drive(notebook: Path, names: list[str], answers_fd: int, cell_timeout: int) -> None:
    """Run the student's cells, then ask the kernel for each exercise's answers.

    Only the answers cells' outputs are kept (a flood of output elsewhere costs nothing);
    each exercise's answers go to ``answers_fd`` as soon as its cell ends.
    """
    _not_dumpable()  # the kernel runs as the same user: keep it out of /proc/<this>/fd
    import nbformat
    from nbclient import NotebookClient
    from traitlets.config import Config

    nb = nbformat.read(notebook, as_version=4)
    nb.cells = [cell for cell in nb.cells if cell.cell_type != "raw"]
    first = len(nb.cells)
    nb.cells += [nbformat.v4.new_code_cell(answers_cell(name)) for name in names]
    out = os.fdopen(answers_fd, "w", encoding="utf-8")

    class AnswersOnly(NotebookClient):
        def output(self, outs, msg, display_id, cell_index):
            return super().output(outs, msg, display_id, cell_index) if cell_index >= first \
                else None

    def report(cell, cell_index, **_):
        if cell_index < first:
            return
        text = "".join(output.get("text", "") for output in cell.outputs
                       if output.get("output_type") == "stream")
        for line in text.splitlines():
            if line.startswith(MARK) and len(line) <= ANSWER_BYTES:
                out.write(line[len(MARK):] + "\n")
                out.flush()

    stopped = {"ename": "CellTimeoutError", "evalue": f"stopped after {cell_timeout} s",
               "traceback": []}
    # The standard json packer on both ends, even where orjson is installed: with orjson,
    # a 1 GiB print outran the cell's time limit and the kernel died, so the answers after
    # it were lost (tests/course/test_grading_hostile.py, "flood").
    json_only = ["--Session.packer=json", "--Session.unpacker=json"]
    AnswersOnly(nb, timeout=cell_timeout, interrupt_on_timeout=True, error_on_timeout=stopped,
                allow_errors=True, kernel_name="python3", shutdown_kernel="immediate",
                config=Config(Session={"packer": "json", "unpacker": "json"}),
                extra_arguments=json_only,
                # Where the runner was started: HOME in the sandbox, the temp folder without it.
                resources={"metadata": {"path": os.getcwd()}}, on_cell_executed=report).execute()


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
    probe = subprocess.run([*_bwrap(Path(tempfile.gettempdir())), sys.executable, "-c",
                            "import ledgerlab.course.grading.sandbox"], capture_output=True, text=True)
    if probe.returncode != 0:
        raise SandboxUnavailable(f"bwrap cannot build the sandbox here: "
                                 f"{probe.stderr.strip()[-300:] or probe.returncode}")


def _bwrap(work: Path) -> list[str]:
    """The bwrap command line: bind only what the kernel needs, read-only."""
    import ledgerlab

    package = str(Path(ledgerlab.__file__).resolve().parent)
    command = ["bwrap", "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
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
                "--setenv", "PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin",
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
        inner = [sys.executable, "-m", "ledgerlab.course.grading.sandbox",
                 "/submission/submission.ipynb" if sandboxed else str(work / "submission.ipynb"),
                 str(write), str(cell_timeout), *names]
        command = [*_bwrap(work), *inner] if sandboxed else inner
        env = None if sandboxed else {**os.environ, "HOME": str(work)}
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
    answers = {}
    for line in lines:
        found = _parse(line)
        if found is not None and found[0] in names and found[0] not in answers:
            answers[found[0]] = found[1]
    return Outcome(answers, problem, time.monotonic() - started)


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


def _parse(line: bytes) -> tuple[str, dict] | None:
    try:
        found = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if (not isinstance(found, dict) or not isinstance(found.get("exercise"), str)
            or not isinstance(found.get("answers"), dict)):
        return None
    return found["exercise"], found["answers"]


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    drive(Path(sys.argv[1]), sys.argv[4:], int(sys.argv[2]), int(sys.argv[3]))
