"""A damaged autograder/assignment.json is refused with what is wrong, as roster.json is:
no traceback, nothing graded or written."""

import json

import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import cli, judge
from sentences import says

GOOD = {"exercises": [{"name": name, "points": 1} for name in GRADED], "cell_timeout": 30,
        "notebook_timeout": 600}


def damaged(change):
    manifest = json.loads(json.dumps(GOOD))
    change(manifest)
    return json.dumps(manifest)


# What each refusal must name: the entry or field that is wrong and the range it must be in.
CASES = {
    "not JSON": ("{not json", ("JSON",)),
    "not a dict": ("[]", ("exercises",)),
    "no exercises": (damaged(lambda m: m.pop("exercises")), ("exercises",)),
    "an unknown exercise": (damaged(lambda m: m["exercises"][2].update(name="q99")),
                            ("entry 3", "exercise")),
    "points a string": (damaged(lambda m: m["exercises"][1].update(points="x")),
                        ("exercise 2", "points", 0, 1000)),
    "points true": (damaged(lambda m: m["exercises"][0].update(points=True)),
                    ("exercise 1", "points", 0, 1000)),
    "an exercise twice": (damaged(lambda m: m["exercises"].append({"name": "q4", "points": 1})),
                          ("exercise 4", "twice")),
    "a timeout string": (damaged(lambda m: m.update(cell_timeout="30")),
                         ("cell_timeout", "seconds", 1, 86400)),
    "a timeout of 0": (damaged(lambda m: m.update(notebook_timeout=0)),
                       ("notebook_timeout", "seconds", 1, 86400)),
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
    err = capsys.readouterr().err
    assert err.startswith("grade:") and err.count("\n") == 1
    says(err, "assignment.json", "make assignment", *reason, "nothing", in_order=True)
    assert not out.parent.exists()


def test_a_missing_manifest_says_how_to_make_one(tmp_path, capsys):
    (tmp_path / "autograder").mkdir()
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / "a.ipynb").write_text("{}")
    assert cli.main(["grade", str(tmp_path / "submissions"), "--out", str(tmp_path / "g.csv"),
                     "--autograder", str(tmp_path / "autograder"), "--unsafe-no-sandbox"]) == 2
    says(capsys.readouterr().err, "assignment.json", "make assignment", in_order=True)
