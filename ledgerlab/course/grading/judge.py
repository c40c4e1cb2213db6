"""Grading: run each submission in the sandbox and judge the answers it hands back.

The verdicts are ``Exercise.grade`` (the learner's ``check`` plus what only grading
runs), made here, in the grader's process, on the plain answers that ``sandbox`` brings
back and ``answers.from_plain`` rebuilds. A submission that cannot be read, or that
stops early, still gets its row: what did not come back is "not answered", and why.

Built on nbclient, which JupyterLab already installs, rather than otter-grader or
nbgrader: both would need the answers written again in a master notebook in their own
format, nbgrader a course database besides, and otter a whole-notebook timeout that
scores a looping submission 0. Here each cell has a timeout, and a cell that runs over
is interrupted and the rest of the notebook still runs and is graded.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import cache
from pathlib import Path

from ledgerlab import InvalidText

from ..exercises import GRADED, SELF_PACED, Variant, variant
from ..exercises.variants import KEY
from ..feedback import Feedback, wrong
from ..written import collect_written
from . import collect, gradebook, notes, roster, sandbox
from .answers import MAX_INT, AnswerTooLarge, from_plain
from .class_pages import class_pages
from .graded import Graded
from .manifest import MAX_TIMEOUT, read_manifest
from .runner import PROCESSES, names_bound
from .reports import check_outputs, write_grades
from .sandbox import CELL_TIMEOUT, NOTEBOOK_TIMEOUT
from .submissions import parse_notebook

MAX_NOTEBOOK_BYTES = 5 * 1024**2
NOT_REGULAR = "not a regular file (a directory, a link, a pipe or a device): not graded"
# The key a graded notebook chooses its variant with (editions.student_edition writes it).
USE_VARIANT = re.compile(r"""use_variant\(\s*['"](""" + KEY.pattern + r""")['"]\s*\)""")
NOTHING_HANDED_IN = "nothing was handed in under this name"
ROOT_WARNING = (f"warning: the grader is running as root. Linux never holds root's processes "
                f"to the {PROCESSES} processes a submission may have, so a fork bomb in a "
                f"submission can flood this machine before the grader's watch stops it (and "
                f"without the sandbox a submission runs as root). Run the grader as an "
                f"ordinary user.")
NOT_ON_ROSTER = ("not filed under a name on the roster (each student's notebook is handed in as "
                 "<their file name>.ipynb, the name of their folder in students/): not graded")


def judge(name: str, answers: dict, fixture: Variant = SELF_PACED, why_missing=None) -> Feedback:
    """The verdict on one exercise's plain answers, by the learner's own checks, on the
    variant of the student the submission is filed under. ``why_missing(name, variable)``
    ends the sentence that says an answer variable is missing (``missing_reasons``)."""
    exercise = GRADED[name]
    values = []
    for variable in exercise.answers:
        tagged = answers.get(variable)
        if tagged is None or tagged == {"missing": True}:
            why = why_missing(name, variable) if why_missing else "."
            return Feedback("unanswered", f"no variable named {variable}{why}")
        try:
            values.append(from_plain(tagged, exercise.inputs))
        except AnswerTooLarge as error:  # said by its size: the value itself is never echoed
            return wrong(f"{variable} holds or returns an int of {error.digits} digits, beyond "
                         f"the {MAX_INT:,} the grader checks: no answer here is that large.")
        except (InvalidText, TypeError):
            return wrong(f"{variable} holds a Turn whose texts are not valid strings.")
    try:
        return exercise.grade(*values, fixture=fixture)
    except Exception as error:  # a replayed function that raises, an odd value: wrong
        return wrong(f"grading raised {type(error).__name__}.")


def missing_reasons(notebook):
    """``why_missing(name, variable)`` for ``judge``: why an answer variable of exercise
    ``name`` was not there when the grader read the answers, from the notebook's code (read
    once, on the first call). Its answer cell removed (no cell is marked as ``name``'s),
    changed so that no cell assigns the variable, or the variable assigned and then gone
    (its cell stopped with an error first, or a later cell deleted it)."""

    @cache
    def assigned() -> frozenset[str]:
        return frozenset().union(*map(names_bound, notebook.cells))

    def why_missing(name: str, variable: str) -> str:
        number = GRADED[name].number
        if variable in assigned():
            return (f" when the grader read exercise {number}'s answers, though a cell "
                    f"assigns it: that cell stopped with an error first, or a later cell "
                    f"deleted it.")
        if any(cell.metadata.get("ledgerlab", {}).get("answer") == name
               for cell in notebook.cells):
            return (f": exercise {number}'s answer cell was changed and no cell assigns it "
                    f"(keep the answer variables' names).")
        return (f": exercise {number}'s answer cell is not in the notebook (removed), and no "
                f"cell assigns it.")
    return why_missing


def read_notebook(path: Path):
    """The submitted notebook, parsed once and without its outputs
    (``submissions.parse_notebook``), or why it is not graded. Never follows a link, never
    blocks on a pipe, never reads more than MAX_NOTEBOOK_BYTES."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return NOT_REGULAR
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return f"cannot be read ({error.strerror}): not graded"
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # swapped since the lstat
            return NOT_REGULAR
        data = file.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        return f"larger than {MAX_NOTEBOOK_BYTES // 1024**2} MiB: not graded"
    return parse_notebook(data)


def read_submission(path: Path) -> bytes | str:
    """The submitted notebook as the sandbox runs it (``read_notebook``'s, as JSON), or why
    it is not graded."""
    notebook = read_notebook(path)
    return notebook if isinstance(notebook, str) else _notebook_bytes(notebook)


def _notebook_bytes(notebook) -> bytes:
    # ASCII JSON: a lone surrogate a student's JSON may hold ("\ud800") stays an escape.
    return json.dumps(notebook).encode("ascii")


def grade_submission(path: Path, names: list[str], *, cell_timeout: int = CELL_TIMEOUT,
                     notebook_timeout: int = NOTEBOOK_TIMEOUT, sandboxed: bool = True,
                     keys: dict[str, str] | None = None) -> Graded:
    """Run one submission in the sandbox and judge the answers it hands back: on the variant
    ``keys`` gives the name it is filed under (the file name without .ipynb), or on the
    self-paced edition's for an assignment built without a roster (its notebook calls no
    ``use_variant``)."""
    started = time.monotonic()
    fixture = SELF_PACED
    if keys is not None:  # "Ada Lovelace.ipynb", as a course site may rename it, is ada-lovelace
        filed = filed_as(path, keys)
        if filed not in keys:
            verdicts = {name: Feedback("unanswered", NOT_ON_ROSTER) for name in names}
            return Graded(path.name, verdicts, NOT_ON_ROSTER, time.monotonic() - started,
                          failure=NOT_ON_ROSTER)
        fixture = variant(keys[filed])
    notebook = read_notebook(path)
    # The grader's own reading counts against the notebook's time limit.
    left = notebook_timeout - (time.monotonic() - started)
    if not isinstance(notebook, str) and left <= 0:
        notebook = "stopped: reading the notebook took longer than its time limit"
    if isinstance(notebook, str):
        verdicts = {name: Feedback("unanswered", notebook) for name in names}
        return Graded(path.name, verdicts, notebook, time.monotonic() - started,
                      failure=notebook)
    written = collect_written(notebook)
    outcome = sandbox.run(_notebook_bytes(notebook), names, cell_timeout=cell_timeout,
                          notebook_timeout=left, sandboxed=sandboxed)
    note = outcome.problem
    if keys is not None:
        note = "; ".join(filter(None, [note, _whose_key(notebook, filed, keys)]))
    verdicts, why_missing = {}, missing_reasons(notebook)
    for name in names:
        if name in outcome.answers:
            verdicts[name] = judge(name, outcome.answers[name], fixture, why_missing)
        elif name in outcome.unread:
            verdicts[name] = Feedback("unanswered", f"no answers came back: "
                                                    f"{outcome.unread[name]}.")
        elif outcome.problem:
            verdicts[name] = Feedback("unanswered", "no answers came back: the run stopped "
                                      "before the grader's cells read them (the note says "
                                      "why).")
        else:  # its line came back, and could not be read: the notebook forged or bent it
            verdicts[name] = Feedback("unanswered", "no answers came back: what the grader's "
                                      "cell printed for them could not be read (the notebook "
                                      "changed how it prints).")
    failure = outcome.problem if not outcome.answers else ""  # stopped before any answer
    return Graded(path.name, verdicts, note, time.monotonic() - started, written, failure)


def filed_as(path: Path, keys: dict[str, str] | None = None) -> str:
    """The roster file name a submission is filed under: its name without .ipynb, as
    ``roster.file_name`` makes file names; or, for a name not on the roster (``keys``), the
    student its name matches as Canvas or Moodle exports it (``collect.filed_under``)."""
    plain = roster.file_name(re.sub(r"\.ipynb$", "", path.name, flags=re.IGNORECASE))
    if keys is None or plain in keys:
        return plain
    return collect.filed_under(path.name, keys) or plain


def _whose_key(notebook, filed: str, keys: dict[str, str]) -> str:
    """A note for the teacher when the notebook chooses another variant than its student's:
    copied from a classmate, or handed in under the wrong name. "" when it is theirs. (The
    student's own feedback page does not say whose: ``notes.for_student``.)"""
    found = {key for cell in notebook.cells if cell.cell_type == "code"
             for key in USE_VARIANT.findall(cell.source)}
    if not found or keys[filed] in found:
        return ""
    return notes.other_key(sorted(file for file, key in keys.items() if key in found), filed)


MAX_JOBS = 64  # submissions graded at once: each is a kernel, in a sandbox of its own


def _check_whole(value: object, name: str, most: int) -> None:
    """TypeError or ValueError, naming ``name``, unless ``value`` is a whole number from 1 to
    ``most`` (0 or less would turn a limit off)."""
    if type(value) is not int:
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}")
    if not 1 <= value <= most:
        raise ValueError(f"{name} must be a whole number from 1 to {most:,}")


def grade(submissions: Path, out: Path, autograder: Path | None = None, *,
          cell_timeout: int | None = None, jobs: int = 1, sandboxed: bool = True,
          progress=None, canvas_assignment: str | None = None) -> list[Graded]:
    """Grade every ``*.ipynb`` entry of ``submissions``; write the grades, one feedback file
    per submission and a summary for the teacher. Every entry gets its row.

    The outputs are checked first (reports.OutputError), so nothing is graded for grades
    that could not be written. An assignment built with a roster grades each submission on
    the variant of the name it is filed under, and a name not on the roster is not graded.
    ``canvas_assignment`` (Canvas's id of the assignment, or ``Title (id)``) names the
    assignment the Canvas gradebook fills (``gradebook.canvas_column``); without it, Canvas's
    import makes a new one."""
    _check_whole(jobs, "jobs", MAX_JOBS)  # as the command line bounds them
    if cell_timeout is not None:
        _check_whole(cell_timeout, "cell_timeout", MAX_TIMEOUT)
    canvas_title = gradebook.canvas_column(canvas_assignment)  # refused before any grading
    manifest = read_manifest(Path(autograder)) if autograder else None
    keys = roster.read_keys(Path(autograder)) if autograder else None
    entries = manifest["exercises"] if manifest else [
        {"name": name, "points": 1} for name in GRADED]
    points = {entry["name"]: entry["points"] for entry in entries}
    names = list(points)
    timeout = cell_timeout or (manifest or {}).get("cell_timeout", CELL_TIMEOUT)
    notebook_timeout = (manifest or {}).get("notebook_timeout", NOTEBOOK_TIMEOUT)
    paths = sorted(path for path in Path(submissions).iterdir()
                   if path.name.lower().endswith(".ipynb"))
    if not paths:
        raise FileNotFoundError(f"no .ipynb files in {submissions}")
    check_outputs(Path(out))
    if getattr(os, "geteuid", lambda: None)() == 0:  # once a run, before any submission runs
        print(ROOT_WARNING, file=sys.stderr, flush=True)

    def one(path: Path) -> Graded:
        result = grade_submission(path, names, cell_timeout=timeout, keys=keys,
                                  notebook_timeout=notebook_timeout, sandboxed=sandboxed)
        if progress:
            progress(result, sum(result.score(points).values()), sum(points.values()))
        return result

    # Each submission is its own sandbox: grading several at once only overlaps them.
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, paths))
    found = collect.read_collected(Path(submissions))
    results = [replace(result, late=collect.submitted_as(result.submission, found).late)
               for result in results]
    if keys is not None:
        results = _with_roster_notes(results, paths, keys, names, found["unreadable"])
    # The teacher's pages beyond the grades: what submissions share, the gradebooks.
    students = roster.read_students(Path(autograder)) if keys is not None else None
    filed = {result.submission: filed_as(Path(result.submission), keys) for result in results}
    pages, notes = class_pages(results, paths, points, Path(out), read_notebook, students,
                               filed, found, canvas_title)
    notes += [f"{entry['source']}: {entry['why']}" for entry in found["unmatched"]]
    write_grades(results, points, Path(out), pages, notes)
    return results


def _with_roster_notes(results: list[Graded], paths: list[Path], keys: dict[str, str],
                       names: list[str], unreadable: dict[str, str] | None = None
                       ) -> list[Graded]:
    """Say when two submissions are filed under one student, and give each student who
    handed nothing in a row of their own; or, for a student whose file ``collect`` could not
    read (``unreadable``: file name -> why), a row that says so."""
    filed = [filed_as(path, keys) for path in paths]
    twice = {name for name in filed if filed.count(name) > 1 and name in keys}
    noted = [replace(result, note="; ".join(filter(None, [
                 result.note, f"another submission is filed as {name} too"])))
             if name in twice else result for result, name in zip(results, filed)]
    missing = []
    for file in sorted(set(keys) - set(filed)):
        why, handed_in = NOTHING_HANDED_IN, file in (unreadable or {})
        if handed_in:
            why = (f"the file handed in could not be read from the platform's download "
                   f"({unreadable[file]}): ask for it again; not graded")
        missing.append(Graded(f"{file}.ipynb", {name: Feedback("unanswered", why)
                                                for name in names}, why, 0.0, failure=why,
                              handed_in=handed_in))
    return noted + missing
