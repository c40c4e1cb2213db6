"""A damaged autograder/assignment.json is refused with what is wrong, as roster.json is:
no traceback, nothing graded or written."""

import json

import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import cli, judge

GOOD = {"exercises": [{"name": name, "points": 1} for name in GRADED], "cell_timeout": 30,
        "notebook_timeout": 600}


def damaged(change):
    manifest = json.loads(json.dumps(GOOD))
    change(manifest)
    return json.dumps(manifest)


CASES = {
    "not JSON": ("{not json", "it is not JSON"),
    "not a dict": ("[]", "it has no list of exercises"),
    "no exercises": (damaged(lambda m: m.pop("exercises")), "it has no list of exercises"),
    "an unknown exercise": (damaged(lambda m: m["exercises"][2].update(name="q99")),
                            "its entry 3 is not an exercise of the course"),
    "points a string": (damaged(lambda m: m["exercises"][1].update(points="x")),
                        "exercise 2's points are not a whole number from 0 to 1,000"),
    "points true": (damaged(lambda m: m["exercises"][0].update(points=True)),
                    "exercise 1's points are not a whole number from 0 to 1,000"),
    "an exercise twice": (damaged(lambda m: m["exercises"].append({"name": "q4", "points": 1})),
                          "exercise 4 is listed twice"),
    "a timeout string": (damaged(lambda m: m.update(cell_timeout="30")),
                         "its cell_timeout is not a whole number of seconds from 1 to 86,400"),
    "a timeout of 0": (damaged(lambda m: m.update(notebook_timeout=0)),
                       "its notebook_timeout is not a whole number of seconds from 1 to 86,400"),
}


@pytest.mark.parametrize("text, reason", CASES.values(), ids=CASES)
def test_a_damaged_manifest_is_refused_and_nothing_is_graded_or_written(tmp_path, monkeypatch,
                                                                      capsys, text, reason):
    (tmp_path / "autograder").mkdir()
    (tmp_path / "autograder" / "assignment.json").write_text(text)
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "a.ipynb").write_text("{}")

    def never(*_, **__):
        raise AssertionError("graded although the manifest is damaged")

    monkeypatch.setattr(judge, "grade_submission", never)
    out = tmp_path / "out" / "grades.csv"
    code = cli.main(["grade", str(tmp_path / "submissions"), "--out", str(out), "--autograder",
                     str(tmp_path / "autograder"), "--unsafe-no-sandbox"])
    assert code == 2
    assert capsys.readouterr().err == (f"grade: assignment.json is not one that make assignment "
                                       f"wrote: {reason} (nothing was graded or written)\n")
    assert not out.parent.exists()


def test_a_missing_manifest_says_how_to_make_one(tmp_path, capsys):
    (tmp_path / "autograder").mkdir()
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "a.ipynb").write_text("{}")
    assert cli.main(["grade", str(tmp_path / "submissions"), "--out", str(tmp_path / "g.csv"),
                     "--autograder", str(tmp_path / "autograder"), "--unsafe-no-sandbox"]) == 2
    assert "has no assignment.json: build the assignment" in capsys.readouterr().err
