"""Inside the sandbox: the grader's runner, which runs one submitted notebook and hands
back its answers (``python -m ledgerlab.course.grading.runner``, started by ``sandbox``).

Its first act, before anything of the student's runs, is to set the limits that every
process it starts inherits (``set_limits``): memory and CPU time per process, file size,
no core files and, in the sandbox, the number of processes and threads. Then it runs the student's cells in a kernel and asks that kernel for each
exercise's answers (``drive``), which go to the grader through a pipe only this process
holds. It trusts nothing of the kernel's and imports nothing of the launcher's side.
"""

from __future__ import annotations

import ast
import ctypes
import json
import os
import resource
import sys
import time
from pathlib import Path

from ..exercises import GRADED
from .answers import MARK, answers_cell

MEMORY_BYTES = 3 * 1024**3  # address space per process: a clean MemoryError, not a dead host
CPU_SECONDS = 300  # per process
FILE_BYTES = 64 * 1024**2  # the largest file a submission may write
# Processes and threads of the sandbox's user together (RLIMIT_NPROC counts both; a kernel
# and this runner used 20 grading the solutions). Linux (5.14 and later) counts them per
# user namespace, and each sandbox is one of its own: one submission's processes never count
# against another's. Linux never holds root's processes to it: see sandbox._over_cap.
PROCESSES = 128
ANSWER_BYTES = 256 * 1024  # one exercise's answers, as JSON


def set_limits(processes: bool) -> None:
    """This process's limits, inherited by the kernel and all it starts. Set here, not by
    the launcher in the child it forks (``preexec_fn``, unsafe in a process with threads:
    the grader grades several submissions at once, each from a thread of its own).
    ``processes``: cap those too, which only the sandbox can (outside it, RLIMIT_NPROC
    counts every process of the teacher's)."""
    limits = [(resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
              (resource.RLIMIT_FSIZE, FILE_BYTES), (resource.RLIMIT_CORE, 0)]
    if processes:
        limits.append((resource.RLIMIT_NPROC, PROCESSES))
    for limit, value in limits:
        resource.setrlimit(limit, (value, value))


def drive(notebook: Path, names: list[str], answers_fd: int, cell_timeout: int) -> None:
    """Run the student's cells, asking the kernel for each exercise's answers after the last
    cell that assigns them and again at the end; then say how the run ended.

    Only the answers cells' outputs are kept (a flood of output elsewhere costs nothing).
    Each exercise's answers go to ``answers_fd`` as soon as its cell ends, so a kernel that
    dies later loses none of them, and an answers cell that hands back none says why
    (``_unread``); the last record ``ended`` says how the run ended (done, the kernel died,
    or it was stopped by a signal). The grader reads the latest answers.
    """
    _not_dumpable()  # the kernel runs as the same user: keep it out of /proc/<this>/fd
    import nbformat
    from nbclient import NotebookClient
    from jupyter_client.channels import HBChannel
    from nbclient.exceptions import DeadKernelError
    from traitlets.config import Config

    HBChannel.stop = _stop_heartbeat  # this process runs one kernel, and never reuses it
    os.environ["LEDGERLAB_PROGRESS"] = "off"  # a submission's checks are no learner's progress

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
        current["started"] = time.monotonic()

    def executed(cell, cell_index, execute_reply=None, **_):
        stopped = _stopped(kernel.get("process"))  # a cell that ran out its time in a stopped kernel
        if cell_index in asked:
            # Only this exercise's line: a thread cannot slip another exercise's into it.
            prefix = f'{MARK}{{"exercise": {json.dumps(asked[cell_index])}, '
            text = "".join(output.get("text", "") for output in cell.outputs
                           if output.get("output_type") == "stream")
            line = next((line for line in text.splitlines() if line.startswith(prefix)), "")
            if line and len(line) <= ANSWER_BYTES:
                put(line[len(MARK):])
            elif not stopped:  # why this cell handed back no answers, for the student's feedback
                ran = time.monotonic() - current["started"]
                put(json.dumps({"unread": _unread(asked[cell_index], line, ran >= cell_timeout,
                                                  execute_reply)}))
        if stopped:
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


def _unread(name: str, line: str, timed_out: bool, reply) -> dict:
    """The record of an answers cell that handed back no answers: ran past its time limit,
    raised (an error's name, the student's to choose, so the grader cleans it), printed a
    line too large, or printed none."""
    content = reply.get("content", {}) if isinstance(reply, dict) else {}
    if timed_out:
        return {"exercise": name, "why": "timeout"}
    if line:
        return {"exercise": name, "why": "large"}
    if content.get("status") == "error":
        return {"exercise": name, "why": "raised", "error": str(content.get("ename"))[:60]}
    return {"exercise": name, "why": "silent"}


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
    bound = [names_bound(cell) for cell in cells]
    last, after = len(cells) - 1, {}
    for name in names:
        answers = set(GRADED[name].answers)
        found = [position for position, names_here in enumerate(bound)
                 if "*" in names_here or answers & names_here]
        if found and found[-1] < last:
            after.setdefault(found[-1], []).append(name)
    return after


def names_bound(cell) -> frozenset[str]:
    """The names a notebook's cell binds, read from its code with IPython's magics
    translated ("*" for ``from x import *``); none for a markdown cell or one that cannot
    run."""
    from IPython.core.inputtransformer2 import TransformerManager

    if cell.cell_type != "code":
        return frozenset()
    try:
        tree = ast.parse(TransformerManager().transform_cell(cell.source))
    except (SyntaxError, ValueError, RecursionError):  # a cell that cannot run binds nothing
        return frozenset()
    return frozenset(_names_bound(tree))


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


if __name__ == "__main__":
    # python -m ledgerlab.course.grading.runner NOTEBOOK ANSWERS_FD CELL_TIMEOUT SANDBOXED NAME...
    set_limits(processes=sys.argv[4] == "sandboxed")  # first, before the notebook is read
    drive(Path(sys.argv[1]), sys.argv[5:], int(sys.argv[2]), int(sys.argv[3]))
