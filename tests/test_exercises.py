"""The self-checks: solutions pass, wrong answers are told in bytes and turns, text stays private."""

import subprocess
import sys

import pytest

import ledgerlab
from ledgerlab import Turn, byte_breakdown, request_bytes, select
from ledgerlab import exercises
from ledgerlab.exercises import EXERCISES, QUESTION, SYSTEM, q1, q2, q3, q4, q5, q6
from ledgerlab.journal import examine

SECRET = "my password is hunter2"


def run_solution(exercise):
    """Run a solution's code as a learner would paste it; return the last line's value."""
    namespace = {name: getattr(ledgerlab, name) for name in ledgerlab.__all__}
    namespace.update(vars(exercises), examine=examine)
    *body, last = exercise._solution.splitlines()
    exec("\n".join(body), namespace)
    return eval(last.split("#")[0], namespace)


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_every_solution_passes_its_check(exercise):
    feedback = run_solution(exercise)
    assert feedback, repr(feedback)
    assert repr(feedback).startswith("Correct: ")


@pytest.mark.parametrize("exercise, arity", [(q1, 2), (q2, 1), (q3, 1), (q4, 1), (q5, 1), (q6, 2)])
def test_placeholders_read_as_not_answered(exercise, arity):
    feedback = exercise.check(*[...] * arity)
    assert not feedback
    assert repr(feedback).startswith("Not answered yet: ")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_hint_and_solution_show_as_text(exercise):
    assert repr(exercise.hint()).startswith("Hint: ")
    assert repr(exercise.solution()).startswith("Solution:\n")
    assert f"Exercise {exercise.number}:" in repr(exercise)


def sizes_only(history):
    parts = byte_breakdown(SYSTEM, history, QUESTION)
    return parts["envelope"] + parts["system"] + parts["question"], parts["turns"]


def test_q1_says_what_is_wrong_in_bytes_without_the_text():
    history = [Turn("hello", "world"), Turn(SECRET, "x" * 200)]
    mandatory, (older, newest) = sizes_only(history)
    cases = {
        mandatory - 1: f"below the mandatory input ({mandatory} bytes)",
        mandatory + older - 1: f"the request with only the older turn needs {mandatory + older} bytes",
        mandatory + newest: f"the request with only it needs {mandatory + newest} bytes",
    }
    for budget, expected in cases.items():
        feedback = q1.check(history, budget)
        assert not feedback and expected in repr(feedback)
        assert "hunter2" not in repr(feedback)
    good = q1.check(history, mandatory + older)
    assert good and "keeps 0 turns" in repr(good) and "hunter2" not in repr(good)
    assert select(SYSTEM, history, QUESTION, mandatory + older).kept == 0


def test_q1_rejects_malformed_answers():
    assert "at least 2 turns; yours has 1" in repr(q1.check([Turn("a", "b")], 200))
    assert "list of Turn" in repr(q1.check(["a", "b"], 200))
    assert "positive int" in repr(q1.check([Turn("a", "b")] * 2, "200"))


@pytest.mark.parametrize("count, expected", [
    (0, "needs 140 bytes, within the 235-byte budget: select still answers and keeps 1 turn"),
    (23, "needs 232 bytes"),
    (25, "but so are 24 (236 bytes)"),
    (-1, "an int, 0 or more"),
])
def test_q2_feedback(count, expected):
    feedback = q2.check(count)
    assert not feedback and expected in repr(feedback)
    assert q2.check(24)


def test_q2_answer_is_the_first_rejected_count():
    assert len(request_bytes(SYSTEM, [], exercises.grown_question(24))) == 236
    assert len(request_bytes(SYSTEM, [], exercises.grown_question(23))) == 232


def test_q3_reports_the_first_text_it_gets_wrong_by_its_shape():
    feedback = q3.check(len)
    assert "test text #3 (1 code point, 4 UTF-8 bytes) your function returned 1" in repr(feedback)
    assert "🙂" not in repr(feedback)

    def broken(text):
        raise ValueError(text)

    assert "raised ValueError on test text #1" in repr(q3.check(broken))
    assert repr(q3.check(lambda text: None)).startswith("Not answered yet: ")
    assert "pass a function" in repr(q3.check(3))


@pytest.mark.parametrize("budget, ok", [(113, False), (114, True), (139, True), (140, False)])
def test_q4_accepts_exactly_the_hidden_gap(budget, ok):
    assert bool(q4.check(budget)) is ok


@pytest.mark.parametrize("budget, expected", [
    (193, "requests rejects: its mandatory input needs 194 bytes"),
    (308, "requests keeps 0 of 2 turns (194 bytes sent)"),
    (398, "requests keeps 1 of 2 turns (318 bytes sent)"),
    (400, "so does 399"),
])
def test_q5_feedback(budget, expected):
    feedback = q5.check(budget)
    assert not feedback and expected in repr(feedback)
    assert q5.check(399)


def test_q6_torn_journal_and_feedback():
    lines = examine(exercises.torn_journal())
    assert [line.torn for line in lines] == [False, False, True]
    assert lines[-1].length == exercises.TORN_AFTER
    good = sum(line.length for line in lines[:2])
    assert q6.check(2, good)
    assert "2 complete lines and a torn one" in repr(q6.check(3, good))
    assert "cuts the torn tail (40 bytes)" in repr(q6.check(2, good + 40))
    assert "two ints" in repr(q6.check(2, "348"))


def test_q6_prediction_matches_a_real_journal(tmp_path):
    path = tmp_path / "torn.log"
    path.write_bytes(exercises.torn_journal())
    with ledgerlab.Journal(path) as journal:
        turns = len(journal)
    assert q6.check(turns, path.stat().st_size)


def test_exercises_do_not_import_the_notebook_stack():
    code = ("import sys, ledgerlab.exercises\n"
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
