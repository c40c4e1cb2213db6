"""Gradebook files a learning platform imports: Canvas's gradebook CSV, Moodle's grading
worksheet.

**Canvas** (Grades, Import): a header row whose first column is ``Student`` and second
``ID``, then ``SIS User ID``, ``SIS Login ID`` and ``Section``, then one column per
assignment; a ``Points Possible`` row may follow the header. A student is found by ``ID``
(Canvas's user id), else by SIS id, else by name; a column whose title is no assignment
of the course makes a new one (``GradebookImporter#process_header``, ``#process_student``
and ``#check_for_non_student_row`` in Canvas's ``app/models/gradebook_importer.rb``). The
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
import time
from collections.abc import Mapping

from .reports import csv_safe

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)",
                  "Feedback comments")
ASSIGNMENT_TITLE = "LedgerLab exercises"


def _csv(rows: list[list[object]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue()


def best_scores(scores: Mapping[str, list[int]]) -> dict[str, int]:
    """Each student's score: the best of their submissions (two files for one student are
    noted in grades.csv; the gradebook takes the better)."""
    return {file: max(values) for file, values in scores.items() if values}


def canvas_csv(students: Mapping[str, Mapping[str, str]], scores: Mapping[str, int], most: int,
               ids: Mapping[str, str], title: str = ASSIGNMENT_TITLE) -> str:
    """Canvas's gradebook CSV: one row per roster student (``students``: file name ->
    {"name"}), their ``scores`` out of ``most``, Canvas's user id where ``ids`` has it."""
    rows: list[list[object]] = [[*CANVAS_COLUMNS, csv_safe(title)],
                                ["Points Possible", "", "", "", "", most]]
    for file, entry in sorted(students.items(), key=lambda item: item[1]["name"]):
        rows.append([csv_safe(entry["name"]), ids.get(file, ""), "", "", "",
                     scores.get(file, 0)])
    return _csv(rows)


def moodle_csv(students: Mapping[str, Mapping[str, str]], scores: Mapping[str, int], most: int,
               ids: Mapping[str, str], comments: Mapping[str, str],
               now: float | None = None) -> tuple[str, list[str]]:
    """Moodle's grading worksheet: one row per student with a participant id in ``ids``;
    and the file names of the students without one, whom Moodle could not match."""
    modified = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
    rows: list[list[object]] = [list(MOODLE_COLUMNS)]
    missing = []
    for file, entry in sorted(students.items(), key=lambda item: item[1]["name"]):
        if not ids.get(file, "").isdigit():
            missing.append(file)
            continue
        rows.append([f"Participant {ids[file]}", csv_safe(entry["name"]),
                     scores.get(file, 0), most, modified, csv_safe(comments.get(file, ""))])
    return _csv(rows), missing
