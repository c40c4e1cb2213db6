"""The similarity report at a class's size (issue 45): seconds, peak memory and page size.

Each run is a child process of its own, so that its peak resident size
(``resource.getrusage``) is its own: it makes each student's notebook in turn, takes its
answer cells (``similarity.answer_cells``), as ``class_pages`` does, and writes the page
(``similarity_page``). Two classes:

- ``alike``: every submission holds the same answer cells and written answers (the class's
  one natural solution, or the teacher's handed round): one group of the whole class per
  exercise and question, the worst case for the pairs.
- ``mixed``: each student's own answers, but for copy rings of 2 to 6 students (one student
  in ten), who share every answer cell and written answer.

Run it by hand: ``python benchmarks/bench_similarity.py 1000 5000``. It prints one line a
run: students, class, seconds, peak RSS in MiB (the interpreter with the course imported
is in it: ``baseline`` is that alone), and the page's size in bytes.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

SOLVED = ("history = [Turn('a', 'b'), Turn('c', 'd' * 99)]\nbudget = {n}\npredicted_kept = 0\n"
          "for turn in history:\n    predicted_kept += len(turn.question) + {n}\n"
          "q{exercise}.check(history, budget, predicted_kept)")
WRITTEN = ("The request is built afresh from the ledger every time, so the model sees only "
           "what select chose to send; answer {n}.")


def notebook(student: int, exercises: list[str], shape: str) -> dict:
    """A submission's notebook (a dict as nbformat reads it) with every exercise answered."""
    if shape == "alike":
        own = 0
    else:  # one student in ten is in a ring of 2 to 6 who share one notebook
        ring = student // 10
        own = -(ring + 1) if student % 10 < 2 + ring % 5 else student + 1
    cells = [{"cell_type": "code", "source": SOLVED.format(n=own, exercise=name),
              "metadata": {"ledgerlab": {"answer": name}}, "outputs": []}
             for name in exercises]
    return {"cells": cells, "own": own}


def run(students: int, shape: str) -> dict:
    from ledgerlab.course.exercises import GRADED
    from ledgerlab.course.grading import similarity
    from ledgerlab.course.written import BY_ID

    start = time.process_time()
    cells, written = [], []
    for student in range(students):
        found = notebook(student, list(GRADED), shape)
        name = f"student-{student:05d}-with-a-longer-name.ipynb"
        cells.append((name, similarity.answer_cells(found)))
        written.append((name, {key: WRITTEN.format(n=found["own"]) for key in BY_ID}))
    page = similarity.similarity_page(cells, written)
    seconds = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"students": students, "class": shape, "seconds": round(seconds, 2),
            "peak MiB": round(peak, 1), "page bytes": len(page.encode("utf-8"))}


def baseline() -> dict:
    from ledgerlab.course.grading import similarity  # noqa: F401
    return {"baseline peak MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 5000])
    parser.add_argument("--one", nargs=2, metavar=("STUDENTS", "CLASS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run(int(args.one[0]), args.one[1]) if args.one[1] != "baseline"
                         else baseline()))
        return
    runs = [("0", "baseline")] + [(str(size), shape) for size in args.sizes
                                  for shape in ("mixed", "alike")]
    for students, shape in runs:
        done = subprocess.run([sys.executable, __file__, "--one", students, shape],
                              capture_output=True, text=True, check=True)
        print(done.stdout.strip(), flush=True)


if __name__ == "__main__":
    main()
