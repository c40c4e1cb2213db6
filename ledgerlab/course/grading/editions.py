"""The graded edition's notebooks: the student's copy and the teacher's.

The answer cells are named by each checker's parameters (``ledgerlab.course.exercises``)
and the worked solutions are the teacher's ``teacher/solutions.py`` (never in the
package; ``paths`` says where it is, and a build without it says so). From them this
module makes the student edition (no solution code, ``solution()`` explained), the
filled edition (every answer cell solved), and the assignment folder that
``python -m ledgerlab.course.grading assignment`` writes. The student's notebooks, like every learner's copy (``ledgerlab.course.learner``), have
no outputs: nothing shows an answer before its cell is run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import nbformat

from .. import paths, syllabus
from ..exercises import GRADED, SELF_PACED, Variant, variant
from ..learner import clean
from ..written import written_section
from . import atomic, roster
from .sandbox import CELL_TIMEOUT, NOTEBOOK_TIMEOUT

EXERCISES_NOTEBOOK = syllabus.EXERCISES.file  # 13-exercises.ipynb
SOLUTIONS_NOTEBOOK = syllabus.SOLUTIONS.file  # 14-solutions.ipynb


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


GRADED_NOTE = (
    "**Graded edition.** Write your answers in place of each `...` and keep the answer "
    "variables' names: the grader reads them. `check()` and `hint()` work as you go; "
    "`solution()` is hidden until your teacher shares the solutions. Save the notebook and "
    "hand it in as it is; the grader runs it from the top, and a cell that runs longer than "
    "its time limit is stopped."
)


def _variant_texts(v: Variant) -> tuple[tuple[str, str], ...]:
    """What the exercises notebook says about the self-paced edition's variant, and what it
    says instead on the variant ``v``: every figure it states, and whose fixture it is."""
    own = SELF_PACED
    return (
        ("All exercises use **a fixture of their own**, made like notebook 04's: `SYSTEM`, "
         "`QUESTION` and its\ntwo turns `HISTORY`. It is not the article's fixture the lessons "
         "teach with, so the figures they\nprint are not the answers here: measure them.",
         "All exercises use **a fixture of your own**, made like notebook 04's: `SYSTEM`, "
         "`QUESTION` and its\ntwo turns `HISTORY`. They are not the article's, so the figures "
         "the other notebooks print are\nnot your answers: measure yours."),
        (f"a\n{own.grow_budget}-byte budget (`GROW_BUDGET`)",
         f"a\n{v.grow_budget}-byte budget (`GROW_BUDGET`)"),
        (f"keeps **{own.window_reserve}** tokens for the reply",
         f"keeps **{v.window_reserve}** tokens for the reply"),
        (f"`{own.facts[-1].text}`", f"`{v.facts[-1].text}`"),
        ("with a second turn of its own.", "with a second turn of your own."),
    )


def _on_variant(cells: list, v: Variant) -> None:
    """Say the variant's figures where the notebook says the article's (each is found once:
    a notebook edited so that one is not is refused here, not shipped saying the wrong one)."""
    text = [cell for cell in cells if cell.cell_type == "markdown"]
    for old, new in _variant_texts(v):
        found = [cell for cell in text if old in cell.source]
        if len(found) != 1 or found[0].source.count(old) != 1:
            raise AssignmentError(f"the exercises notebook no longer says {old!r} once: update "
                                  f"editions._variant_texts")
        found[0].source = found[0].source.replace(old, new)


def _without_solutions(notebook):
    """A copy of ``notebook`` with no outputs (no answer shown before it runs), no link to
    the solutions and no ``solution()`` call."""
    notebook = clean(notebook)  # a deep copy, without outputs or widget state
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = _without_solution_links(cell.source)
        else:
            cell.source = _without_solution_calls(cell.source)
    return notebook


def student_edition(notebook, student: tuple[str, Variant] | None = None):
    """The exercises as a student gets them: no solution code, ``solution()`` explained,
    no outputs; with ``student`` (a name and a variant), on that student's own fixture."""
    notebook = _without_solutions(notebook)
    cells = [cell for cell in notebook.cells if _edition(cell) != "self-paced"]
    first_code = next(i for i, cell in enumerate(cells) if cell.cell_type == "code")
    note = GRADED_NOTE
    if student:
        name, v = student
        _on_variant(cells, v)
        # In the cell that imports the names it changes: a kernel restarted and that cell run
        # again is on the student's variant, never back on the article's.
        cells[first_code].source = (
            f"from ledgerlab.course.exercises import use_variant\n\n"
            f"use_variant({v.key!r})   # {name}'s own exercises: keep this line first\n\n"
            + cells[first_code].source)
        note += (f" Hand it in as **`{roster.file_name(name)}.ipynb`**: the grader grades "
                 f"each notebook on the exercises of the name it is handed in under.")
    cells.insert(1, _cell("markdown", note, "graded-note"))
    setup = ("from ledgerlab.course.feedback import hide_solutions\n\n"
             "hide_solutions()   # the graded edition: solution() explains instead of answering")
    cells.insert(first_code + 1, _cell("code", setup, "graded-setup"))  # before the imports
    cells[-1:-1] = written_section()  # the questions in words, before the closing links
    notebook.cells = cells
    return notebook


def filled_edition(notebook):
    """The exercises with every answer cell replaced by its solution: the teacher's copy."""
    notebook = clean(notebook)  # a deep copy, without outputs or widget state
    for cell in notebook.cells:
        if _answer(cell):
            cell.source = solution_code(GRADED[_answer(cell)])
    return notebook


def solution_code(exercise) -> str:
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


BUILD_MARK = ".ledgerlab-assignment"  # marks a folder this builder wrote, and may rewrite


class AssignmentError(Exception):
    """The assignment cannot be built where asked; nothing was changed."""


PARTS = ("student", "students", "solutions", "autograder")


def check_destination(out: Path) -> None:
    """Raise AssignmentError unless ``out`` is new, empty, or an earlier build (which the
    build replaces): a folder of the teacher's own is never deleted."""
    out = Path(out)
    if out.exists() and not (out.is_dir() and (out / BUILD_MARK).is_file()
                             and set(os.listdir(out)) <= {*PARTS, BUILD_MARK}):
        if not out.is_dir() or os.listdir(out):
            raise AssignmentError(f"{out} exists and is not an earlier assignment build: "
                                  f"choose a new or empty folder (nothing was changed)")


def build_assignment(out: Path, notebooks: Path | None = None, *, names: list[str] | None = None,
                     secret: bytes | None = None) -> Path:
    """``student/`` (the course without solutions), ``solutions/``, ``autograder/``, from
    ``notebooks`` (the checkout's, by default). With a roster's ``names`` and the teacher's
    ``secret``, ``students/<file name>/`` instead of ``student/``: each student's course, its
    exercises on a variant of their own, recorded in ``autograder/roster.json``."""
    out, notebooks = Path(out), paths.notebooks() if notebooks is None else Path(notebooks)
    check_destination(out)
    course = {path.name: nbformat.read(path, as_version=4)
              for path in sorted(notebooks.glob("*.ipynb")) if path.name != SOLUTIONS_NOTEBOOK}
    students = None  # made before anything is written: a roster error changes nothing
    if names:
        previous = roster.read_students(out / "autograder") if (out / BUILD_MARK).is_file() else None
        students = roster.assign(names, secret, roster.shown_numbers(list(course.values())),
                                 previous)
    # Built beside the earlier build, which is replaced only once this one is complete: a
    # build that fails (a full disk) leaves it, and each student's key in it, as it was.
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    building = atomic.temp_folder(out.absolute())
    try:
        _write_build(building, course, notebooks, students)
        atomic.swap_in(building, out.absolute())
    except OSError as error:
        atomic.remove(building)
        raise AssignmentError(f"cannot write the assignment ({error.strerror or error}): the "
                              f"earlier build, if any, is as it was") from None
    except BaseException:
        atomic.remove(building)
        raise
    return out


def _write_build(out: Path, course: dict, notebooks: Path,
                 students: dict[str, dict[str, str]] | None) -> None:
    """Every part of the assignment, in the new folder ``out``."""
    solutions, autograder = out / "solutions", out / "autograder"
    for folder in (solutions, autograder):
        folder.mkdir(parents=True)
    (out / BUILD_MARK).write_text("written by python -m ledgerlab.course.grading assignment\n")
    if students is None:
        _write_student(out / "student", course, None)
    else:
        for file, entry in students.items():
            student = (entry["name"], variant(entry["key"]))
            _write_student(out / "students" / file, course, student)
        roster.write_roster(autograder, students)
    exercises = course[EXERCISES_NOTEBOOK]
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


def _write_student(folder: Path, course: dict, student: tuple[str, Variant] | None) -> None:
    """One student's course: every notebook without outputs or solutions; the exercises as
    ``student_edition`` makes them. Nothing else: the course's test configuration
    (notebooks/nbval-sanitize.cfg) is not a student's."""
    folder.mkdir(parents=True)
    for name, notebook in course.items():
        if name == EXERCISES_NOTEBOOK:
            nbformat.write(student_edition(notebook, student), folder / name)
            continue
        nbformat.write(_without_solutions(notebook), folder / name)
