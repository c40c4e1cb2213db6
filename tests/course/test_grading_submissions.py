"""A handed-in notebook as the grader reads it: a malformed one is that student's 0 with a
reason while every other student is graded; saved outputs never reach validation, the file
is parsed once, and the grader's reading counts against the notebook's time limit."""

import csv
import json

import nbformat
import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import judge, roster, sandbox

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


def test_a_malformed_notebook_is_its_students_zero_and_everyone_else_is_graded(tmp_path,
                                                                                monkeypatch):
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
        assert rows[f"{file}.ipynb"]["score"] == "0"
        assert rows[f"{file}.ipynb"]["note"] == f"not a valid notebook ({reason}): not graded"
    assert rows[f"{files[0]}.ipynb"]["note"] == ""
    assert len(list(out.with_name("grades-feedback").iterdir())) == len(results) == 4
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
