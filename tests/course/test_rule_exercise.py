"""Notebook 02's optional exercise: the learner's whole-turn rule, checked against ``select``
on random histories (ledgerlab/course/lessons/bad_slice_vs_whole_turn.py). A right rule passes, written either
way round; each kind of wrong rule is refused with feedback that names its mistake and the
first history it differs on, in counts and sizes, never in text; and nothing grades it."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

import ledgerlab
from ledgerlab import Turn, request_bytes, whole_turn_rule
from ledgerlab.course import contents, exercises, syllabus
from ledgerlab.course.exercises import OPTIONAL, SELF_PACED, active, exercise02, use_variant
from ledgerlab.course.grading import editions
from ledgerlab.course.lessons import bad_slice_vs_whole_turn as rule
from sentences import says

ROOT = Path(__file__).resolve().parents[2]
SECRET = "hunter2"


def drop_oldest(system, history, current, max_bytes):
    """The article's loop, as whole_turn_rule reads."""
    for start in range(len(history) + 1):
        if len(request_bytes(system, history[start:], current)) <= max_bytes:
            return history[start:]
    return None


def walk_back(system, history, current, max_bytes):
    """select's way round: from no turn, add turns from the newest back."""
    if len(request_bytes(system, [], current)) > max_bytes:
        return None
    start = len(history)
    while start > 0 and len(request_bytes(system, history[start - 1:], current)) <= max_bytes:
        start -= 1
    return history[start:]


def library_rule(system, history, current, max_bytes):
    """whole_turn_rule itself, with a fits of the learner's own."""
    start = whole_turn_rule(history, lambda kept: len(request_bytes(system, kept, current))
                            <= max_bytes)
    return None if start is None else tuple(history[start:])


def packs(system, history, current, max_bytes):
    """Skips a big recent turn that does not fit to pack older, shorter ones."""
    if len(request_bytes(system, [], current)) > max_bytes:
        return None
    kept = []
    for turn in reversed(history):
        if len(request_bytes(system, [turn, *kept], current)) <= max_bytes:
            kept.insert(0, turn)
    return kept


def cuts(system, history, current, max_bytes):
    """Whole turns, then the room left filled with the next older turn cut short."""
    kept = drop_oldest(system, history, current, max_bytes)
    if kept is None or len(kept) == len(history):
        return kept
    older = history[len(history) - len(kept) - 1]
    for length in range(len(older.answer), -1, -1):
        cut = Turn(older.question, older.answer[:length])
        if len(request_bytes(system, [cut, *kept], current)) <= max_bytes:
            return [cut, *kept]
    return kept


def first_only(system, history, current, max_bytes):
    """Refuses the mandatory input, else keeps every turn: no trimming at all."""
    if len(request_bytes(system, [], current)) > max_bytes:
        return None
    return history


def refused(feedback, *fragments):
    text = repr(feedback)
    assert not feedback and text.startswith("Not yet: "), text
    for fragment in fragments:
        assert fragment in text, text
    return text


@pytest.mark.parametrize("function", [drop_oldest, walk_back, library_rule])
def test_a_right_rule_passes_written_either_way_round(function):
    feedback = exercise02.check(function)
    assert feedback and repr(feedback).startswith("Correct: "), repr(feedback)
    assert f"all {rule.HISTORIES} random histories" in repr(feedback)


def test_the_worked_solution_passes():
    namespace = {name: getattr(ledgerlab, name) for name in ledgerlab.__all__}
    namespace["exercise02"] = exercise02
    *body, last = exercise02.solution_code.splitlines()
    exec("\n".join(body), namespace)
    assert eval(last, namespace)


def test_a_rule_that_skips_a_big_recent_turn_to_pack_older_ones_is_named():
    text = refused(exercise02.check(packs), "skips a turn that does not fit",
                   "select never packs", "The first: History #",
                   "numbered from the oldest", "newest turn")
    assert re.search(r"differ on \d+ of 300 random histories", text)


def test_a_rule_that_cuts_inside_a_turn_is_refused():
    refused(exercise02.check(cuts), "not one of the stored turns, whole",
            "never cut or changed to fit")


@pytest.mark.parametrize(("wrong", "named"), rule.WRONG_RULES)
def test_each_known_wrong_rule_is_named(wrong, named):
    assert named in refused(exercise02.check(wrong))


def test_a_rule_that_never_trims_gets_the_first_history_in_counts_and_sizes():
    text = refused(exercise02.check(first_only), "The first: History #", "max_bytes",
                   "your function keeps the newest", "over max_bytes")
    assert not any(named in text for _, named in rule.WRONG_RULES)


def test_the_first_difference_is_a_small_history():
    text = repr(exercise02.check(packs))
    number = int(re.search(r"History #(\d+)", text).group(1))
    drawn = rule.cases()
    assert len(drawn[number - 1].history) <= 3
    assert [len(case.history) for case in drawn] == sorted(len(case.history) for case in drawn)


@pytest.mark.parametrize(("answer", "named"), [
    (lambda s, h, c, m: len(h), "not a count"),
    (lambda s, h, c, m: request_bytes(s, h, c), "not a request's bytes"),
    (lambda s, h, c, m: [{"role": "user", "content": "x"}], "not a list holding a dict"),
    (lambda s, h, c, m: 1 / 0, "raised ZeroDivisionError on history #1"),
    ("drop_oldest", "pass a function"),
])
def test_answers_that_are_not_a_rule_are_feedback_not_a_traceback(answer, named):
    refused(exercise02.check(answer), named)


def test_an_empty_body_reads_as_not_answered():
    def my_select(system, history, current, max_bytes):
        ...
    for feedback in (exercise02.check(my_select), exercise02.check(...)):
        assert not feedback and repr(feedback).startswith("Not answered yet: ")
    says(repr(exercise02.check()), "1 answer", "my_select", "gave 0", in_order=True)


def test_feedback_never_repeats_the_text_of_a_history(monkeypatch):
    real = rule.cases

    def secret_cases(*args, **kwargs):
        return [rule.Case(SECRET + case.system, tuple(Turn(SECRET + t.question, t.answer + SECRET)
                                                      for t in case.history),
                          case.question + SECRET, case.budget + 40 * (1 + 2 * len(case.history)))
                for case in real(*args, **kwargs)]
    monkeypatch.setattr(rule, "cases", secret_cases)
    for function in (packs, cuts, first_only):  # the named rules, the cut turn, the sizes
        assert SECRET not in repr(exercise02.check(function))


def test_the_feedback_is_the_same_on_every_variant():
    before = [repr(exercise02.check(function)) for function in (packs, cuts)]
    try:
        assert use_variant("0123456789abcdef") is active()  # a student's own variant
        after = [repr(exercise02.check(function)) for function in (packs, cuts)]
    finally:
        use_variant(SELF_PACED.key)  # the default
    assert after == before


def test_the_histories_are_drawn_the_same_at_every_run_and_cover_every_edge():
    drawn = rule.cases()
    assert drawn == rule.cases() and len(drawn) == rule.HISTORIES
    expected = [case.expected() for case in drawn]
    assert any(kept is None for kept in expected)  # select refuses
    assert any(kept == () for kept in expected)  # no turn kept, not refused
    assert any(kept and len(kept) == len(case.history) for case, kept in zip(drawn, expected))
    assert any(kept is not None and case.size(kept) == case.budget
               for case, kept in zip(drawn, expected))  # a request of exactly max_bytes
    assert any(any(len(t.answer.encode()) != len(t.answer) for t in case.history)
               for case in drawn)  # bytes are not characters


def test_it_is_optional_and_graded_nowhere():
    assert OPTIONAL == {2: (exercise02,)}
    assert exercise02 not in exercises.EXERCISES and "exercise02" not in exercises.GRADED
    rows = [row for row in contents.items() if row[2] == "exercise02"]
    assert rows == [(syllabus.heading(2), "exercise 1 (optional)", "exercise02")]
    assert repr(exercise02).startswith("Notebook 02's optional exercise: ")


def cells(name):
    path = ROOT / "notebooks" / name
    return [(cell["cell_type"], "".join(cell["source"]))
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]]


def test_lesson_02_shows_the_librarys_own_rule_where_it_states_it():
    lesson = cells("02-bad-slice-vs-whole-turn.ipynb")
    at = next(i for i, (_, text) in enumerate(lesson) if "remove the **oldest complete turn**" in text)
    kind, code = lesson[at + 1]
    assert kind == "code" and "inspect.getsource(whole_turn_rule)" in code
    assert "select_reference" in lesson[at + 2][1] and "walks back" in lesson[at + 2][1]
    executed = json.loads((ROOT / "notebooks" / "02-bad-slice-vs-whole-turn.ipynb").read_text())
    shown = "".join(executed["cells"][at + 1]["outputs"][0]["text"])
    assert shown == inspect.getsource(whole_turn_rule)
    assert len(shown.splitlines()) <= 10  # short enough to read


def test_the_optional_exercise_is_in_02_and_its_solution_in_the_solutions():
    lesson = cells("02-bad-slice-vs-whole-turn.ipynb")
    (heading,) = [text for kind, text in lesson if text.startswith("## Optional")]
    assert "optional" in heading and syllabus.EXERCISES.heading in heading
    assert any(kind == "code" and "exercise02.check(my_select)" in text and "    ..." in text
               for kind, text in lesson)
    solutions = cells(editions.SOLUTIONS_NOTEBOOK)
    assert any("exercise02.check(my_select)" in text for _, text in solutions)
    exercises_notebook = cells(editions.EXERCISES_NOTEBOOK)
    assert not any("exercise02" in text for _, text in exercises_notebook)
