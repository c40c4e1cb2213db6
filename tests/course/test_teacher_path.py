"""A teacher's path with a class of five, one name not in ASCII, by the commands a teacher
runs: hand out an archive each, collect what a learning platform's download names each file,
grade, and read the similarity report, the commonest kinds of mistake and the gradebooks."""

import csv
import io
import json
import math
import zipfile

import nbformat
import pytest

from ledgerlab.course.grading import cli, editions, judge, reports
from ledgerlab.course.exercises import EXERCISES
from ledgerlab.course.grading.rubrics import RUBRICS

from sandbox_required import sandbox_or_skip
from sentences import says

SANDBOXED = sandbox_or_skip()
CLASS = ["Ada Lovelace", "Grace Hopper", "Zoë Ní Bhriain", "Alan Turing", "Katherine Johnson"]
FILES = ["ada-lovelace", "grace-hopper", "zoe-ni-bhriain", "alan-turing", "katherine-johnson"]
WHEEL = "ledgerlab-0.0.0-py3-none-any.whl"
CELL_TIMEOUT = 20  # seconds: as tests/course/test_grading.py
# A full score, and one exercise short of it (exercise 1's budget wrong), as the grades write them.
ALL, ALL_BUT_ONE = str(len(EXERCISES)), str(len(EXERCISES) - 1)
# Ada's words; Grace's notebook is a copy of Ada's, so hers are the same.
ADA_WRITES = "The request is rebuilt from the ledger every call, so the turn is still there."
ZOE_WRITES = "Nothing was deleted: select only chose what to send this time."
# A budget the full request fits in: "a …-byte budget fits the newest turn too", with each
# student's own number.
FULL_BUDGET = "budget = len(request_bytes(SYSTEM, history, QUESTION))"
# Where a platform's download puts each student's file (Canvas: sortable name squashed, user
# id, attachment id, the file's own name, LATE for a late one; Moodle: full name, participant
# id, the plugin, then the file's own name).
EXPORT_NAMES = {"ada-lovelace": "lovelaceada_101_9001_10-exercises.ipynb",
                "grace-hopper": "hoppergrace_102_9002_10-exercises-1.ipynb",
                "zoe-ni-bhriain": "bhriainzoëní_LATE_103_9003_10-exercises.ipynb",
                "alan-turing": "Alan Turing_555_assignsubmission_file_10-exercises.ipynb"}


def run(*argv):
    assert cli.main([str(arg) for arg in argv]) == 0


def worked(notebook, mark, wrong_budget=False):
    """A student's exercises, solved, each answer cell with a line of their own; with
    ``wrong_budget``, exercise 1's budget changed afterwards to one the full request fits."""
    notebook = editions.filled_edition(notebook)
    for cell in notebook.cells:
        if cell.metadata.get("ledgerlab", {}).get("answer"):
            cell.source = f"_by = {mark!r}\n{cell.source}"
        if cell.metadata.get("ledgerlab", {}).get("written") == "01-3":
            cell.source = ADA_WRITES if mark == "ada" else ZOE_WRITES if mark == "zoe" else cell.source
    if wrong_budget:
        notebook.cells.append(nbformat.v4.new_code_cell(FULL_BUDGET))
    return notebook


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    root = tmp_path_factory.mktemp("teacher")
    (root / "names.txt").write_text("\ufeff" + "\r\n".join(CLASS) + "\r\n", encoding="utf-8")
    (root / WHEEL).write_bytes(b"a wheel's bytes")
    build, handout = root / "assignment", root / "handout"
    # A fixed secret: the variants, and so what Grace's copy of Ada's answers earns on her own
    # variant, are the same on every run (a new random secret let one more answer coincide).
    (root / "secret").write_text("teacher-path-test-secret-0123456789\n", encoding="utf-8")
    (root / "secret").chmod(0o600)
    run("assignment", build, "--roster", root / "names.txt", "--secret-file", root / "secret")
    run("handout", build, "--out", handout, "--wheel", root / WHEEL)
    # Each student unzips their archive and works in it; Katherine hands nothing in, and
    # Grace hands in a copy of Ada's notebook.
    handed = {}
    for file in FILES:
        with zipfile.ZipFile(handout / f"{file}.zip") as archive:
            handed[file] = nbformat.reads(archive.read(f"{file}/{editions.EXERCISES_NOTEBOOK}"), as_version=4)
    done = {"ada-lovelace": worked(handed["ada-lovelace"], "ada"),
            "zoe-ni-bhriain": worked(handed["zoe-ni-bhriain"], "zoe", wrong_budget=True),
            "alan-turing": worked(handed["alan-turing"], "alan", wrong_budget=True)}
    done["grace-hopper"] = done["ada-lovelace"]
    export = root / "submissions.zip"
    with zipfile.ZipFile(export, "w") as archive:
        for file, name in EXPORT_NAMES.items():
            archive.writestr(name, nbformat.writes(done[file]))
        archive.writestr("smithbob_777_9007_10-exercises.ipynb", nbformat.writes(done["alan-turing"]))
        archive.writestr("lovelaceada_101_9008_notes.pdf", b"%PDF-1.4")
    submissions, out = root / "submissions", root / "out" / "grades.csv"
    run("collect", export, "--autograder", build / "autograder", "--out", submissions)
    run("grade", submissions, "--out", out, "--autograder", build / "autograder",
        "--cell-timeout", CELL_TIMEOUT, "--jobs", 2, *([] if SANDBOXED else ["--unsafe-no-sandbox"]))
    with open(out, newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return {"root": root, "build": build, "handout": handout, "submissions": submissions,
            "out": out, "rows": rows}


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


@pytest.mark.slow  # runs kernels
def test_each_student_gets_an_archive_with_their_own_exercises_and_the_course_extra(path):
    keys = json.loads((path["build"] / "autograder" / "roster.json").read_text(encoding="utf-8"))
    assert sorted(p.name for p in path["handout"].glob("*.zip")) == sorted(f"{f}.zip" for f in FILES)
    with zipfile.ZipFile(path["handout"] / "zoe-ni-bhriain.zip") as archive:
        names = archive.namelist()
        readme = archive.read("zoe-ni-bhriain/README.txt").decode("utf-8")
        exercises = archive.read(f"zoe-ni-bhriain/{editions.EXERCISES_NOTEBOOK}").decode("utf-8")
    assert f"zoe-ni-bhriain/{WHEEL}" in names and "zoe-ni-bhriain/00-contents.ipynb" in names
    assert f'python -m pip install "{WHEEL}[course]"' in readme
    says(readme, "Zoë Ní Bhriain", "zoe-ni-bhriain.ipynb", in_order=True)  # who, and the name to hand in
    assert keys["zoe-ni-bhriain"]["key"] in exercises and keys["ada-lovelace"]["key"] not in exercises


@pytest.mark.slow  # runs kernels
def test_the_platforms_file_names_are_matched_to_the_roster_and_the_rest_listed(path):
    collected = json.loads((path["submissions"] / "collected.json").read_text(encoding="utf-8"))
    assert {file: entry["platform"] + ":" + entry["id"]
            for file, entry in collected["students"].items()} == {
        "ada-lovelace": "canvas:101", "grace-hopper": "canvas:102",
        "zoe-ni-bhriain": "canvas:103", "alan-turing": "moodle:555"}
    assert sorted(p.name for p in path["submissions"].glob("*.ipynb")) == sorted(
        f"{file}.ipynb" for file in EXPORT_NAMES)
    why = {entry["source"]: entry["why"] for entry in collected["unmatched"]}
    assert sorted(why) == ["lovelaceada_101_9008_notes.pdf", "smithbob_777_9007_10-exercises.ipynb"]
    says(why["smithbob_777_9007_10-exercises.ipynb"], "no student", "roster", in_order=True)
    says(why["lovelaceada_101_9008_notes.pdf"], "not a notebook", ".ipynb", in_order=True)


@pytest.mark.slow  # runs kernels
def test_the_grades_say_who_earned_what_and_why(path):
    rows = path["rows"]
    assert sorted(rows) == sorted(f"{file}.ipynb" for file in FILES)
    assert (rows["ada-lovelace.ipynb"]["score"], rows["ada-lovelace.ipynb"]["note"]) == (ALL, "")
    for file in ("zoe-ni-bhriain", "alan-turing"):  # exercise 1's budget fits the full request
        assert (rows[f"{file}.ipynb"]["score"], rows[f"{file}.ipynb"]["q1"]) == (ALL_BUT_ONE, "0")
    grace = rows["grace-hopper.ipynb"]
    assert grace["q3"] == grace["q9"] == "1" and int(grace["score"]) <= 4
    says(grace["note"], "ada-lovelace", "variant key", "grace-hopper", "graded", "grace-hopper",
         in_order=True)
    assert rows["katherine-johnson.ipynb"]["note"] == judge.NOTHING_HANDED_IN
    # Canvas's LATE is kept; Moodle's names (Alan's) never say, nor does nothing handed in.
    assert {file: rows[f"{file}.ipynb"]["late"] for file in FILES} == {
        "ada-lovelace": "no", "grace-hopper": "no", "zoe-ni-bhriain": "yes", "alan-turing": "",
        "katherine-johnson": ""}


@pytest.mark.slow  # runs kernels
def test_the_similarity_report_flags_the_copy_and_no_one_else(path):
    page = reports.teacher_file(path["out"], "similarity").read_text(encoding="utf-8")
    cells = page.split("## Answer cells")[1].split("## Written answers")[0]
    # 2 of the 4 submissions compared hold each: ln(4 / 2) = 0.69 (Katherine handed nothing in).
    assert cells.count("alike in 2 submissions (weight 0.69): ` ada-lovelace.ipynb `, "
                       "` grace-hopper.ipynb `") == len(EXERCISES)
    assert "zoe" not in cells and "alan" not in cells
    written = page.split("## Written answers")[1].split("## Pairs")[0]
    assert "01-3" in written and "` grace-hopper.ipynb `" in written and "zoe" not in written
    shared = len(EXERCISES) + 1
    assert (f"- ` ada-lovelace.ipynb ` and ` grace-hopper.ipynb `: weight "
            f"{shared * math.log(2):.2f}, {shared} alike") in page
    assert "no score was changed" in page


@pytest.mark.slow  # runs kernels
def test_the_summary_groups_a_mistake_across_variants_and_files_each_note_where_it_belongs(path):
    summary = reports.summary_path(path["out"]).read_text(encoding="utf-8")
    q1 = summary.split("## q1: the commonest mistakes")[1].split("##")[0]
    assert "- 2 x a …-byte budget fits the newest turn too" in q1  # Zoë's and Alan's, one kind
    heading = {kind: f"## {title}" for kind, title in reports.NOTE_LISTS}
    assert heading["ran out"] not in summary  # every notebook ran to the end
    look = summary.split(heading["look at"])[1].split("##")[0]
    assert "` grace-hopper.ipynb `" in look
    assert "` katherine-johnson.ipynb `" in summary.split(heading["not graded"])[1]
    files = summary.split("## The class's files")[1]
    says(files, "smithbob_777_9007_10-exercises.ipynb", "no student", in_order=True)
    says(files, "Moodle", "participant id", "ada-lovelace, grace-hopper, katherine-johnson, "
         "zoe-ni-bhriain", in_order=True)


@pytest.mark.slow  # runs kernels
def test_the_gradebooks_are_as_canvas_and_moodle_import_them(path):
    canvas = read_csv(reports.teacher_file(path["out"], "canvas"))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                         "LedgerLab exercises"]
    assert canvas[1] == ["Points Possible", "", "", "", "", str(len(EXERCISES))]
    scores = {row[0]: (row[1], row[5]) for row in canvas[2:]}
    grace = path["rows"]["grace-hopper.ipynb"]["score"]
    assert scores == {"Ada Lovelace": ("101", ALL), "Grace Hopper": ("102", grace),
                      "Zoë Ní Bhriain": ("103", ALL_BUT_ONE), "Alan Turing": ("", ALL_BUT_ONE),
                      "Katherine Johnson": ("", "0")}
    moodle = read_csv(reports.teacher_file(path["out"], "moodle"))
    assert moodle[0] == ["Identifier", "Full name", "Grade", "Maximum Grade",
                         "Last modified (grade)", "Feedback comments"]
    assert [row[:4] for row in moodle[1:]] == [["Participant 555", "Alan Turing", ALL_BUT_ONE,
                                                ALL]]
    assert moodle[1][5] == "Exercises right: " + ", ".join(
        str(number) for number in range(2, len(EXERCISES) + 1))


@pytest.mark.slow  # runs kernels
def test_the_written_report_has_a_rubric_and_a_place_to_score_each_answer(path):
    page = reports.written_path(path["out"]).read_text(encoding="utf-8")
    scoring = page.split("## Scoring the answers in words")[1]
    part = scoring.split("### Score 01-3 (out of 2)")[1].split("###")[0]
    assert f"- {RUBRICS['01-3'][0]}" in part and f"- {RUBRICS['01-3'][1]}" in part
    assert "| ` ada-lovelace.ipynb ` |  |  |" in part and "| ` zoe-ni-bhriain.ipynb ` |  |  |" in part
    scores = list(csv.DictReader(io.StringIO(reports.teacher_file(path["out"], "written scores").read_text(
        encoding="utf-8"))))
    assert {(row["submission"], row["question"], row["out of"]) for row in scores} >= {
        ("ada-lovelace.ipynb", "01-3", "2"), ("zoe-ni-bhriain.ipynb", "01-3", "2")}
