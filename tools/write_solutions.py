"""Write notebooks/14-solutions.ipynb, every exercise answered, and run it: ``make notebooks``.

Each cell comes from ``ledgerlab.course.exercises``, the worked answers from
``teacher/solutions.py``: a maintainer's tool, since only a checkout has that file
(tests/course/test_grading.py fails while the committed notebook is not what this makes).

    python tools/write_solutions.py                 # notebooks/14-solutions.ipynb
    python tools/write_solutions.py OTHER.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from run_notebooks import ROOT, run

from ledgerlab.course import syllabus
from ledgerlab.course.exercises import EXERCISES, OPTIONAL
from ledgerlab.course.grading import editions

NOTEBOOKS = ROOT / "notebooks"

SOLUTIONS = syllabus.SOLUTIONS
SOLUTIONS_HEAD = f"""# {SOLUTIONS.heading}

**What you'll learn**

- one worked answer for every exercise of {syllabus.EXERCISES.link()}, with its check passing
- one for the optional exercise of {syllabus.lesson(2).link()}: the whole-turn rule, written
  again and checked against `select`

**Before you start**

- Try the exercises first: the checks tell you what is wrong in bytes and turns.

**Time:** about {SOLUTIONS.minutes} minutes to read; each answer's check explains why it is right.

This notebook is generated from `teacher/solutions.py`, the one place each answer is written
(`python tools/write_solutions.py` rebuilds it)."""

SOLUTIONS_RECAP = f"""## Recap

- Measure, don't estimate: `request_bytes` and `byte_breakdown` give the exact bytes of a request
  and of each part of it (exercises 1, 2, 4 and 5).
- A prediction about `select` follows from two facts: it keeps a contiguous suffix of whole turns,
  and it fails only when the mandatory input alone is over budget (exercises 1 and 2).
- Count in the unit the limit is in: UTF-16 units for Java's `length()`, UTF-8 bytes of the body
  as the sending client serializes it for the budget (exercises 3 to 5).
- What a journal does with a crash's leftovers is found by opening a real one (exercise 6).
- A token window holds the request and the reply's reserve, counted with its own tokenizer
  (exercise 7).
- Pinned facts are paid first and their bytes do not depend on the turns kept, so a request is
  the mandatory input + the facts + the kept turns (exercise 8).
- A tool result must answer, by id, a call of the assistant message its run follows, and every
  call must be answered there: one pass over the messages finds both kinds of orphan
  (exercise 9).
- The evidence and a summary are paid before the turns, and a summary is sent only while every
  turn it covers is dropped: the smallest budget for both and the newest turn is the request
  that holds the three, measured whole (exercise 10).
- A turn's reasoning item travels with it: the smallest budget that keeps the turn is the request
  that holds it whole, in the dialect the item belongs to (exercise 11).
- The cache-stable rule needs each call's Selection passed to the next as `previous=`; billed by
  the provider's rule, its calls read the whole of the call before but at each cut (exercise 12).
- Walking back from the newest turn and stopping at the first that does not fit keeps the same
  turns as dropping the oldest until the request fits: the two ways `select` and
  `select_reference` are written (02's optional exercise).

---

{syllabus.navigation(SOLUTIONS.number)}"""



def cell(kind: str, source: str, cell_id: str):
    """A cell with a stable id: the generated notebook's diffs stay small."""
    return (nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell)(
        source, id=cell_id)


def solutions_notebook():
    """The solutions notebook, unexecuted: every cell comes from ``ledgerlab.course.exercises``."""
    answers = [f"q{e.number}.check({', '.join(e.answers)})" for e in EXERCISES]
    cells = [
        cell("markdown", SOLUTIONS_HEAD, "solutions-head"),
        cell("code", "from ledgerlab import (Journal, Turn, byte_breakdown, request_bytes, "
                     "request_tokens, select,\n"
                     "                       simulate_bill)\n"
                     "from ledgerlab.course import fixtures\n"
                     "from ledgerlab.course.exercises import (CACHE_BUDGET, CACHE_LOW_WATER,\n"
                     "                                        CONVERSATION, EVIDENCE, EXERCISE_FACTS,\n"
                     "                                        GROW_BUDGET, HISTORY, MEMORY, PINNED,\n"
                     "                                        QUESTION, REASONED, SUMMARY, SYSTEM,\n"
                     "                                        WINDOW_RESERVE, grown_question,\n"
                     "                                        torn_journal, q1, q2, q3, q4, q5, q6,\n"
                     "                                        q7, q8, q9, q10, q11, q12, exercise02)",
             "solutions-imports"),
    ]
    for exercise in EXERCISES:
        cells.append(cell("markdown", f"## Exercise {exercise.number}: {exercise.title}",
                          f"q{exercise.number}-title"))
        cells.append(cell("code", editions.solution_code(exercise), f"q{exercise.number}-solution"))
    cells.append(cell("markdown", "## Every check at once", "all-title"))
    cells.append(cell("code", "results = [" + ",\n           ".join(answers) + "]\n"
                              "[bool(result) for result in results]", "all-checks"))
    for number, optional in OPTIONAL.items():  # a lesson's, graded nowhere: after 13's tally
        for exercise in optional:
            cells.append(cell("markdown", f"## The optional exercise of "
                                          f"{syllabus.lesson(number).link()}: {exercise.title}",
                              f"{exercise.name}-title"))
            cells.append(cell("code", editions.solution_code(exercise),
                              f"{exercise.name}-solution"))
    cells.append(cell("markdown", SOLUTIONS_RECAP, "recap"))
    notebook = nbformat.v4.new_notebook(cells=cells)
    exercises = nbformat.read(NOTEBOOKS / editions.EXERCISES_NOTEBOOK, as_version=4)
    notebook.metadata.update(exercises.metadata)
    return notebook


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, nargs="?",
                        default=NOTEBOOKS / editions.SOLUTIONS_NOTEBOOK)
    args = parser.parse_args(argv)
    nbformat.write(solutions_notebook(), args.path)
    run(args.path)  # executed where it lives, as every course notebook is
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
