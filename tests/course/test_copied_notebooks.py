"""A notebook that holds a classmate's variant key: the teacher is told whose, in the grades
and the summary; the student's own feedback page says the key is not theirs, not whose."""

import csv

import nbformat

from ledgerlab.course import feedback
from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import judge, reports
from sentences import says

KEYS = {"ada-lovelace": "0123456789abcdef", "grace-hopper": "fedcba9876543210"}
POINTS = {name: 1 for name in GRADED}


def copied_from_ada():
    """Grace's row, for a notebook that holds Ada's key (a copy of Ada's notebook)."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"from ledgerlab.course.exercises import use_variant\nuse_variant('{KEYS['ada-lovelace']}')")])
    note = judge._whose_key(notebook, "grace-hopper", KEYS)
    return judge.Graded("grace-hopper.ipynb", {name: feedback.UNANSWERED for name in GRADED},
                        note, 1.0)


def test_the_teacher_reads_whose_key_a_copied_notebook_holds(tmp_path):
    out = tmp_path / "grades.csv"
    reports.write_grades([copied_from_ada()], POINTS, out)
    with open(out, newline="", encoding="utf-8") as handle:
        row = next(csv.DictReader(handle))
    says(row["note"], "ada-lovelace", "variant key", "grace-hopper", "graded", "grace-hopper",
         in_order=True)
    assert "ada-lovelace's variant key" in reports.summary_path(out).read_text()


def test_the_students_page_says_the_key_is_not_theirs_and_not_whose_it_is(tmp_path):
    page = reports.feedback_page(copied_from_ada(), POINTS)
    assert "ada" not in page.lower()
    says(page, "variant key", "not yours", "graded", "your own variant", in_order=True)


def test_a_key_no_student_has_and_other_notes_read_the_same_on_the_page():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("use_variant('0000000000000000')")])
    note = "; ".join(["stopped: the notebook ran past its time limit",
                      judge._whose_key(notebook, "grace-hopper", KEYS),
                      "another submission is filed as grace-hopper too"])
    result = judge.Graded("grace-hopper.ipynb", {name: feedback.UNANSWERED for name in GRADED},
                          note, 1.0)
    page = reports.feedback_page(result, POINTS)
    says(page, "Note", "stopped", "time limit", "variant key", "not yours", "your own variant",
         "another submission", "grace-hopper", in_order=True)
