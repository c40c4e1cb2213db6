"""Submissions as Canvas and Moodle download them, matched to the roster by name: the files
that match no student, or two, are listed for the teacher, never guessed."""

import json
import zipfile

import nbformat
import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import collect, judge, roster, sandbox

SECRET = b"a teacher's secret, kept off the class's machines"
CLASS = ["Ada Lovelace", "Grace Hopper", "Zoë Ní Bhriain", "李小龙", "Mary O'Brien"]


@pytest.fixture(scope="module")
def students():
    return roster.assign(CLASS, SECRET, set())


@pytest.mark.parametrize("name, file", [
    # Canvas: the sortable name, lowercased, all but letters, digits and _ removed.
    ("lovelaceada_101_9001_10-exercises.ipynb", "ada-lovelace"),
    ("hoppergrace_LATE_102_9002_10-exercises-1.ipynb", "grace-hopper"),
    ("bhriainzoëní_103_9003_x.ipynb", "zoe-ni-bhriain"),
    ("李小龙_104_9004_10-exercises.ipynb", "李小龙"),
    ("obrienmary_105_9005_10-exercises.ipynb", "mary-o-brien"),
    # Canvas before 2020: spaces and punctuation as dashes, " LATE" kept in the name.
    ("lovelace--ada-late_101_9001_10-exercises.ipynb", "ada-lovelace"),
    # Moodle: the full name, the participant id, the plugin; flat, or a folder a student.
    ("Zoë Ní Bhriain_555_assignsubmission_file_10-exercises.ipynb", "zoe-ni-bhriain"),
    ("Grace Hopper_556_assignsubmission_file/12-exercises.ipynb", "grace-hopper"),
    # As the roster files it, or as a course site renames it.
    ("ada-lovelace.ipynb", "ada-lovelace"), ("Zoe Ni Bhriain.ipynb", "zoe-ni-bhriain"),
])
def test_a_platforms_file_name_is_matched_to_its_student(students, name, file):
    found = collect.source(name)
    assert collect.match(found.name, students) == (file, "")


@pytest.mark.parametrize("name, why", [
    ("smithbob_777_9007_10-exercises.ipynb", "its name matches no student on the roster"),
    ("anon_x7f3k_9009_10-exercises.ipynb", "its name matches no student on the roster"),
    ("Participant_557_assignsubmission_file_10-exercises.ipynb",  # Moodle's blind marking
     "its name matches no student on the roster"),
])
def test_a_name_that_is_no_student_is_not_guessed(students, name, why):
    assert collect.match(collect.source(name).name, students) == (None, why)


def test_a_name_two_students_could_have_is_not_guessed():
    files = {roster.file_name(name): {} for name in ("Ada Lovelace", "Lovelace Ada")}
    assert collect.match("lovelaceada", files) == (None, "its name matches 2 students: not guessed")


def notebook_bytes(mark):
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(mark)])).encode()


def test_collect_copies_each_match_keeps_the_latest_upload_and_lists_the_rest(students, tmp_path):
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("lovelaceada_101_9001_first.ipynb", notebook_bytes("first"))
        archive.writestr("lovelaceada_101_9100_second.ipynb", notebook_bytes("second"))
        archive.writestr("Grace Hopper_556_assignsubmission_file/sub/12-exercises.ipynb",
                         notebook_bytes("grace"))
        archive.writestr("hoppergrace_102_9002_report.pdf", b"%PDF")
    out = tmp_path / "submissions"
    collected = collect.collect(export, students, out)
    assert sorted(collected.files) == ["ada-lovelace", "grace-hopper"]
    assert b"second" in (out / "ada-lovelace.ipynb").read_bytes()
    assert b"grace" in (out / "grace-hopper.ipynb").read_bytes()
    saved = json.loads((out / collect.COLLECTED_FILE).read_text(encoding="utf-8"))
    assert saved["students"]["grace-hopper"] == {
        "source": "Grace Hopper_556_assignsubmission_file/sub/12-exercises.ipynb",
        "platform": "moodle", "id": "556"}
    assert {entry["source"]: entry["why"] for entry in saved["unmatched"]} == {
        "lovelaceada_101_9001_first.ipynb": "another file of ada-lovelace's, an earlier one: not used",
        "hoppergrace_102_9002_report.pdf": "not a notebook (.ipynb)"}
    assert collect.read_collected(out) == saved
    collect.collect(export, students, out)  # an earlier collection is replaced whole
    assert sorted(path.name for path in tmp_path.iterdir()) == ["export.zip", "submissions"]


def test_collect_refuses_a_folder_of_the_teachers_and_changes_nothing(students, tmp_path):
    (tmp_path / "export").mkdir()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("the teacher's")
    with pytest.raises(collect.CollectError, match="not an earlier collection"):
        collect.collect(tmp_path / "export", students, tmp_path / "mine")
    assert [path.name for path in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_grading_a_platforms_download_files_each_under_its_student(students, tmp_path, monkeypatch):
    """Before, a file not named exactly <file name>.ipynb was a stranger, and its student was
    marked as having handed nothing in."""
    autograder = tmp_path / "autograder"
    autograder.mkdir()
    roster.write_roster(autograder, students)
    (autograder / "assignment.json").write_text(json.dumps(
        {"exercises": [{"name": name, "points": 1} for name in GRADED]}))
    folder = tmp_path / "download"
    folder.mkdir()
    (folder / "lovelaceada_101_9001_10-exercises.ipynb").write_bytes(notebook_bytes("x = 1"))
    (folder / "Zoë Ní Bhriain_555_assignsubmission_file_10-exercises.ipynb").write_bytes(
        notebook_bytes("x = 1"))
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome({}, "", 0.0))
    results = judge.grade(folder, tmp_path / "out" / "grades.csv", autograder, sandboxed=False)
    notes = {result.submission: result.note for result in results}
    assert notes["lovelaceada_101_9001_10-exercises.ipynb"] == ""
    assert notes["Zoë Ní Bhriain_555_assignsubmission_file_10-exercises.ipynb"] == ""
    assert notes["grace-hopper.ipynb"] == judge.NOTHING_HANDED_IN
    assert "ada-lovelace.ipynb" not in notes and "zoe-ni-bhriain.ipynb" not in notes
