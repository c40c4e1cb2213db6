"""A class of three graded in the sandbox: each on their own variant, a copied notebook on the
copier's, and the answers in words collected for the teacher."""

import csv

import nbformat
import pytest

from ledgerlab.course.exercises import EXERCISES, variant
from ledgerlab.course.grading import editions, judge, reports, roster

from sandbox_required import sandbox_or_skip
from solved import solve

SANDBOXED = sandbox_or_skip()
SECRET = b"a teacher's secret, kept off the class's machines"
CLASS = ["Ada Lovelace", "Grace Hopper", "Zoë Ní Bhriain"]
CELL_TIMEOUT = 20  # seconds: as tests/course/test_grading.py
WRITTEN = "Kept in the ledger: <b>every</b> request is projected anew."


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    build = editions.build_assignment(tmp_path_factory.mktemp("build") / "assignment",
                                      names=CLASS, secret=SECRET)
    submissions = tmp_path_factory.mktemp("submissions")
    for author, filed in (("ada-lovelace", "ada-lovelace"), ("ada-lovelace", "grace-hopper"),
                          ("zoe-ni-bhriain", "Zoe Ni Bhriain")):
        notebook = editions.filled_edition(nbformat.read(
            build / "students" / author / editions.EXERCISES_NOTEBOOK, as_version=4))
        for cell in notebook.cells:
            if cell.metadata.get("ledgerlab", {}).get("written") == "01-3" and filed != "grace-hopper":
                cell.source = WRITTEN
        nbformat.write(notebook, submissions / f"{filed}.ipynb")
    out = tmp_path_factory.mktemp("out") / "grades.csv"
    judge.grade(submissions, out, build / "autograder", cell_timeout=CELL_TIMEOUT, jobs=2,
                sandboxed=SANDBOXED)
    keys = roster.read_keys(build / "autograder")
    with open(out, newline="") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}, out, keys


@pytest.mark.slow  # runs kernels
def test_each_student_scores_full_marks_on_their_own_variant(graded):
    table = graded[0]
    assert table["ada-lovelace.ipynb"]["score"] == str(len(EXERCISES))
    assert table["Zoe Ni Bhriain.ipynb"]["score"] == str(len(EXERCISES))  # filed as zoe-ni-bhriain


@pytest.mark.slow  # runs kernels
def test_a_notebook_copied_from_a_classmate_scores_only_what_is_right_for_the_copier(graded):
    row = graded[0]["grace-hopper.ipynb"]
    ada, grace = (variant(graded[2][name]) for name in ("ada-lovelace", "grace-hopper"))
    answers = solve(ada)
    # What Ada's answers earn on Grace's variant, judged here: the two functions (java_length,
    # find_orphans) whatever the variant, and a value only where it happens to be right.
    right = {e.name: str(int(bool(e.grade(*answers[e.name], fixture=grace)))) for e in EXERCISES}
    assert {name: row[name] for name in right} == right
    assert right["q3"] == right["q9"] == "1"
    values = ("q2", "q4", "q5", "q6", "q7", "q8", "q10", "q11", "q12")
    assert [right[name] for name in values] == ["0"] * len(values)
    assert int(row["score"]) <= 4


@pytest.mark.slow  # runs kernels
def test_the_answers_in_words_reach_the_teachers_page_quoted_and_inert(graded):
    out = graded[1]
    page = reports.written_path(out).read_text()
    assert "Kept in the ledger: &lt;b&gt;every&lt;/b&gt; request is projected anew." in page
    assert "<b>" not in page and "**Model answer.**" in page
    assert "Answered by 2 of 3." in page.split("## 02-3")[0]
