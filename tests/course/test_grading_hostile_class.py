"""A class graded with every hostile shape of issue 35 handed in beside two good notebooks:
the good ones get full marks, each hostile one a 0 with a reason, every output file is
written, and the command ends without a traceback."""

import csv
import json
import re

import nbformat
import pytest
from markdown_it import MarkdownIt

from ledgerlab.course.exercises import EXERCISES
from ledgerlab.course.grading import cli, editions, reports, roster

from sandbox_required import sandbox_or_skip

SANDBOXED = sandbox_or_skip()
SECRET = b"a teacher's secret, kept off the class's machines"
LONG = "\U00010330" * 62  # its submission's name is 254 bytes
GOOD = ["Ada Lovelace", "Grace Hopper"]
HOSTILE = ["No Source", "Number Source", "No Cell Type", "Many Outputs", "Huge Float", LONG]
CELL_TIMEOUT = 20  # seconds: as tests/course/test_grading.py
HUGE = ("n = 1e308\njava_budget = type('__init__', (), {})()\nrequests_budget = -1e300\n"
        "java_length = lambda text: 1e308")


def own_notebook(build, file):
    return nbformat.read(build / "students" / file / editions.EXERCISES_NOTEBOOK, as_version=4)


def malformed(notebook, how):
    data = json.loads(nbformat.writes(notebook))
    cell = next(cell for cell in data["cells"] if cell["cell_type"] == "code")
    if how == "no source":
        del cell["source"]
    elif how == "number source":
        cell["source"] = 7
    else:
        del cell["cell_type"]
    return json.dumps(data)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    build = editions.build_assignment(folder / "assignment", names=GOOD + HOSTILE, secret=SECRET)
    files = {name: roster.file_name(name) for name in GOOD + HOSTILE}
    submissions = folder / "submissions"
    submissions.mkdir()
    for name in GOOD:
        notebook = editions.filled_edition(own_notebook(build, files[name]))
        nbformat.write(notebook, submissions / f"{files[name]}.ipynb")
    for name in ("No Source", "Number Source", "No Cell Type"):
        text = malformed(own_notebook(build, files[name]), name.lower())
        (submissions / f"{files[name]}.ipynb").write_text(text)
    outputs = own_notebook(build, files["Many Outputs"])
    first = next(cell for cell in outputs.cells if cell.cell_type == "code")
    first.outputs = [{"output_type": "stream", "name": "stdout", "bogus": i} for i in range(20_000)]
    (submissions / f"{files['Many Outputs']}.ipynb").write_text(json.dumps(outputs))
    huge = own_notebook(build, files["Huge Float"])
    huge.cells.append(nbformat.v4.new_code_cell(HUGE))
    nbformat.write(huge, submissions / f"{files['Huge Float']}.ipynb")
    nbformat.write(own_notebook(build, files[LONG]), submissions / f"{files[LONG]}.ipynb")
    (submissions / "stranger.ipynb").write_text("{}")
    out = folder / "out" / "grades.csv"
    code = cli.main(["grade", str(submissions), "--out", str(out), "--autograder",
                     str(build / "autograder"), "--cell-timeout", str(CELL_TIMEOUT), "--jobs", "2",
                     *([] if SANDBOXED else ["--unsafe-no-sandbox"])])
    with open(out, newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return code, rows, out, files


@pytest.mark.slow  # runs kernels
def test_the_good_notebooks_get_full_marks_beside_every_hostile_one(graded):
    code, rows, _, files = graded
    assert code == 0
    for name in GOOD:
        row = rows[f"{files[name]}.ipynb"]
        assert (row["score"], row["note"]) == (str(len(EXERCISES)), "")


@pytest.mark.slow  # runs kernels
def test_each_hostile_notebook_earns_nothing_with_a_reason(graded):
    _, rows, out, files = graded
    assert len(rows) == len(GOOD) + len(HOSTILE) + 1
    for name, reason in (("No Source", "cell 3 has no source"),
                         ("Number Source", "cell 3 has a source that is not text"),
                         ("No Cell Type", "cell 3 has no cell_type")):
        row = rows[f"{files[name]}.ipynb"]
        # not graded: no score at all, rather than a 0 for answers no one judged
        assert (row["score"], row["note"]) == ("", f"not a valid notebook ({reason}): not graded")
    assert rows["stranger.ipynb"]["score"] == "" and "not graded" in rows["stranger.ipynb"]["note"]
    pages = {path.name: path.read_text(encoding="utf-8")
             for path in out.with_name("grades-feedback").glob("*.md")}
    for name in ("Many Outputs", "Huge Float", LONG):  # run, and every exercise said why
        submission = f"{files[name]}.ipynb"
        assert rows[submission]["score"] == "0"
        page = pages[reports.feedback_name(submission)]
        assert page.count("**Not yet**") + page.count("**Not answered yet**") == len(EXERCISES)
    huge = pages[reports.feedback_name(f"{files['Huge Float']}.ipynb")]
    assert max(map(len, re.findall(r"\d+", huge))) < 10
    assert "<strong>init</strong>" not in MarkdownIt("commonmark").render(huge)


@pytest.mark.slow  # runs kernels
def test_every_output_file_is_written(graded):
    _, rows, out, _ = graded
    assert len(list(out.with_name("grades-feedback").glob("*.md"))) == len(rows)
    summary = reports.summary_path(out).read_text(encoding="utf-8")
    assert summary.startswith(f"# Grading summary: {len(rows)} submissions")
    assert reports.written_path(out).read_text(encoding="utf-8").startswith(
        f"# Written answers: {len(rows)} submissions")
