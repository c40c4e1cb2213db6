"""A handed-in notebook as the grader reads it: a malformed one is that student's 0 with a
reason while every other student is graded; saved outputs never reach validation, the file
is parsed once, and the grader's reading counts against the notebook's time limit."""

import csv
import json

import nbformat
import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import judge, reports, roster, sandbox

SECRET = b"a teacher's secret, kept off the class's machines"
CLASS = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Katherine Johnson"]
NAMES = list(GRADED)


def code_cell(**fields):
    return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": "x = 1", **fields}


def notebook_json(*cells, minor=5):
    cells = [{"id": f"c{number}", **cell} if isinstance(cell, dict) else cell
             for number, cell in enumerate(cells)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": minor})


def without(cell, field):
    return {key: value for key, value in cell.items() if key != field}


# Each passed nbformat.reads (which only logs what is invalid), then crashed the grader.
MALFORMED = {
    "no source": (notebook_json(code_cell(), without(code_cell(), "source")),
                  "cell 2 has no source"),
    "a number as source": (notebook_json(code_cell(source=7)),
                           "cell 1 has a source that is not text"),
    "no cell_type": (notebook_json(code_cell(), without(code_cell(), "cell_type")),
                     "cell 2 has no cell_type"),
}


def autograder(folder, names):
    """An assignment's autograder folder as make assignment writes it, without the build."""
    folder.mkdir()
    roster.write_roster(folder, roster.assign(names, SECRET, set()))
    (folder / "assignment.json").write_text(json.dumps(
        {"exercises": [{"name": name, "points": 1} for name in NAMES]}))
    return folder


def nothing_came_back(monkeypatch):
    """sandbox.run replaced: no kernel runs; it records what it was handed."""
    handed = []

    def run(data, names, *, cell_timeout, notebook_timeout, sandboxed=True):
        handed.append({"data": data, "notebook_timeout": notebook_timeout})
        return sandbox.Outcome({}, "", 0.0)

    monkeypatch.setattr(judge.sandbox, "run", run)
    return handed


def test_a_malformed_notebook_is_not_graded_and_everyone_else_is(tmp_path, monkeypatch):
    keys = roster.read_keys(autograder(tmp_path / "autograder", CLASS))
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    files = sorted(keys)
    good = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"from ledgerlab.course.exercises import use_variant\nuse_variant({keys[files[0]]!r})")])
    nbformat.write(good, submissions / f"{files[0]}.ipynb")
    for file, (text, _) in zip(files[1:], MALFORMED.values()):
        (submissions / f"{file}.ipynb").write_text(text)
    handed = nothing_came_back(monkeypatch)
    out = tmp_path / "out" / "grades.csv"
    results = judge.grade(submissions, out, tmp_path / "autograder", sandboxed=False)
    assert len(handed) == 1  # only the good notebook reached the sandbox
    with open(out, newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {f"{file}.ipynb" for file in files}
    for file, (_, reason) in zip(files[1:], MALFORMED.values()):
        assert rows[f"{file}.ipynb"]["score"] == ""  # no score: not a 0 for its answers
        assert rows[f"{file}.ipynb"]["note"] == f"not a valid notebook ({reason}): not graded"
    assert rows[f"{files[0]}.ipynb"]["note"] == ""
    assert len(list(out.with_name("grades-feedback").glob("*.md"))) == len(results) == 4
    assert out.with_name("grades-summary.md").is_file()
    assert out.with_name("grades-written.md").is_file()


@pytest.mark.parametrize("text, reason", [
    (b"\xff\xfe{}", "not a notebook (not UTF-8 text)"),
    (b"[" * 100_000, "not a notebook (not JSON)"),
    (b'{"cells": [], "metadata": {}, "nbformat": 5, "nbformat_minor": 0}',
     "not a valid notebook (not a notebook of format 4)"),
    (notebook_json(code_cell(), "a string").encode(), "not a valid notebook (cell 2 is not a cell)"),
    (notebook_json(code_cell(cell_type="sql")).encode(),
     "not a valid notebook (cell 1 has a cell_type that is not code, markdown or raw)"),
    # nbformat's own check, after grading's: named by cell, never by the key it quotes.
    (notebook_json(code_cell(), code_cell(metadata=5)).encode(),
     "not a valid notebook (cell 2 does not follow the notebook format)"),
    (notebook_json(code_cell(**{"secret-key-of-the-student": 1})).encode(),
     "not a valid notebook (cell 1 does not follow the notebook format)"),
])
def test_each_malformed_shape_is_refused_by_cell_number_never_by_content(tmp_path, text, reason):
    path = tmp_path / "a.ipynb"
    path.write_bytes(text)
    assert judge.read_submission(path) == f"{reason}: not graded"


def test_a_notebook_of_format_4_0_with_list_sources_is_read(tmp_path):
    path = tmp_path / "old.ipynb"
    path.write_text(notebook_json({"cell_type": "markdown", "metadata": {}, "source": ["a\n", "b"]},
                                  code_cell(source=["n = ", "3"]), minor=0))
    data = judge.read_submission(path)
    assert isinstance(data, bytes)
    assert [cell["source"] for cell in json.loads(data)["cells"]] == ["a\nb", "n = 3"]


def outputs_notebook(count):
    """A notebook whose one code cell holds ``count`` invalid outputs: nbformat took about
    1 ms for each, twice, before the sandbox's clock started."""
    bad = [{"output_type": "stream", "name": "stdout", "bogus": number} for number in range(count)]
    return notebook_json(code_cell(source="n = 3", outputs=bad))


def test_outputs_never_reach_validation_and_the_notebook_is_parsed_once(tmp_path, monkeypatch):
    path = tmp_path / "outputs.ipynb"
    path.write_text(outputs_notebook(2_000))
    validate, seen = nbformat.validate, []

    def counting(notebook, *args, **kwargs):
        seen.append(sum(len(cell.get("outputs", [])) for cell in notebook["cells"]))
        return validate(notebook, *args, **kwargs)

    monkeypatch.setattr(nbformat, "validate", counting)  # nbformat.reads calls it too
    handed = nothing_came_back(monkeypatch)
    result = judge.grade_submission(path, NAMES, sandboxed=False)
    assert seen == [0]  # validated once, without a single output
    ran = json.loads(handed[0]["data"])  # and the sandbox runs the notebook without them
    assert [cell["outputs"] for cell in ran["cells"]] == [[]]
    assert ran["cells"][0]["source"] == "n = 3" and result.note == ""


class Clock:
    """time.monotonic for judge, moved on by hand: no test waits on a real clock."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now


@pytest.mark.parametrize("reading, left", [(100, 500), (700, None)])
def test_the_graders_reading_counts_against_the_notebooks_time_limit(tmp_path, monkeypatch,
                                                                     reading, left):
    path = tmp_path / "slow.ipynb"
    path.write_text(outputs_notebook(11))
    clock, validate = Clock(), nbformat.validate

    def slow(notebook, *args, **kwargs):
        clock.now += reading  # as long as validating a hostile file could take
        return validate(notebook, *args, **kwargs)

    monkeypatch.setattr(judge, "time", clock)
    monkeypatch.setattr(nbformat, "validate", slow)
    handed = nothing_came_back(monkeypatch)
    result = judge.grade_submission(path, NAMES, sandboxed=False, notebook_timeout=600)
    if left is None:
        assert not handed and not any(result.verdicts.values())
        assert result.note == "stopped: reading the notebook took longer than its time limit"
    else:
        assert [run["notebook_timeout"] for run in handed] == [left]


def test_a_malformed_notebook_is_said_as_not_graded_on_every_page(tmp_path, monkeypatch):
    """Before, its student got 0 with the reason in grades.csv, but the feedback page said
    "Not answered yet" for each exercise, the summary counted it as not answered, and the
    Moodle comment said "Exercises right: none"."""
    keys = roster.read_keys(autograder(tmp_path / "autograder", CLASS))
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    files = sorted(keys)  # ada-lovelace, alan-turing, grace-hopper, katherine-johnson
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]),
                   submissions / f"{files[0]}.ipynb")
    (submissions / f"{files[1]}.ipynb").write_text(MALFORMED["no source"][0])
    (submissions / "collected.json").write_text(json.dumps({"students": {
        file: {"source": f"{file}_{number}_assignsubmission_file_x.ipynb", "platform": "moodle",
               "id": str(500 + number)} for number, file in enumerate(files)}}))
    nothing_came_back(monkeypatch)
    out = tmp_path / "out" / "grades.csv"
    results = judge.grade(submissions, out, tmp_path / "autograder", sandboxed=False)
    malformed = next(result for result in results if result.submission == f"{files[1]}.ipynb")
    page = (out.with_name("grades-feedback") / reports.feedback_name(malformed.submission)
            ).read_text(encoding="utf-8")
    assert "**Not graded**: not a valid notebook (cell 2 has no source)." in page
    assert "Not answered yet" not in page and f"None of its {len(NAMES)} exercises" in page
    assert "Score" not in page  # not "Score: 0": no answer of it was judged
    summary = out.with_name("grades-summary.md").read_text(encoding="utf-8")
    # Ada's ran and answered nothing; Alan's is malformed, Grace and Katherine handed nothing in.
    assert "| exercise | right | not yet | not answered | not graded |" in summary
    assert all(f"| {name} | 0 | 0 | 1 | 3 |" in summary for name in NAMES)
    with open(out.with_name("grades-moodle.csv"), newline="", encoding="utf-8") as handle:
        worksheet = list(csv.DictReader(handle))
    comments = {row["Identifier"]: row["Feedback comments"] for row in worksheet}
    # A blank grade, which Moodle's import skips, taking the comment: before, a 0 went into
    # the gradebook (and Canvas's) for a file no one could grade. Nothing handed in is a 0.
    assert {row["Identifier"]: row["Grade"] for row in worksheet} == {
        "Participant 500": "0", "Participant 501": "", "Participant 502": "0",
        "Participant 503": "0"}
    with open(out.with_name("grades-canvas.csv"), newline="", encoding="utf-8") as handle:
        canvas = {row[0]: row[-1] for row in csv.reader(handle)}
    assert [canvas[name] for name in CLASS] == ["0", "0", "", "0"]  # Alan Turing's: blank
    with open(out, newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    assert rows[f"{files[1]}.ipynb"]["score"] == "" and rows[f"{files[2]}.ipynb"]["score"] == "0"
    assert comments == {
        "Participant 500": "Exercises right: none",
        "Participant 501": "Not graded: not a valid notebook (cell 2 has no source)",
        "Participant 502": f"Not graded: {judge.NOTHING_HANDED_IN}",
        "Participant 503": f"Not graded: {judge.NOTHING_HANDED_IN}"}


def answered(monkeypatch, answers):
    """sandbox.run replaced: the kernel hands back ``answers`` (exercise -> variables)."""
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome(answers, "", 0.0))


Q1 = {"history": {"list": []}, "budget": {"missing": True}, "predicted_kept": {"int": 1}}


@pytest.mark.parametrize("cells, why", [
    # The answer cell kept, its budget line taken out.
    ([("history = []\npredicted_kept = 1", "q1")],
     ": exercise 1's answer cell was changed and no cell assigns it"),
    ([("history = []\npredicted_kept = 1", None)],
     ": exercise 1's answer cell is not in the notebook (removed), and no cell assigns it"),
    ([("history, budget, predicted_kept = [], 5, 1", "q1"), ("del budget", None)],
     " when the grader read exercise 1's answers, though a cell assigns it: that cell "
     "stopped with an error first, or a later cell deleted it"),
])
def test_a_missing_answer_variable_is_said_with_what_the_notebook_did(tmp_path, monkeypatch,
                                                                      cells, why):
    """Before, each was "no variable named budget", whatever had happened to it."""
    notebook = nbformat.v4.new_notebook()
    for source, answer in cells:
        cell = nbformat.v4.new_code_cell(source)
        if answer:
            cell.metadata["ledgerlab"] = {"answer": answer}
        notebook.cells.append(cell)
    nbformat.write(notebook, tmp_path / "a.ipynb")
    answered(monkeypatch, {"q1": Q1})
    verdict = judge.grade_submission(tmp_path / "a.ipynb", ["q1"], sandboxed=False).verdicts["q1"]
    assert verdict.status == "unanswered"
    assert verdict.message.startswith(f"no variable named budget{why}")


def test_the_grader_warns_once_when_it_runs_as_root(tmp_path, monkeypatch, capsys):
    for name in ("a", "b", "c"):
        nbformat.write(nbformat.v4.new_notebook(), tmp_path / f"{name}.ipynb")
    nothing_came_back(monkeypatch)
    monkeypatch.setattr(judge.os, "geteuid", lambda: 0)
    judge.grade(tmp_path, tmp_path / "out" / "grades.csv", jobs=2, sandboxed=False)
    errors = capsys.readouterr().err
    assert errors.count("running as root") == 1 and "Run the grader as an ordinary user" in errors
    monkeypatch.setattr(judge.os, "geteuid", lambda: 1000)
    judge.grade(tmp_path, tmp_path / "out" / "grades.csv", sandboxed=False)
    assert "root" not in capsys.readouterr().err
