"""Predictions and questionnaires: right answers of any integral type pass, and each kind of
plausible wrong answer gets feedback that names the mistake without giving the answer."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from ledgerlab.course import questions
from ledgerlab.course.feedback import Discussion, Question, Questionnaire

QUIZZES = [questions.quiz01, questions.quiz02, questions.quiz03, questions.quiz04,
           questions.quiz05, questions.quiz06, questions.quiz07]
PREDICTIONS = [questions.predict01, questions.predict02, questions.predict02_count,
               questions.predict03, questions.predict04, questions.predict05,
               questions.predict05_torn, questions.predict06, questions.predict07,
               questions.predict07_tokens]
CHECKED = PREDICTIONS + [q for quiz in QUIZZES for q in quiz.questions if isinstance(q, Question)]

# The course's figures, as the notebooks teach them.
ANSWERS = [
    (questions.predict01, 3), (questions.predict02, "no"), (questions.predict02_count, 2),
    (questions.predict03, 140), (questions.predict04, 0), (questions.predict05, "yes"),
    (questions.predict05_torn, 3), (questions.predict06, 526),
    (questions.quiz01[1], 142), (questions.quiz01[2], 309),
    (questions.quiz02[1], 1), (questions.quiz02[2], 108),
    (questions.quiz03[1], 4), (questions.quiz03[2], 4), (questions.quiz03[3], 194),
    (questions.quiz04[1], 308), (questions.quiz04[2], 140), (questions.quiz04[3], 95),
    (questions.quiz05[1], 264), (questions.quiz05[2], 526),
    (questions.quiz06[1], 170), (questions.quiz06[2], "no"),
    (questions.predict07, 1), (questions.predict07_tokens, 2),
    (questions.quiz07[1], 9), (questions.quiz07[4], 308),
]


def test_every_checked_question_has_a_known_answer():
    assert {id(q) for q, _ in ANSWERS} == {id(q) for q in CHECKED}


@pytest.mark.parametrize("question, answer", ANSWERS)
def test_the_right_answer_is_correct(question, answer):
    feedback = question.check(answer)
    assert feedback and feedback.status == "correct"
    assert question.solution().startswith(f"Answer: {answer}. ")


@pytest.mark.parametrize("question, answer", [(q, a) for q, a in ANSWERS if isinstance(a, int)])
def test_any_integral_type_is_accepted(question, answer):
    assert question.check(np.int64(answer))
    assert question.check(np.int32(answer))


@pytest.mark.parametrize("question, answer", [(q, a) for q, a in ANSWERS if isinstance(a, int)])
def test_wrong_types_are_told_what_form_to_use(question, answer):
    for bad in (float(answer), str(answer), True, None, [answer]):
        feedback = question.check(bad)
        assert feedback.status == "incorrect"
        assert "whole number" in feedback.message


@pytest.mark.parametrize("question, answer", ANSWERS)
def test_wrong_answers_never_give_the_answer_away(question, answer):
    candidates = set(question._mistakes()) | ({"yes", "no"} if isinstance(answer, str)
                                              else {answer - 1, answer + 1, answer * 2, 0})
    for given in candidates - {answer}:
        feedback = question.check(given)
        assert feedback.status == "incorrect"
        assert not re.search(rf"\b{answer}\b", feedback.message)


def test_placeholder_reads_as_not_answered():
    assert questions.predict04.check(...).status == "unanswered"
    assert questions.predict04.check().status == "unanswered"


@pytest.mark.parametrize("question, given, says", [
    (questions.predict04, 1, "skipping the newest turn to pack the older"),  # a packing answer
    (questions.predict03, 114, "UTF-16 units"),  # the wrong unit
    (questions.predict03, 113, "code points"),
    (questions.predict03, 40, "envelope"),
    (questions.quiz03[1], 2, "UTF-16 units"),
    (questions.quiz03[2], 3, "code points"),
    (questions.quiz03[2], 10, "UTF-8 bytes"),
    (questions.quiz04[1], 408, "ceiling"),
    (questions.quiz04[2], 139, "refused"),  # off by one
    (questions.quiz04[2], 114, "UTF-16 units"),
    (questions.quiz04[3], 73, "older turn"),
    (questions.predict01, 1, "request keeps"),
    (questions.predict02_count, 4, "follows from"),
    (questions.predict05_torn, 4, "never returned"),
    (questions.predict06, 600, "part of a line"),
    (questions.quiz06[1], 38, "text's UTF-8 bytes"),
    (questions.predict02, "yes", "suffix"),
    (questions.quiz06[2], " YES ", "changed nothing on disk"),
    (questions.quiz06[1], 166, "'t1'"),  # the growth demo's line, read from 06's table
    (questions.predict07, 2, "reserve is taken from the window"),
    (questions.predict07, 0, "mandatory input alone"),
    (questions.predict07_tokens, 1, "60-token limit"),
    (questions.quiz07[1], 6, "reply is primed"),
    (questions.quiz07[1], 11, "role names"),
    (questions.quiz07[4], 235, "only the newest turn"),
    (questions.quiz07[4], 45, "wire bytes"),
])

def test_a_known_mistake_is_named(question, given, says):
    feedback = question.check(given)
    assert feedback.status == "incorrect" and says in feedback.message


def test_quiz06_says_which_record_it_means():
    assert "'one'" in questions.quiz06[1].prompt and "'t1'" in questions.quiz06[1].prompt


def test_an_unknown_wrong_answer_gets_the_hint():
    feedback = questions.predict04.check(7)
    assert feedback.message == f"not 7. Hint: {questions.predict04._hint}"


def test_a_choice_question_names_its_choices():
    feedback = questions.predict02.check("maybe")
    assert feedback.status == "incorrect" and "'yes', 'no'" in feedback.message
    assert questions.predict02.check(0).status == "incorrect"


def test_questionnaires_number_their_questions_and_refuse_other_numbers():
    quiz = questions.quiz04
    text = repr(quiz)
    assert text.splitlines()[0] == "Check your understanding: 04 · The boundary table"
    assert "1. How many bytes does select send at a 408-byte budget?" in text
    assert "quiz[1].check(...)" in text
    for bad in (0, len(quiz) + 1, "1", 1.0):
        with pytest.raises(IndexError, match="numbered 1 to 3"):
            quiz[bad]
    assert quiz[np.int64(1)] is quiz.questions[0]


def test_quizzes_are_short_and_open_questions_have_a_model_answer():
    for quiz in QUIZZES:
        assert 2 <= len(quiz) <= 4
        for question in quiz.questions:
            if isinstance(question, Discussion):
                assert question.solution().startswith("A model answer: ")


def test_a_question_computes_its_answer_when_checked():
    calls = []
    question = Question("q", lambda: calls.append(1) or 5, explanation="e", hint="h")
    assert calls == []
    assert question.check(5) and calls == [1]
    assert isinstance(Questionnaire("t", [question])[1], Question)


# --- The notebooks that use them: what a learner and a teacher rely on -----------------

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
COURSE = sorted(NOTEBOOKS.glob("0[0-7]-*.ipynb"))


def cells(path, kind):
    return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]
            if cell["cell_type"] == kind]


def test_the_course_notebooks_are_there():
    assert [path.name[:2] for path in COURSE] == ["00", "01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("path", COURSE, ids=lambda path: path.name[:2])
def test_each_notebook_opens_with_aims_prerequisites_and_minutes_and_ends_with_a_recap(path):
    first = cells(path, "markdown")[0]
    assert "**What you'll learn**" in first and "**Before you start**" in first
    assert re.search(r"\*\*Time:\*\* about \d+ minutes", first)
    assert any(text.lstrip().startswith("## Recap") or "\n## Recap" in text
               for text in cells(path, "markdown"))
    if path.name[:2] != "00":
        assert "(00-contents.ipynb#Glossary)" in first


@pytest.mark.parametrize("path", COURSE[1:], ids=lambda path: path.name[:2])
def test_each_notebook_predicts_before_it_reveals_and_ends_with_its_questions(path):
    number = path.name[:2]
    code = cells(path, "code")
    assert any(f"predict{number}" in text and ".check(my_answer)" in text for text in code)
    assert any(f"quiz = quiz{number}" in text for text in code)
    questions_asked = len(getattr(questions, f"quiz{number}"))
    assert sum(text.startswith("quiz[") for text in code) >= min(questions_asked, 2)


def minutes(path):
    found = re.search(r"\*\*Time:\*\* about (\d+) minutes", cells(path, "markdown")[0])
    return found and int(found.group(1))


def test_every_notebook_states_its_minutes_and_the_contents_table_agrees():
    table = next(text for text in cells(NOTEBOOKS / "00-contents.ipynb", "markdown")
                 if text.startswith("## The series"))
    listed = dict(re.findall(r"^\| \[\d\d · [^]]+\]\((\d\d-[\w-]+\.ipynb)\) \|.*\| (\d+) \|$",
                             table, re.MULTILINE))
    notebooks = sorted(path.name for path in NOTEBOOKS.glob("0[1-9]-*.ipynb"))
    assert sorted(listed) == notebooks
    for name in notebooks:
        assert minutes(NOTEBOOKS / name) == int(listed[name]), name


def test_the_length_trap_does_not_state_the_wire_bytes_before_its_prediction():
    before = [cells(NOTEBOOKS / "03-the-length-trap.ipynb", "markdown")[i] for i in range(4)]
    table = cells(NOTEBOOKS / "00-contents.ipynb", "markdown")[2]
    row = next(line for line in table.splitlines() if "(03-the-length-trap.ipynb)" in line)
    for text in before + [row]:
        assert "140" not in text


def test_the_glossary_defines_the_words_the_course_uses():
    glossary = next(text for text in cells(NOTEBOOKS / "00-contents.ipynb", "markdown")
                    if text.startswith("## Glossary"))
    for word in ("ledger", "projection", "turn", "envelope", "wire bytes", "UTF-16 unit",
                 "code point", "torn tail", "fsync", "fail closed", "whole-turn rule",
                 "copy-on-write", "flash translation layer", "agnes-3.0-flash"):
        assert f"**{word}" in glossary, word
