"""The grading command's numbers: each is a whole number in its bounds, said in --help; any
other value is argparse's error (exit 2) naming the argument, before anything runs."""

import pytest

from ledgerlab.course.grading import judge
from ledgerlab.course.grading import cli as grading_cli
from ledgerlab.course.grading.manifest import MAX_TIMEOUT


@pytest.mark.parametrize("argument, value", [
    ("--cell-timeout", "0"), ("--cell-timeout", "-1"), ("--cell-timeout", "1.5"),
    ("--cell-timeout", "9" * 20), ("--cell-timeout", str(MAX_TIMEOUT + 1)),
    ("--cell-timeout", ""), ("--jobs", "0"), ("--jobs", "-1"), ("--jobs", "+2"),
    ("--jobs", str(grading_cli.MAX_JOBS + 1)), ("--jobs", "1e3"), ("--jobs", "٣"),
])
def test_a_number_out_of_its_bounds_is_an_argparse_error_naming_it(tmp_path, capsys,
                                                                   argument, value):
    (tmp_path / "a.ipynb").write_text("{}")
    out = tmp_path / "grades.csv"
    with pytest.raises(SystemExit) as stopped:
        grading_cli.main(["grade", str(tmp_path), "--out", str(out), f"{argument}={value}"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argument}: must be a whole number from 1 to " in err
    assert not out.exists()


def test_the_bounds_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        grading_cli.main(["grade", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"from 1 to {MAX_TIMEOUT:,} seconds" in help_text
    assert f"from 1 to {grading_cli.MAX_JOBS} (default 1)" in help_text


@pytest.mark.parametrize("argument, value, expected", [
    ("--cell-timeout", "1", 1), ("--cell-timeout", str(MAX_TIMEOUT), MAX_TIMEOUT),
    ("--jobs", "1", 1), ("--jobs", str(grading_cli.MAX_JOBS), grading_cli.MAX_JOBS),
])
def test_the_bounds_themselves_are_taken(monkeypatch, tmp_path, argument, value, expected):
    taken = {}

    def grade(submissions, out, autograder, **options):
        taken.update(options)
        return []

    monkeypatch.setattr(grading_cli, "grade", grade)
    (tmp_path / "a.ipynb").write_text("{}")
    assert grading_cli.main(["grade", str(tmp_path), "--unsafe-no-sandbox", argument, value]) == 0
    assert taken[argument.removeprefix("--").replace("-", "_")] == expected


@pytest.mark.parametrize("keywords, name", [
    ({"jobs": 0}, "jobs"), ({"jobs": -1}, "jobs"), ({"jobs": 65}, "jobs"), ({"jobs": 1.5}, "jobs"),
    ({"cell_timeout": 0}, "cell_timeout"), ({"cell_timeout": -5}, "cell_timeout"),
    ({"cell_timeout": 10**20}, "cell_timeout"), ({"cell_timeout": True}, "cell_timeout")])
def test_grade_from_python_bounds_its_numbers_as_the_command_line_does(tmp_path, keywords, name):
    """0 or less would turn a limit off; nothing is graded or written for a bad number."""
    submissions, out = tmp_path / "in", tmp_path / "out"
    submissions.mkdir()
    with pytest.raises((TypeError, ValueError), match=name):
        judge.grade(submissions, out, **keywords)
    assert not out.exists()
