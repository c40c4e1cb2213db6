"""The gradebook files: Canvas's import CSV and Moodle's grading worksheet, with the columns
each platform reads, a row per student, and no cell a spreadsheet would run."""

import csv
import io
import json

import nbformat
import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import cli, gradebook, judge, reports, roster, sandbox

from sentences import says, saying

STUDENTS = {"ada-lovelace": {"name": "Ada Lovelace"}, "eve": {"name": "=HYPERLINK(\"x\")"},
            "grace-hopper": {"name": "Grace Hopper"}}


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_canvas_reads_a_row_per_student_with_the_points_possible():
    text = gradebook.canvas_csv(STUDENTS, {"ada-lovelace": 9, "eve": 3}, 9, {"ada-lovelace": "101"})
    assert rows(text) == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "LedgerLab exercises"],
        ["Points Possible", "", "", "", "", "9"],
        ["'=HYPERLINK(\"x\")", "", "", "", "", "3"],
        ["Ada Lovelace", "101", "", "", "", "9"],
        ["Grace Hopper", "", "", "", "", "0"]]


def test_moodle_reads_the_participant_id_and_a_student_without_one_is_listed():
    text, missing = gradebook.moodle_csv(STUDENTS, {"ada-lovelace": 9}, 9, {"ada-lovelace": "555"},
                                         {"ada-lovelace": "Exercises right: 1"}, now=0)
    table = rows(text)
    assert table[0] == ["Identifier", "Full name", "Grade", "Maximum Grade",
                        "Last modified (grade)", "Feedback comments"]
    assert [row[:4] + row[5:] for row in table[1:]] == [
        ["Participant 555", "Ada Lovelace", "9", "9", "Exercises right: 1"]]
    assert missing == ["eve", "grace-hopper"]


def test_two_files_of_one_student_count_the_better():
    assert gradebook.best_scores({"ada": [2, 9], "eve": []}) == {"ada": 9}


# --- The Canvas column names the assignment it fills (issue 48) --------------------------

@pytest.mark.parametrize("given, column", [
    (None, "LedgerLab exercises"), ("1234", "LedgerLab exercises (1234)"),
    (" 1234 ", "LedgerLab exercises (1234)"), ("Week 3: tokens (77)", "Week 3: tokens (77)"),
])
def test_the_canvas_column_is_title_and_id_when_the_assignment_is_given(given, column):
    assert gradebook.canvas_column(given) == column


@pytest.mark.parametrize("given", ["", "abc", "12 34", "(12)", "Week 3", "Week 3 (x)",
                                   "Week\n3 (12)", "1" * 21])
def test_a_canvas_assignment_that_names_no_assignment_is_refused(given):
    with pytest.raises(gradebook.GradebookError, match=saying("canvas_assignment")):
        gradebook.canvas_column(given)


def test_a_canvas_assignment_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match=saying("canvas_assignment", "str")):
        gradebook.canvas_column(1234)


@pytest.fixture
def a_graded_class(tmp_path, monkeypatch):
    """A class of two on a roster, one file each from Canvas's flat download; the sandbox
    replaced by one that hands back no answers (what is tested is the gradebook)."""
    students = roster.assign(["Ada Lovelace", "Grace Hopper"], b"a teacher's secret", set())
    autograder = tmp_path / "autograder"
    autograder.mkdir()
    roster.write_roster(autograder, students)
    (autograder / "assignment.json").write_text(json.dumps(
        {"exercises": [{"name": name, "points": 1} for name in GRADED]}))
    folder = tmp_path / "download"
    folder.mkdir()
    notebook = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]))
    (folder / "lovelaceada_101_9001_13-exercises.ipynb").write_text(notebook, encoding="utf-8")
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome({}, "", 0.0))
    return folder, autograder, tmp_path / "out" / "grades.csv"


def test_grade_heads_the_canvas_column_with_the_assignment_given_and_says_what_the_import_does(
        a_graded_class, run_main):
    """Before, the column was the title alone: Canvas's import made a new assignment of it,
    and nothing said so."""
    folder, autograder, out = a_graded_class
    common = ("grade", folder, "--out", out, "--autograder", autograder, "--unsafe-no-sandbox")
    code, printed, _ = run_main(cli.main, *common, "--canvas-assignment", "1234")
    assert code == 0
    assert rows(reports.teacher_file(out, "canvas").read_text(encoding="utf-8"))[0][-1] == \
        "LedgerLab exercises (1234)"
    says(printed, "grades-canvas.csv", "fills", "assignment", 1234, in_order=True)
    code, printed, _ = run_main(cli.main, *common)
    assert code == 0
    assert rows(reports.teacher_file(out, "canvas").read_text(encoding="utf-8"))[0][-1] == \
        "LedgerLab exercises"
    says(printed, "grades-canvas.csv", "no assignment id", "NEW assignment",
         "--canvas-assignment", in_order=True)


def test_a_bad_canvas_assignment_is_refused_before_anything_is_graded(a_graded_class, run_main):
    folder, autograder, out = a_graded_class
    with pytest.raises(SystemExit) as stopped:
        run_main(cli.main, "grade", folder, "--out", out, "--autograder", autograder,
                 "--unsafe-no-sandbox", "--canvas-assignment", "my assignment")
    assert stopped.value.code == 2
    assert not out.parent.exists()
    with pytest.raises(gradebook.GradebookError):
        judge.grade(folder, out, autograder, sandboxed=False, canvas_assignment="x")
    assert not out.parent.exists()


def test_the_canvas_assignment_option_is_in_the_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["grade", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--canvas-assignment ID" in help_text and "Title (ID)" in help_text
