"""A submission is capped as a whole, not only per process: a fork loop stops at the
sandbox's process cap and a three-process memory hog at the total memory cap, each a 0 with
the reason, while a good notebook graded beside them at the same time gets its full score."""

import nbformat
import pytest

from ledgerlab.course.exercises import EXERCISES
from ledgerlab.course.grading import judge, runner, sandbox

from sandbox_required import sandbox_or_skip

SANDBOXED = sandbox_or_skip()
CELL_TIMEOUT = 20  # seconds: as tests/course/test_grading.py
# The test's total memory cap: the same check as the real one, on a smaller figure, so the
# hog needs 1.8 GiB of this machine's memory, not more than the real 4 GiB.
TOTAL_MEMORY = 1024**3
IMPORTS = ("from ledgerlab import (Journal, Turn, byte_breakdown, request_bytes, "
           "request_tokens, select, simulate_bill)\n"
           "from ledgerlab.course import fixtures\n"  # as 11's import cell: exercise 11 uses it
           "from ledgerlab.course.exercises import *")
SOLVED = [exercise.solution_code for exercise in EXERCISES]
# A fork loop that keeps every child: one more process each turn until something stops it.
# Not an exponential fork bomb (every child forking too): where the grader runs as root, as
# CI does, the kernel never holds the sandbox to RLIMIT_NPROC, and a bomb outruns the
# quarter-second watch and floods the whole machine (seen here: a load average of 8,000).
# docs/grading.md says so, and asks for an ordinary user, where the kernel stops both.
FORK_LOOP = ("import os, time\n"
             "while True:\n"
             "    try:\n"
             "        if os.fork() == 0:\n"
             "            time.sleep(600)\n"
             "            os._exit(0)\n"
             "    except OSError:\n"
             "        time.sleep(0.01)")
# Three processes of 600 MiB each: each far under the 3 GiB a process may have, 1.8 GiB
# together. Each page is written, so it is really held.
MEMORY_HOG = ("import os, time\n"
              "for _ in range(2):\n"
              "    if os.fork() == 0:\n"
              "        break\n"
              "held = b'x' * (600 * 1024**2)\n"
              "time.sleep(600)")


def notebook(*sources):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)
                                           for source in sources])


@pytest.mark.slow  # runs three kernels in the sandbox
def test_a_fork_loop_and_a_memory_hog_earn_0_and_a_good_notebook_beside_them_full_marks(
        tmp_path, monkeypatch):
    assert SANDBOXED
    monkeypatch.setattr(sandbox, "TOTAL_MEMORY_BYTES", TOTAL_MEMORY)
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    # Each hostile cell comes before the right answers: without the caps, they would earn them.
    for name, cells in (("good", [IMPORTS, *SOLVED]), ("forks", [IMPORTS, FORK_LOOP, *SOLVED]),
                        ("hog", [IMPORTS, MEMORY_HOG, *SOLVED])):
        nbformat.write(notebook(*cells), submissions / f"{name}.ipynb")
    # All three at once: the process count is each sandbox's own, not shared.
    results = {result.submission: result for result in judge.grade(
        submissions, tmp_path / "grades.csv", cell_timeout=CELL_TIMEOUT, jobs=3)}
    points = {f"q{exercise.number}": 1 for exercise in EXERCISES}
    scores = {name: sum(result.score(points).values()) for name, result in results.items()}
    assert scores == {"good.ipynb": len(EXERCISES), "forks.ipynb": 0, "hog.ipynb": 0}, results
    assert results["good.ipynb"].note == ""
    assert results["forks.ipynb"].note.startswith(
        f"stopped: the notebook's processes and threads reached {runner.PROCESSES}")
    assert results["hog.ipynb"].note.startswith(
        "stopped: the notebook's processes held more than 1.0 GiB of memory together")
    assert all(path.exists() for path in (tmp_path / "grades.csv", tmp_path / "grades-summary.md",
                                          tmp_path / "grades-written.md"))
