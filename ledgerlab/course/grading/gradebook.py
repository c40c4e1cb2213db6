"""Gradebook files a learning platform imports: Canvas's gradebook CSV, Moodle's grading
worksheet.

**Canvas** (Grades, Import): a header row whose first column is ``Student`` and second
``ID``, then ``SIS User ID``, ``SIS Login ID`` and ``Section``, then one column per
assignment; a ``Points Possible`` row may follow the header. A student is found by ``ID``
(Canvas's user id), else by SIS id, else by name; a column whose title is no assignment
of the course makes a new one (``GradebookImporter#process_header``, ``#process_student``
and ``#check_for_non_student_row`` in Canvas's ``app/models/gradebook_importer.rb``). A
column is found by the id in its title, ``Title (id)`` as Canvas's own export heads it
(``Assignment.title_and_id``), so the column names the teacher's assignment by its id when
they give it (``canvas_column``), and is the title alone otherwise. The
user id is the one Canvas writes into each downloaded submission's name, so a class graded
from Canvas's download, collected or as it is, gets it; otherwise the name is what Canvas
matches.

**Moodle** (the assignment's "Upload grading worksheet"): a CSV with the columns
``Identifier`` (``Participant <id>``), ``Grade`` and ``Last modified (grade)``, and
``Feedback comments`` if comments are on; a row is found by the participant id
(``assignfeedback_offline_grade_importer`` in Moodle's
``mod/assign/feedback/offline/importgradeslib.php``, the column names from
``mod/assign/lang/en/assign.php``). The participant id is the one Moodle writes into each
downloaded submission's name: a student whose file did not come from a Moodle download has
none, and is listed instead of guessed.
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Mapping

from .reports import csv_safe

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)",
                  "Feedback comments")
ASSIGNMENT_TITLE = "LedgerLab exercises"
# An assignment's column as Canvas heads it: its title, a space, its id in parentheses.
TITLE_AND_ID = re.compile(r"(?P<title>\S.*) \((?P<id>[0-9]{1,20})\)")


class GradebookError(ValueError):
    """A gradebook option that names no assignment; nothing was graded or written."""


def canvas_column(assignment: str | None) -> str:
    """The title of the Canvas gradebook's column: ``Title (id)``, which Canvas's import
    fills the assignment ``id`` of, for ``assignment`` given as Canvas's id ("1234", the
    number in the assignment's address) or as Canvas's export heads its column
    ("LedgerLab exercises (1234)"); the title alone for None, which the import makes a new
    assignment of."""
    if assignment is None:
        return ASSIGNMENT_TITLE
    if not isinstance(assignment, str):
        raise TypeError(f"canvas_assignment must be a str or None, not {type(assignment).__name__}")
    text = assignment.strip()
    if re.fullmatch(r"[0-9]{1,20}", text):
        return f"{ASSIGNMENT_TITLE} ({int(text)})"
    found = TITLE_AND_ID.fullmatch(text)
    if found is None:
        raise GradebookError("canvas_assignment must be Canvas's id of the assignment (the "
                             "number after /assignments/ in its address) or its column as "
                             "Canvas's gradebook export heads it, Title (id)")
    return f"{found['title']} ({int(found['id'])})"


def canvas_id(column: str) -> str | None:
    """The assignment id a column title names, or None (the title alone)."""
    found = TITLE_AND_ID.fullmatch(column)
    return found["id"] if found else None


def _csv(rows: list[list[object]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue()


def best_scores(scores: Mapping[str, list[int]]) -> dict[str, int]:
    """Each student's score: the best of their submissions (two files for one student are
    noted in grades.csv; the gradebook takes the better)."""
    return {file: max(values) for file, values in scores.items() if values}


def grade_cell(score: int | None) -> int | str:
    """A grade as a gradebook's cell: blank for None, a student whose file could not be
    graded. Canvas's import leaves a blank cell ungraded, and Moodle's skips a blank grade
    (``process_import_grades`` in Moodle's ``mod/assign/feedback/offline/locallib.php``: "grade
    has no value") and still takes the comment, which says why."""
    return "" if score is None else score


def canvas_csv(students: Mapping[str, Mapping[str, str]], scores: Mapping[str, int | None],
               most: int, ids: Mapping[str, str], title: str = ASSIGNMENT_TITLE) -> str:
    """Canvas's gradebook CSV: one row per roster student (``students``: file name ->
    {"name"}), their ``scores`` out of ``most`` (0 for a student ``scores`` does not have,
    blank for None: ``grade_cell``), Canvas's user id where ``ids`` has it, in a column
    headed ``title`` (``canvas_column``)."""
    rows: list[list[object]] = [[*CANVAS_COLUMNS, csv_safe(title)],
                                ["Points Possible", "", "", "", "", most]]
    for file, entry in sorted(students.items(), key=lambda item: item[1]["name"]):
        rows.append([csv_safe(entry["name"]), ids.get(file, ""), "", "", "",
                     grade_cell(scores.get(file, 0))])
    return _csv(rows)


def moodle_csv(students: Mapping[str, Mapping[str, str]], scores: Mapping[str, int | None],
               most: int, ids: Mapping[str, str], comments: Mapping[str, str],
               now: float | None = None) -> tuple[str, list[str]]:
    """Moodle's grading worksheet: one row per student with a participant id in ``ids``
    (a score of None a blank grade, as ``canvas_csv``); and the file names of the students
    without one, whom Moodle could not match."""
    modified = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
    rows: list[list[object]] = [list(MOODLE_COLUMNS)]
    missing = []
    for file, entry in sorted(students.items(), key=lambda item: item[1]["name"]):
        if not ids.get(file, "").isdigit():
            missing.append(file)
            continue
        rows.append([f"Participant {ids[file]}", csv_safe(entry["name"]),
                     grade_cell(scores.get(file, 0)), most, modified,
                     csv_safe(comments.get(file, ""))])
    return _csv(rows), missing
