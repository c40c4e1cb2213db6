"""The learner's progress: each check recorded in their own folder, and 00's table of it
(ledgerlab/course/progress.py, contents.py)."""

from __future__ import annotations

import json
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ledgerlab.course import contents, exercises, feedback, progress, questions, syllabus
from ledgerlab.course.feedback import Question, Questionnaire

from sentences import says, saying

ROOT = Path(__file__).resolve().parents[2]


class Shell:
    """What IPython's get_ipython() returns inside a kernel: anything but None."""


@pytest.fixture
def in_a_kernel(tmp_path, monkeypatch):
    """A learner's notebook: run from ``tmp_path``, in a kernel, with progress on."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(progress.SWITCH, raising=False)
    fake = type(sys)("IPython")
    fake.get_ipython = Shell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    return tmp_path


def saved(folder: Path) -> dict:
    return json.loads((folder / progress.FILE).read_text(encoding="utf-8"))["answers"]


def test_a_check_in_a_kernel_records_its_outcome_and_never_the_answer(in_a_kernel):
    assert not questions.predict04_first.check(407)
    assert questions.quiz04[3].check(1)
    questions.predict04.check(...)  # not answered: nothing to record
    answers = saved(in_a_kernel)
    assert set(answers) == {"predict04_first", "quiz04[3]"}
    assert answers["predict04_first"]["right"] is False and answers["quiz04[3]"]["right"] is True
    assert answers["predict04_first"]["checks"] == 1
    datetime.fromisoformat(answers["quiz04[3]"]["at"])  # a timestamp
    assert "407" not in (in_a_kernel / progress.FILE).read_text(encoding="utf-8")
    assert questions.predict04_first.check(308)  # the last check is what counts
    assert saved(in_a_kernel)["predict04_first"] == {
        "right": True, "at": saved(in_a_kernel)["predict04_first"]["at"], "checks": 2}


def test_an_exercise_check_is_recorded_and_a_grade_is_not(in_a_kernel):
    exercises.q6.check(..., ...)
    assert not (in_a_kernel / progress.FILE).exists()
    exercises.q6.check(0, 0)
    assert saved(in_a_kernel)["q6"]["right"] is False
    (in_a_kernel / progress.FILE).unlink()
    exercises.q6.grade(0, 0)  # the grader's judgement: no learner's progress
    assert not (in_a_kernel / progress.FILE).exists()


def test_nothing_is_recorded_outside_a_kernel_or_when_switched_off(in_a_kernel, monkeypatch):
    monkeypatch.setenv(progress.SWITCH, "off")
    questions.predict04_first.check(308)
    assert not (in_a_kernel / progress.FILE).exists()
    monkeypatch.delenv(progress.SWITCH)
    monkeypatch.delitem(sys.modules, "IPython")  # plain Python: the grader, a script
    questions.predict04_first.check(308)
    assert not (in_a_kernel / progress.FILE).exists()


def test_the_table_lists_every_checked_item_and_what_was_answered(in_a_kernel):
    fresh = contents.progress_table()
    assert fresh.note == "" and {row[2] for row in fresh.rows} == {"no"}
    assert fresh.summary.startswith(f"0 of {len(fresh.rows)} answered, 0 right")
    checked = [q for quiz in vars(questions).values() if isinstance(quiz, Questionnaire)
               for q in quiz.questions if isinstance(q, Question)]
    predictions = [q for name, q in vars(questions).items()
                   if name.startswith("predict") and isinstance(q, Question)]
    optional = sum(map(len, exercises.OPTIONAL.values()))
    assert len(fresh.rows) == len(checked) + len(predictions) + len(exercises.EXERCISES) + optional
    questions.quiz04[3].check(1)
    questions.quiz04[2].check(1)
    exercises.q2.check(0)
    rows = {(lesson, item): (answered, right) for lesson, item, answered, right, _, _
            in contents.progress_table().rows}
    assert rows[("04 · The boundary table", "quiz 3")] == ("yes", "yes")
    assert rows[("04 · The boundary table", "quiz 2")] == ("yes", "not yet")
    assert rows[("04 · The boundary table", "quiz 1")] == ("no", "")
    assert rows[(syllabus.EXERCISES.heading, "exercise 2")] == ("yes", "not yet")
    shown = contents.progress_table()
    assert shown.summary.startswith("3 of ") and ", 1 right" in shown.summary
    assert "<td>not yet</td>" in shown._repr_html_() and "quiz 2" in repr(shown)


def test_the_table_names_items_by_number_not_by_what_they_ask():
    items = contents.items()
    assert len({key for _, _, key in items}) == len(items)
    for lesson, item, _ in items:
        assert item.split()[0] in ("prediction", "quiz", "exercise") and item.split()[1].isdigit()


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe", b"[1, 2]",
                                     b'{"version": 99, "answers": {}}'])
def test_a_corrupt_file_is_kept_aside_and_progress_starts_afresh(in_a_kernel, content):
    (in_a_kernel / progress.FILE).write_bytes(content)
    table = contents.progress_table()
    assert "starts afresh" in table.note and table.note in repr(table)
    assert {row[2] for row in table.rows} == {"no"}
    assert questions.quiz04[3].check(1)  # the check itself is unaffected
    assert set(saved(in_a_kernel)) == {"quiz04[3]"}
    assert (in_a_kernel / (progress.FILE + ".unreadable")).read_bytes() == content
    assert contents.progress_table().note == ""


def test_entries_of_the_wrong_shape_are_left_out(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.SWITCH, raising=False)
    (tmp_path / progress.FILE).write_text(json.dumps({"version": 1, "answers": {
        "quiz04[3]": {"right": "yes", "at": "x"}, "q1": {"right": True, "at": "2026"}}}))
    assert set(progress.load(tmp_path).answers) == {"q1"}


def test_a_folder_that_cannot_be_written_records_nothing_and_the_check_still_answers(
        in_a_kernel, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError("read-only")
    monkeypatch.setattr(progress.tempfile, "mkstemp", refuse)
    assert questions.quiz04[3].check(1)
    assert not progress.record("q1", True, in_a_kernel)
    assert not (in_a_kernel / progress.FILE).exists()


def test_the_write_is_atomic_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.SWITCH, raising=False)
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert progress.record("q1", True, tmp_path, now=when)
    real_replace = progress.os.replace

    def crash(*args):
        raise OSError("disk gone")
    monkeypatch.setattr(progress.os, "replace", crash)
    assert not progress.record("q1", False, tmp_path)
    monkeypatch.setattr(progress.os, "replace", real_replace)
    assert sorted(p.name for p in tmp_path.iterdir()) == [progress.FILE]
    assert progress.load(tmp_path).answers["q1"] == {"right": True,
                                                      "at": "2026-01-02T03:04:05+00:00",
                                                      "checks": 1}


def test_recording_and_the_table_use_no_network(in_a_kernel, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("progress opened a socket")
    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    questions.quiz04[3].check(1)
    exercises.q2.check(0)
    assert "2 of " in contents.progress_table().summary


def test_the_saved_contents_page_shows_a_fresh_learners_table():
    """00's saved output is what a fresh learner sees: the course's runs switch progress off
    (tools/run_notebooks.py and notebooks/conftest.py), so 01 to 11 checked before it in the
    same folder change nothing."""
    cells = json.loads((ROOT / "notebooks" / "00-contents.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in cells["cells"] if "progress_table()" in "".join(c["source"])]
    shown = "".join(cell["outputs"][0]["data"]["text/plain"])
    table = contents.ProgressTable([(lesson, item, "no", "", "", "") for lesson, item, _ in
                                    contents.items()])
    assert shown == repr(table) and shown.startswith("0 of ")
    for runner in (ROOT / "tools" / "run_notebooks.py", ROOT / "notebooks" / "conftest.py"):
        assert f'os.environ["{progress.SWITCH}"] = "off"' in runner.read_text(encoding="utf-8")


# --- Hints and solutions shown, and each lesson's totals (issue 48) ------------------------

def test_a_hint_or_a_solution_shown_is_recorded_and_the_table_says_so(in_a_kernel, monkeypatch):
    """Before, hint() and solution() left no trace: the table could not tell an answer found
    alone from one read off its solution."""
    monkeypatch.setattr(feedback, "_hidden_solutions", False)  # the self-paced edition
    questions.quiz04[3].hint()
    questions.quiz04[3].hint()
    questions.predict04_first.solution()
    exercises.q2.hint()
    assert "Solution" in str(exercises.q2.solution())  # the self-paced edition shows it
    answers = saved(in_a_kernel)
    assert answers["quiz04[3]"] == {"hints": 2}
    assert answers["predict04_first"] == {"solutions": 1}
    assert answers["q2"] == {"hints": 1, "solutions": 1}
    assert questions.quiz04[3].check(1)
    assert saved(in_a_kernel)["quiz04[3]"]["hints"] == 2  # a check keeps the count
    rows = {(row[0], row[1]): row[2:] for row in contents.progress_table().rows}
    assert rows[("04 · The boundary table", "quiz 3")] == ("yes", "yes", "yes", "")
    assert rows[("04 · The boundary table", "prediction 1")] == ("no", "", "", "yes")
    assert rows[(syllabus.EXERCISES.heading, "exercise 2")] == ("no", "", "yes", "yes")
    shown = contents.progress_table()
    says(shown.summary, 1, "answered", 1, "right", 2, "hint", 2, "solution", in_order=True)
    assert "<th>hint?</th>" in shown._repr_html_() and "solution?" in repr(shown)


def test_a_hidden_solution_or_one_outside_a_kernel_records_nothing(in_a_kernel, monkeypatch):
    monkeypatch.setattr(feedback, "_hidden_solutions", True)  # the graded edition
    assert "hidden" in str(exercises.q2.solution())
    monkeypatch.delitem(sys.modules, "IPython")  # plain Python
    questions.quiz04[3].hint()
    assert not (in_a_kernel / progress.FILE).exists()


def test_each_lesson_has_its_totals(in_a_kernel):
    lesson = "04 · The boundary table"
    size = sum(item[0] == lesson for item in contents.items())
    questions.quiz04[3].check(1)
    questions.quiz04[2].check(1)
    questions.quiz04[1].hint()
    table = contents.progress_table()
    totals = {row[0]: row[1:] for row in table.totals}
    assert list(totals) == list(dict.fromkeys(lesson for lesson, _, _ in contents.items()))
    assert totals[lesson] == (f"2 of {size}", f"1 of {size}", "1", "0")
    assert all(row[1].startswith("0 of ") for name, row in totals.items() if name != lesson)
    assert f"2 of {size}" in repr(table) and f"<td>1 of {size}</td>" in table._repr_html_()


def test_counts_of_the_wrong_shape_are_left_out(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.SWITCH, raising=False)
    (tmp_path / progress.FILE).write_text(json.dumps({"version": 1, "answers": {
        "q1": {"hints": "2"}, "q2": {"hints": -1}, "q3": {"solutions": 1},
        "q4": {"right": True, "at": "2026", "hints": True}, "q5": {}}}))
    assert progress.load(tmp_path).answers == {"q3": {"solutions": 1}}
    with pytest.raises(ValueError, match=saying("kind", "hint", "solution")):
        progress.record_shown("q1", "answer", tmp_path)
