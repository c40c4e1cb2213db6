"""The gradebook files: Canvas's import CSV and Moodle's grading worksheet, with the columns
each platform reads, a row per student, and no cell a spreadsheet would run."""

import csv
import io

from ledgerlab.course.grading import gradebook

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
