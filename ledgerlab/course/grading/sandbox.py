"""Outside the sandbox: run one submitted notebook in it and take back only its answers.

The grader never trusts what runs in a student's kernel: code there can print anything,
patch anything and start processes. So the kernel is asked for answers, not verdicts:
each exercise's answer variables as plain data (ints, floats, strings, lists, a ``Turn``
as its two texts, a function as its outputs on the grading inputs). They leave the
sandbox through a pipe that only the runner holds (``runner``, the one module of the
grader's that runs inside), and the grader judges them in its own
process with the same checks a learner's ``check()`` uses (``judge``; the format is
``answers``). A forged answer is only an answer: it earns what it earns.

The sandbox is bubblewrap (``bwrap``, Debian's ``bubblewrap``, what Flatpak uses): a
read-only view of the system, the Python and the installed package; a private writable
home and /tmp of limited size; no network (only its own loopback, for the kernel); its
own PID namespace, so every process a submission starts dies with it; an unprivileged
user without capabilities; and limits on memory, CPU time and file size per process, which
the runner sets on itself first (``runner.set_limits``). A submission as a whole is capped
too, by this launcher's watch (``_over_cap``): a run whose processes and threads reach
``runner.PROCESSES``, or together hold more than TOTAL_MEMORY_BYTES, is stopped. The
kernel enforces the process cap as well (RLIMIT_NPROC in the sandbox's own user
namespace), except for a grader running as root, whose processes Linux never holds to it.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .runner import ANSWER_BYTES, PROCESSES

CELL_TIMEOUT = 30  # seconds per cell, the answer cells included
NOTEBOOK_TIMEOUT = 600  # seconds per submission, kernel start included
# What a submission's processes hold together (proportional set size: a page two processes
# share counts half in each), read every WATCH_SECONDS; each process may have 3 GiB.
TOTAL_MEMORY_BYTES = 4 * 1024**3
WATCH_SECONDS = 0.25
TMPFS_BYTES = 256 * 1024**2  # its home and /tmp together hold no more than this each
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
    # exercise name -> why its answers cell handed back none, in the grader's words
    unread: dict[str, str] = field(default_factory=dict)


def check_bwrap() -> None:
    """Raise SandboxUnavailable unless bwrap can build this sandbox here."""
    if shutil.which("bwrap") is None:
        raise SandboxUnavailable("bwrap is not installed (Debian: apt-get install bubblewrap)")
    # Not /bin/true: the sandbox must hold a Python that imports this package.
    probe = subprocess.run([*_bwrap(Path(tempfile.gettempdir())), PYTHON, "-c",
                            "import ledgerlab.course.grading.runner"], capture_output=True,
                           text=True, env=BWRAP_ENV)
    if probe.returncode != 0:
        raise SandboxUnavailable(f"bwrap cannot build the sandbox here: "
                                 f"{probe.stderr.strip()[-300:] or probe.returncode}")


def _package() -> str:
    """The folder of the ledgerlab package this grader runs."""
    import ledgerlab

    return str(Path(ledgerlab.__file__).resolve().parent)


def _bwrap(work: Path) -> list[str]:
    """The bwrap command line: bind only what the kernel needs, read-only."""
    package = _package()
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
    # The runner and the kernel import the package the grader runs, the one bound above, first:
    # else the venv's own finder chooses (an editable install of another checkout is not bound,
    # and a wheel in site-packages may be another version). Its folder holds nothing else there.
    command += ["--ro-bind", str(work), "/submission",
                "--clearenv", "--setenv", "PYTHONPATH", str(Path(package).parent),
                "--setenv", "HOME", HOME, "--setenv", "LANG", "C.UTF-8",
                "--setenv", "PATH", f"{Path(PYTHON).parent}:/usr/bin:/bin",
                "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "MPLBACKEND", "Agg",
                "--chdir", HOME, "--remount-ro", "/dev", "--remount-ro", "/"]
    return command


def run(notebook: bytes, names: list[str], *, cell_timeout: int, notebook_timeout: int,
        sandboxed: bool = True) -> Outcome:
    """Run ``notebook`` (its bytes) and collect the plain answers of ``names``."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ledgerlab-grade-") as tmp:
        work = Path(tmp)
        (work / "submission.ipynb").write_bytes(notebook)
        read, write = os.pipe()
        inner = [PYTHON, "-m", "ledgerlab.course.grading.runner",
                 "/submission/submission.ipynb" if sandboxed else str(work / "submission.ipynb"),
                 str(write), str(cell_timeout), "sandboxed" if sandboxed else "unsafe", *names]
        command = [*_bwrap(work), *inner] if sandboxed else inner
        # Outside the sandbox too, the runner and the kernel import the grader's package first.
        env = BWRAP_ENV if sandboxed else {
            **os.environ, "HOME": str(work), "PYTHONPATH": os.pathsep.join(filter(None, [
                str(Path(_package()).parent), os.environ.get("PYTHONPATH")]))}
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       pass_fds=(write,), env=env,
                                       cwd=work, start_new_session=True)
        finally:
            os.close(write)
        lines, problem = _read_answers(read, started + notebook_timeout,
                                       lambda: _over_cap(process.pid))
        if problem:
            _kill(process)
        process.wait()
        _kill(process)  # the unsafe mode's strays; in the sandbox, the PID namespace took them
    answers, ended, unread = {}, None, {}
    for line in lines:
        record = _parse(line)
        if record is None:
            continue
        if "ended" in record:
            ended = record["ended"]
        elif "unread" in record:
            if record["unread"].get("exercise") in names:
                unread[record["unread"]["exercise"]] = _unread(record["unread"], cell_timeout)
        elif record["exercise"] in names:
            # The latest: read after the cell that last assigns them, then again at the end.
            answers[record["exercise"]] = record["answers"]
    return Outcome(answers, problem or _ended(ended, names), time.monotonic() - started,
                   {name: why for name, why in unread.items() if name not in answers})


def _read_answers(fd: int, deadline: float, over_cap) -> tuple[list[bytes], str]:
    """Lines from the runner's pipe until it closes, at most ANSWER_BYTES each; or, with
    the lines read so far, why the run was stopped: its time limit, or ``over_cap()``,
    asked every WATCH_SECONDS."""
    buffer, lines, watched = b"", [], 0.0
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while True:
            now = time.monotonic()
            if now >= deadline:
                return lines, "stopped: the notebook ran past its time limit"
            if now - watched >= WATCH_SECONDS:
                watched, problem = now, over_cap()
                if problem:
                    return lines, problem
            if not select.select([pipe], [], [], min(deadline - now, WATCH_SECONDS))[0]:
                continue
            chunk = pipe.read(65536)
            if not chunk:
                return lines, ""
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            lines += complete
            if len(buffer) > ANSWER_BYTES or len(lines) > 1000:
                return lines, "stopped: more answers than any notebook gives"


def _over_cap(root: int) -> str:
    """Why the processes under ``root`` are over a cap of the submission as a whole, or "":
    PROCESSES processes and threads (in the sandbox, the kernel refuses one more; a fork
    loop would spin at the cap until the notebook's time limit), or TOTAL_MEMORY_BYTES."""
    tree = _processes_under(root)
    if sum(tree.values()) >= PROCESSES:
        return (f"stopped: the notebook's processes and threads reached {PROCESSES}, the "
                f"most a submission may have; the answers read before count")
    if sum(map(_proportional_bytes, tree)) > TOTAL_MEMORY_BYTES:
        return (f"stopped: the notebook's processes held more than "
                f"{TOTAL_MEMORY_BYTES / 1024**3:.1f} GiB of memory together, the most a "
                f"submission may; the answers read before count")
    return ""


def _processes_under(root: int) -> dict[int, int]:
    """{pid: number of threads} of ``root`` and every process under it, from /proc."""
    children, threads = {}, {}
    try:
        entries = list(os.scandir("/proc"))
    except OSError:  # not Linux: the unsafe mode on macOS has no such watch
        entries = []
    for entry in entries:
        if entry.name.isdigit():
            try:  # after the ")" of the command's name: state, ppid, ... num_threads (18th)
                fields = Path(entry.path, "stat").read_bytes().rpartition(b")")[2].split()
            except OSError:  # ended meanwhile
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            threads[int(entry.name)] = int(fields[17])
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in threads and pid not in found:
            found[pid] = threads[pid]
            todo += children.get(pid, [])
    return found


def _proportional_bytes(pid: int) -> int:
    """The process's proportional set size (its own pages, and its share of shared ones)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):  # ended meanwhile
        pass
    return 0


def _parse(line: bytes) -> dict | None:
    """One record of the pipe: an exercise's answers, or how the run ended; else None."""
    try:
        found = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(found, dict):
        return None
    if set(found) in ({"ended"}, {"unread"}) and isinstance(next(iter(found.values())), dict):
        return found
    if (set(found) == {"exercise", "answers"} and isinstance(found["exercise"], str)
            and isinstance(found["answers"], dict)):
        return found
    return None


def _unread(record: dict, cell_timeout: int) -> str:
    """Why an exercise's answers cell handed back none (``runner._unread``'s record), in the
    grader's words. Only known reasons are read, and an error's name only as a name."""
    why = record.get("why")
    if why == "timeout":
        return (f"reading them ran past the cell's time limit ({cell_timeout} s): an answer "
                f"that is a function must return on each of the grader's inputs")
    if why == "raised":
        error = re.sub(r"\W", "", str(record.get("error")))[:60] or "an error"
        return (f"the grader's cell that reads them stopped with {error}, raised by the "
                f"notebook's code or by something it changed that the cell uses")
    if why == "large":
        return f"they are larger than the {ANSWER_BYTES // 1024} KiB the grader reads"
    return ("the grader's cell that reads them printed none: the notebook changed how it "
            "prints")


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

