"""The self-checks: solutions pass; each kind of plausible wrong answer is refused with
feedback that names the mistake without giving the answer; text stays private.

They check on the article's fixture, whose figures they know (``on_the_article``); the
self-paced edition's variant and the students' are checked in test_variants.py and
test_self_paced_answers.py."""

import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import ledgerlab
from ledgerlab import Turn, byte_breakdown, request_bytes, select
from ledgerlab import utf16_units
from ledgerlab.course import benchmark, exercises, feedback, fixtures
from ledgerlab.course.exercises import (ARTICLE, EXERCISES, SELF_PACED, q1, q2, q3, q4, q5, q6,
                                        use_variant)
from ledgerlab.course.feedback import Feedback, as_integral, correct, wrong
from sentences import says

SECRET = "my password is hunter2"
SYSTEM, QUESTION = ARTICLE.system, ARTICLE.question


@pytest.fixture(autouse=True)
def on_the_article():
    """Each check on the article's fixture, as a kernel that ran use_variant("") has it."""
    use_variant(ARTICLE.key)
    yield
    use_variant(SELF_PACED.key)


def run_solution(exercise):
    """Run a solution's code as a learner would paste it; return the last line's value."""
    namespace = {name: getattr(ledgerlab, name) for name in ledgerlab.__all__}
    namespace.update({name: getattr(exercises, name) for name in exercises.__all__},
                     fixtures=fixtures)  # what notebook 13 imports
    *body, last = exercise.solution_code.splitlines()
    exec("\n".join(body), namespace)
    return eval(last.split("#")[0], namespace)


def refused(feedback, *fragments, answers=()):
    """Not correct, says each fragment, and names none of ``answers``."""
    text = repr(feedback)
    assert not feedback and text.startswith("Not yet: "), text
    for fragment in fragments:
        assert fragment in text, text
    for answer in answers:
        assert not re.search(rf"(?<!\d){answer}(?!\d)", text), (answer, text)
    return text


# --- the public helpers other modules build on -----------------------------------

@pytest.mark.parametrize("value, expected", [
    (24, 24), (np.int64(24), 24), (np.uint8(7), 7), (0, 0), (-3, -3),
    (24.0, None), (np.float64(24.0), None), (True, None), (np.bool_(True), None),
    ("24", None), (Fraction(24, 1), None), (None, None),
])
def test_as_integral_takes_any_integral_number_but_bools(value, expected):
    result = as_integral(value)
    assert result == expected and (result is None or type(result) is int)


def test_feedback_looks_like_feedback_in_html_and_text():
    good, bad, none = correct("fine"), wrong("a <b> & c"), Feedback("unanswered", "later")
    assert repr(good) == "Correct: fine" and repr(bad) == "Not yet: a <b> & c"
    assert bool(good) and not bad and not none
    colours = set()
    for shown, word in ((good, "Correct"), (bad, "Not yet"), (none, "Not answered yet")):
        page = shown._repr_html_()
        assert f">{word}:</strong>" in page  # a word, not colour alone
        colours.add(re.search(r"color: (#[0-9A-F]{6})", page).group(1))
    assert len(colours) == 3
    assert "a &lt;b&gt; &amp; c" in bad._repr_html_()
    with pytest.raises(ValueError):
        Feedback("maybe", "x")


# --- every exercise ---------------------------------------------------------------

@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_every_solution_passes_its_check_and_the_hidden_test(exercise):
    feedback = run_solution(exercise)
    assert feedback and repr(feedback).startswith("Correct: "), repr(feedback)
    namespace = {name: getattr(ledgerlab, name) for name in ledgerlab.__all__}
    namespace.update({name: getattr(exercises, name) for name in exercises.__all__},
                     fixtures=fixtures)  # what notebook 13 imports
    exec(exercise.solution_code, namespace)
    assert exercise.grade(*(namespace[name] for name in exercise.answers))


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_placeholders_read_as_not_answered(exercise):
    feedback = exercise.check(*[...] * len(exercise.answers))
    assert not feedback and repr(feedback).startswith("Not answered yet: ")


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_a_wrong_number_of_answers_is_feedback_not_a_traceback(exercise):
    for count in (0, len(exercise.answers) - 1, len(exercise.answers) + 1):
        if count < 0:
            continue
        text = refused(exercise.check(*[1] * count), f"takes {len(exercise.answers)} answer")
        assert "_check" not in text and f"you gave {count}" in text


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_hint_and_solution_show_as_text(exercise):
    assert repr(exercise.hint()).startswith("Hint: ")
    assert repr(exercise.solution()).startswith("Solution:\n")
    assert f"Exercise {exercise.number}:" in repr(exercise)


def test_graded_edition_hides_solutions(monkeypatch):
    monkeypatch.setattr(feedback, "_hidden_solutions", False)
    feedback.hide_solutions()
    for exercise in EXERCISES:
        text = repr(exercise.solution())
        assert "hidden in this graded edition" in text and f"q{exercise.number}.check(" not in text
        assert repr(exercise.hint()).startswith("Hint: ")


# The answers: none of these may appear in a hint or in feedback to a wrong answer.
ANSWERS = {1: ("213",), 2: ("24",), 4: ("114", "139"), 5: ("399",), 6: ("348",)}


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: f"q{e.number}")
def test_hints_point_to_the_tool_not_the_answer(exercise):
    text = repr(exercise.hint())
    for answer in ANSWERS.get(exercise.number, ()):
        assert answer not in text
    assert "per smiley" not in text
    assert exercise.solution_code.splitlines()[-1].split("#")[0] not in text


# --- 1 ---------------------------------------------------------------------------

def sizes(history):
    parts = byte_breakdown(SYSTEM, history, QUESTION)
    return parts["envelope"] + parts["system"] + parts["question"], parts["turns"]


BIG = [Turn("hello", "world"), Turn(SECRET, "x" * 200)]
MANDATORY, (OLDER, NEWEST) = sizes(BIG)
FITS_OLDER = MANDATORY + OLDER


def test_q1_right_history_budget_and_prediction():
    good = q1.check(BIG, FITS_OLDER, 0)
    assert good and "keeps 0 turns" in repr(good) and "hunter2" not in repr(good)
    assert q1.check(BIG, np.int64(MANDATORY + NEWEST - 1), np.int64(0))
    assert select(SYSTEM, BIG, QUESTION, FITS_OLDER).kept == 0


def test_q1_refuses_the_unchanged_fixture_and_the_wrong_turn_count():
    refused(q1.check(list(exercises.HISTORY), 213, 0), "not much larger")
    three = [Turn("a", "b"), Turn("c", "d"), Turn(SECRET, "x" * 300)]
    refused(q1.check(three, 300, 0), "2 turns; yours has 3")
    refused(q1.check(BIG[:1], 300, 0), "yours has 1")
    refused(q1.check(["a", "b"], 200, 0), "list of Turn")


@pytest.mark.parametrize("budget, named", [
    (MANDATORY - 1, "below the mandatory input"),
    (FITS_OLDER - 1, "does not fit the older turn either"),  # off by one
    (MANDATORY + NEWEST, "fits the newest turn too"),
    (float(FITS_OLDER), "whole number of bytes"),  # the wrong type
    ("213", "not a str"),
])
def test_q1_budget_mistakes(budget, named):
    text = refused(q1.check(BIG, budget, 0), named)
    assert "hunter2" not in text


def test_q1_budget_in_the_wrong_unit():
    older_only = request_bytes(SYSTEM, BIG[:1], QUESTION).decode("utf-8")
    refused(q1.check(BIG, len(older_only), 0), "code points")


@pytest.mark.parametrize("prediction, named", [
    (1, "pack an older turn"),  # the packing answer
    (2, "cannot fit both"),
    (3, "from 0 to 2"),
    (-1, "a count cannot be negative"),
    (0.0, "whole number of turns"),
])
def test_q1_wrong_predictions_are_diagnosed_not_revealed(prediction, named):
    refused(q1.check(BIG, FITS_OLDER, prediction), named, "your history and budget are right"
            if prediction in (1, 2, 3, -1) else "")


def test_q1_an_invalid_text_is_feedback():
    class Sneaky(Turn):  # a Turn whose text got past its own validation
        pass

    bad = object.__new__(Sneaky)
    object.__setattr__(bad, "question", "\ud800")
    object.__setattr__(bad, "answer", "x" * 300)
    refused(q1.check([BIG[0], bad], 300, 0), "not valid Unicode")


# --- 2 ---------------------------------------------------------------------------

@pytest.mark.parametrize("count, named", [
    (0, "235-byte budget"), (0, "keeps 1 turn"),
    (1, "keeps 0 turns"), (1, "still answers"),  # "no turn kept" is not the failure
    (23, "it sends the mandatory input alone"),  # off by one, low
    (25, "not the smallest count"),  # off by one, high
    (32, "3 UTF-8 bytes per smiley"),  # a smiley taken for a Chinese character's 3 bytes
    (61, "UTF-16 units"),  # the wrong unit
    (123, "code points"),
    (24.0, "whole number of smileys, e.g. 24, not 24.0"),  # the wrong type
    ("24", "not a str"),
    (-1, "a count cannot be negative"),
])
def test_q2_feedback(count, named):
    refused(q2.check(count), named, answers=() if count in (24.0, "24") else ("24",))


def test_q2_one_below_the_answer_leaves_no_sum_to_finish():
    # 232 + 4 > 235 would hand over the answer: the feedback for 23 gives no byte count.
    text = repr(q2.check(23))
    assert not re.search(r"\d{3}", text.replace("235", ""))


def test_q2_accepts_any_integral_type():
    assert q2.check(24) and q2.check(np.int64(24)) and q2.check(np.int32(24))
    assert len(request_bytes(SYSTEM, [], exercises.grown_question(24))) == 236
    assert len(request_bytes(SYSTEM, [], exercises.grown_question(23))) == 232


# --- 3 ---------------------------------------------------------------------------

@pytest.mark.parametrize("function, named", [
    (len, "counts code points"),
    (lambda t: len(t.encode("utf-8")), "counts UTF-8 bytes"),
    (lambda t: len(t.encode("utf-16-le")), "counts UTF-16 bytes"),
    (lambda t: len(t.encode("utf-16")) // 2, "byte-order mark"),
    (lambda t: len(t.encode("utf-16-le")) / 2, "whole number of UTF-16 units"),  # a float
    (lambda t: len(t) + t.count("🙂"), "not just the fixture's"),  # fits the smiley only
    # U+FFFF, the BMP's last character, taken for a surrogate pair: the edge on the wrong side
    (lambda t: sum(2 if ord(c) >= 0xFFFF else 1 for c in t), "counts U+FFFF"),
    (lambda t: len(t) + sum(ord(c) > 0xFFFE for c in t), "Surrogate pairs start at U+10000"),
    (lambda t: str(len(t)), "not a str"),
    (lambda t: True, "not a bool"),
])
def test_q3_names_the_mistake(function, named):
    text = refused(q3.check(function), named)
    for char in "🙂𝄞😀𠀋接":
        assert char not in text  # the test texts are not echoed


def test_q3_other_answers():
    def broken(text):
        raise ValueError(text)

    assert "raised ValueError on test text #1" in repr(q3.check(broken))
    assert repr(q3.check(lambda text: None)).startswith("Not answered yet: ")
    refused(q3.check(3), "pass a function")
    assert q3.check(lambda t: np.int64(len(t.encode("utf-16-le")) // 2))
    # The test texts hold characters outside the BMP other than the fixture's smiley.
    others = {c for t in exercises.JAVA_TEXTS for c in t if ord(c) > 0xFFFF} - {"🙂"}
    assert len(others) >= 3
    # ... and both the public and the hidden texts hold U+FFFF, one unit in Java.
    for texts in (exercises.JAVA_TEXTS, exercises.HIDDEN_JAVA_TEXTS):
        assert any("\uffff" in text for text in texts)
    assert utf16_units("\uffff") == 1 and utf16_units("\U00010000") == 2


def test_q3_hidden_test_checks_more_than_the_check():
    def bmp_only_plus_smile_and_friends(text):  # right on the public texts, wrong on a flag
        known = {char for text in exercises.JAVA_TEXTS for char in text if ord(char) > 0xFFFF}
        return len(text) + sum(char in known for char in text)

    assert q3.check(bmp_only_plus_smile_and_friends)
    assert not q3.grade(bmp_only_plus_smile_and_friends)


def test_q3_hidden_test_refuses_u_ffff_as_a_pair_even_where_the_check_passes():
    public = set(exercises.JAVA_TEXTS)

    def edge_wrong_but_for_the_public_texts(text):
        if text in public:  # what a solution tuned on check()'s feedback could do
            return len(text.encode("utf-16-le")) // 2
        return sum(2 if ord(char) >= 0xFFFF else 1 for char in text)

    assert q3.check(edge_wrong_but_for_the_public_texts)
    text = refused(q3.grade(edge_wrong_but_for_the_public_texts), "counts U+FFFF")
    assert "\uffff" not in text
    assert q3.grade(lambda t: len(t.encode("utf-16-le")) // 2)


# --- 4 ---------------------------------------------------------------------------

@pytest.mark.parametrize("budget, ok", [(113, False), (114, True), (120, False), (139, False),
                                        (140, False), (np.int16(114), True)])
def test_q4_accepts_only_the_smallest_budget_java_lets_through(budget, ok):
    assert bool(q4.check(budget)) is ok


@pytest.mark.parametrize("budget, named", [
    (113, "code points"),  # the wrong unit
    (100, "rejects"),
    (140, "UTF-8 bytes"),  # what the wire needs
    (139, "the largest such budget"),
    (120, "a smaller budget passes it too"),
    (114.0, "whole number of bytes"),
    (0, "positive"),
])
def test_q4_feedback(budget, named):
    refused(q4.check(budget), named, answers=() if budget == 114.0 else ("114", "139"))


# --- 5 ---------------------------------------------------------------------------

@pytest.mark.parametrize("budget, named", [
    (193, "requests rejects: its mandatory input needs 194 bytes"),
    (308, "the full request's size under gson"),  # the wrong encoder
    (267, "counts the gson body in code points"),  # the wrong unit
    (268, "counts the gson body in UTF-16 units"),
    (398, "requests keeps 1 of 2 turns (318 bytes sent)"),  # off by one
    (400, "not the smallest"),
    (399.0, "whole number of bytes"),
])
def test_q5_feedback(budget, named):
    refused(q5.check(budget), named, answers=() if budget == 399.0 else ("399",))


def test_q5_accepts_any_integral_type():
    assert q5.check(399) and q5.check(np.int64(399))
    gson = request_bytes(SYSTEM, list(exercises.HISTORY), QUESTION).decode("utf-8")
    assert (len(gson), utf16_units(gson)) == (267, 268)


# --- 6 ---------------------------------------------------------------------------

GOOD_TURNS, GOOD_BYTES = exercises.reopened(exercises.torn_journal(ARTICLE))
TORN = len(exercises.torn_journal(ARTICLE))


def test_q6_follows_a_real_journal():
    assert (GOOD_TURNS, GOOD_BYTES) == (2, 348)
    assert TORN == GOOD_BYTES + exercises.TORN_AFTER
    assert q6.check(GOOD_TURNS, GOOD_BYTES) and q6.check(np.int64(2), np.int64(348))


@pytest.mark.parametrize("answer, named", [
    ((3, GOOD_BYTES), "newline included, reached the disk"),  # counts the torn line
    ((GOOD_TURNS, TORN), "the file before opening"),  # thinks nothing is cut
    ((GOOD_TURNS, GOOD_BYTES - 1), "each with its newline"),  # off by one
    ((0, 0), "does not refuse this file"),  # thinks it fails closed
    ((GOOD_BYTES, GOOD_TURNS), "swapped"),  # the arguments swapped
    ((1, GOOD_BYTES), "every complete line"),  # an undercount: a complete line taken for torn
    ((2.0, GOOD_BYTES), "whole number of turns"),
    ((GOOD_TURNS, "348"), "whole number of bytes"),
    ((-1, GOOD_BYTES), "a count cannot be negative"),
    ((GOOD_TURNS, -GOOD_BYTES), "a count cannot be negative"),
])
def test_q6_feedback(answer, named):
    refused(q6.check(*answer), named, answers=("348",) if answer[1] != GOOD_BYTES else ())


# --- privacy, imports, the benchmark -----------------------------------------------

def test_feedback_never_repeats_conversation_text():
    secret_history = [Turn(SECRET, SECRET), Turn(SECRET, SECRET * 20)]
    m, (older, newest) = sizes(secret_history)
    for budget in (m - 1, m + older - 1, m + older, m + newest):
        for prediction in (0, 1):
            assert "hunter2" not in repr(q1.check(secret_history, budget, prediction))


def test_benchmark_results_are_found_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    results = benchmark.benchmark_results()
    assert results["selection"] and "select_s" in results["selection"][0]
    with pytest.raises(FileNotFoundError, match="make bench"):
        benchmark.benchmark_results(tmp_path)
    bundle = benchmark.benchmark_figure()
    assert bundle["image/png"].startswith("iVBOR")  # base64 of a PNG's signature
    first = benchmark.benchmark_results()["selection"][0]
    says(bundle["text/plain"], "select", f"{first['select_s'] * 1e6:,.0f} us", first["turns"],
         "turns", in_order=True)


def test_exercises_do_not_import_the_notebook_stack():
    code = ("import sys, ledgerlab.course.exercises\n"
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_the_teachers_file_solution_explains_instead_of_answering(tmp_path, monkeypatch):
    # The graded edition: an installed package has no teacher/solutions.py.
    assert feedback.worked_solutions(tmp_path / "absent.py") == {}
    monkeypatch.setattr(feedback, "worked_solutions", lambda: {})
    for exercise in EXERCISES:
        assert exercise.solution_code == ""
        assert "hidden in this graded edition" in repr(exercise.solution())


def test_the_teachers_file_has_a_solution_for_every_exercise_and_nothing_else():
    optional = [e for lesson in exercises.OPTIONAL.values() for e in lesson]
    assert sorted(feedback.worked_solutions()) == sorted(e.name for e in EXERCISES + tuple(optional))
