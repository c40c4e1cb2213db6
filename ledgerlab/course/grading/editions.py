"""The graded edition's notebooks: the student's copy, the teacher's, and 11-solutions.

The answer cells are named by each checker's parameters (``ledgerlab.course.exercises``)
and the worked solutions are the teacher's ``teacher/solutions.py`` (never in the
package; ``paths`` says where it is, and a build without it says so). From them this
module makes the student edition (no solution code, ``solution()`` explained), the
filled edition (every answer cell solved), the generated ``11-solutions`` notebook,
and the assignment folder that ``python -m ledgerlab.course.grading assignment`` writes.
The student's notebooks, like every learner's copy (``ledgerlab.course.learner``), have
no outputs: nothing shows an answer before its cell is run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import nbformat

from .. import paths
from ..exercises import EXERCISES, GRADED
from ..learner import clean

EXERCISES_NOTEBOOK = "10-exercises.ipynb"
SOLUTIONS_NOTEBOOK = "11-solutions.ipynb"
CELL_TIMEOUT = 30  # seconds per cell, the answer cells included
NOTEBOOK_TIMEOUT = 600  # seconds per submission, kernel start included


# --- The notebooks --------------------------------------------------------------------

def _edition(cell) -> str | None:
    return cell.metadata.get("ledgerlab", {}).get("edition")


def _answer(cell) -> str | None:
    return cell.metadata.get("ledgerlab", {}).get("answer")


def _without_solution_links(text: str) -> str:
    text = re.sub(r" · Next: \[[^\]]*\]\(" + re.escape(SOLUTIONS_NOTEBOOK) + r"\)", "", text)
    return "\n".join(line for line in text.split("\n") if SOLUTIONS_NOTEBOOK not in line)


def _without_solution_calls(source: str) -> str:
    """Drop the commented-out ``name.solution()`` lines a self-paced learner may uncomment."""
    return "\n".join(line for line in source.split("\n")
                     if not re.fullmatch(r"# [\w.]+\.solution\(\)", line.strip()))


def _clear(cell) -> None:
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None


GRADED_NOTE = (
    "**Graded edition.** Write your answers in place of each `...` and keep the answer "
    "variables' names: the grader reads them. `check()` and `hint()` work as you go; "
    "`solution()` is hidden until your teacher shares the solutions. Save the notebook and "
    "hand it in as it is; the grader runs it from the top, and a cell that runs longer than "
    "its time limit is stopped."
)


def student_edition(notebook):
    """The exercises as a student gets them: no solution code, ``solution()`` explained,
    no outputs."""
    notebook = clean(notebook)  # a deep copy, without outputs or widget state
    cells = []
    for cell in notebook.cells:
        if _edition(cell) == "self-paced":
            continue
        if cell.cell_type == "markdown":
            cell.source = _without_solution_links(cell.source)
        else:
            cell.source = _without_solution_calls(cell.source)
        _clear(cell)
        cells.append(cell)
    first_code = next(i for i, cell in enumerate(cells) if cell.cell_type == "code")
    cells.insert(1, _cell("markdown", GRADED_NOTE, "graded-note"))
    cells.insert(first_code + 2, _cell(
        "code", "from ledgerlab.course.feedback import hide_solutions\n\n"
                "hide_solutions()   # the graded edition: solution() explains instead of answering",
        "graded-hide"))
    notebook.cells = cells
    return notebook


def filled_edition(notebook):
    """The exercises with every answer cell replaced by its solution: the teacher's copy."""
    notebook = nbformat.from_dict(json.loads(json.dumps(notebook)))
    for cell in notebook.cells:
        if _answer(cell):
            cell.source = _solution_code(GRADED[_answer(cell)])
        _clear(cell)
    return notebook


def _solution_code(exercise) -> str:
    """The exercise's worked solution; CheckoutMissing where the teacher's file is not there."""
    if not exercise.solution_code:
        raise paths.CheckoutMissing(f"no worked solution for {exercise.name}: the solutions "
                                    f"are written from teacher/solutions.py, which a clone of "
                                    f"the ledgerlab repository has and an install does not")
    return exercise.solution_code


def _cell(kind: str, source: str, cell_id: str):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    cell.id = cell_id  # stable ids keep the generated notebook's diffs small
    return cell


SOLUTIONS_HEAD = """# 11 · Solutions

**What you'll learn**

- one worked answer for every exercise of [10 · Exercises](10-exercises.ipynb), with its check passing

**Before you start**

- Try the exercises first: the checks tell you what is wrong in bytes and turns.

**Time:** about 10 minutes to read; each answer's check explains why it is right.

This notebook is generated from `teacher/solutions.py`, the one place each answer is written
(`python -m ledgerlab.course.grading solutions notebooks/11-solutions.ipynb` rebuilds it)."""

SOLUTIONS_RECAP = """## Recap

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

---

Previous: [10 · Exercises](10-exercises.ipynb) · [Contents](00-contents.ipynb)"""


def solutions_notebook():
    """The solutions notebook, unexecuted: every cell comes from ``ledgerlab.course.exercises``."""
    answers = [f"q{e.number}.check({', '.join(e.answers)})" for e in EXERCISES]
    cells = [
        _cell("markdown", SOLUTIONS_HEAD, "solutions-head"),
        _cell("code", "from ledgerlab import Journal, Turn, byte_breakdown, request_bytes, "
                      "request_tokens, select\n"
                      "from ledgerlab.course import fixtures\n"
                      "from ledgerlab.course.exercises import (EXERCISE_FACTS, HISTORY, QUESTION,\n"
                      "                                        SYSTEM, grown_question, torn_journal,\n"
                      "                                        q1, q2, q3, q4, q5, q6, q7, q8, q9)",
              "solutions-imports"),
    ]
    for exercise in EXERCISES:
        cells.append(_cell("markdown", f"## Exercise {exercise.number}: {exercise.title}",
                           f"q{exercise.number}-title"))
        cells.append(_cell("code", _solution_code(exercise), f"q{exercise.number}-solution"))
    cells.append(_cell("markdown", "## Every check at once", "all-title"))
    cells.append(_cell("code", "results = [" + ",\n           ".join(answers) + "]\n"
                               "[bool(result) for result in results]", "all-checks"))
    cells.append(_cell("markdown", SOLUTIONS_RECAP, "recap"))
    notebook = nbformat.v4.new_notebook(cells=cells)
    exercises = nbformat.read(paths.notebooks() / EXERCISES_NOTEBOOK, as_version=4)
    notebook.metadata.update(exercises.metadata)
    return notebook


def execute(notebook, folder: Path, cell_timeout: int = CELL_TIMEOUT):
    """Run ``notebook`` in a fresh kernel with ``folder`` as its working directory."""
    from nbclient import NotebookClient

    NotebookClient(notebook, timeout=cell_timeout, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(folder)}}).execute()
    notebook.metadata.pop("widgets", None)
    return notebook


def write_solutions(path: Path) -> None:
    """Generate the solutions notebook, execute it where it lives, and write it."""
    path = Path(path)
    notebook = execute(solutions_notebook(), path.parent)
    nbformat.write(notebook, path)


BUILD_MARK = ".ledgerlab-assignment"  # marks a folder this builder wrote, and may rewrite


class AssignmentError(Exception):
    """The assignment cannot be built where asked; nothing was changed."""


def build_assignment(out: Path, notebooks: Path | None = None) -> Path:
    """``student/`` (the course without solutions), ``solutions/``, ``autograder/``, from
    ``notebooks`` (the checkout's, by default)."""
    out, notebooks = Path(out), paths.notebooks() if notebooks is None else Path(notebooks)
    parts = ("student", "solutions", "autograder")
    if out.exists() and not (out.is_dir() and (out / BUILD_MARK).is_file()
                             and set(os.listdir(out)) <= {*parts, BUILD_MARK}):
        if not out.is_dir() or os.listdir(out):
            raise AssignmentError(f"{out} exists and is not an earlier assignment build: "
                                  f"choose a new or empty folder (nothing was changed)")
    for part in parts:
        shutil.rmtree(out / part, ignore_errors=True)
    student, solutions, autograder = (out / part for part in parts)
    for folder in (student, solutions, autograder):
        folder.mkdir(parents=True)
    (out / BUILD_MARK).write_text("written by python -m ledgerlab.course.grading assignment\n")
    exercises = nbformat.read(notebooks / EXERCISES_NOTEBOOK, as_version=4)
    for path in sorted(notebooks.glob("*.ipynb")):
        if path.name == SOLUTIONS_NOTEBOOK:
            continue
        if path.name == EXERCISES_NOTEBOOK:
            nbformat.write(student_edition(exercises), student / path.name)
            continue
        notebook = clean(nbformat.read(path, as_version=4))  # no answer shown before it runs
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                cell.source = _without_solution_links(cell.source)
            else:
                cell.source = _without_solution_calls(cell.source)
        nbformat.write(notebook, student / path.name)
    for extra in notebooks.glob("*.cfg"):
        shutil.copy(extra, student / extra.name)
    nbformat.write(filled_edition(exercises), solutions / EXERCISES_NOTEBOOK)
    shutil.copy(notebooks / SOLUTIONS_NOTEBOOK, solutions / SOLUTIONS_NOTEBOOK)
    manifest = {
        "notebook": EXERCISES_NOTEBOOK,
        "exercises": [{"name": name, "title": exercise.title, "answers": list(exercise.answers),
                       "points": 1} for name, exercise in GRADED.items()],
        "cell_timeout": CELL_TIMEOUT,
        "notebook_timeout": NOTEBOOK_TIMEOUT,
    }
    (autograder / "assignment.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return out
