"""Predictions and questionnaires: right answers of any integral type pass, and each kind of
plausible wrong answer gets feedback that names the mistake without giving the answer."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from ledgerlab.course import fixtures, questions, syllabus
from ledgerlab import Turn, request_bytes, request_tokens, select, tokens
from ledgerlab.course import measures
from ledgerlab.course.grading.rubrics import teacher_key
from ledgerlab.course.feedback import (FEW, NEGATIVE, OFF_BY_ONE, Discussion, Question,
                                       Questionnaire)
from ledgerlab.course.lessons import (bad_slice_vs_whole_turn, pinned_facts, the_boundary_table,
                                      the_ledger, the_length_trap)

QUIZZES = [questions.quiz01, questions.quiz02, questions.quiz03, questions.quiz04,
           questions.quiz05, questions.quiz06, questions.quiz07, questions.quiz08,
           questions.quiz10, questions.quiz11]
PREDICTIONS = [questions.predict01, questions.predict02, questions.predict02_count,
               questions.predict03, questions.predict04_first, questions.predict04_second,
               questions.predict04, questions.predict05_narrow, questions.predict05,
               questions.predict05_wide, questions.predict05_torn, questions.predict06, questions.predict07,
               questions.predict07_tokens, questions.predict08, questions.predict08_turns,
               questions.predict10, questions.predict10_tools, questions.predict10_dialect,
               questions.predict11_image, questions.predict11_loop,
               questions.predict11_reasoning]
CHECKED = PREDICTIONS + [q for quiz in QUIZZES for q in quiz.questions if isinstance(q, Question)]

# The course's figures, as the notebooks teach them.
ANSWERS = [
    (questions.predict01, 3), (questions.predict02, 309), (questions.predict02_count, 2),
    (questions.predict03, 140), (questions.predict04, 0), (questions.predict05, 3),
    (questions.predict05_torn, 3), (questions.predict06, 0),
    (questions.predict04_first, 308), (questions.predict04_second, 375),
    (questions.predict05_narrow, 264), (questions.predict05_wide, 480),
    (questions.quiz01[1], 488), (questions.quiz01[2], 242),
    (questions.quiz02[1], 1), (questions.quiz02[2], 118),
    (questions.quiz03[1], 14), (questions.quiz03[2], 6), (questions.quiz03[3], 182),
    (questions.quiz04[1], 355), (questions.quiz04[2], 137), (questions.quiz04[3], 1),
    (questions.quiz05[1], 379), (questions.quiz05[2], 526),
    (questions.quiz06[1], 5), (questions.quiz06[2], 336),
    (questions.predict07, 1), (questions.predict07_tokens, 2),
    (questions.quiz07[1], 15), (questions.quiz07[4], 234),
    (questions.predict08, 67), (questions.predict08_turns, 0),
    (questions.quiz08[1], 1), (questions.quiz08[2], 0), (questions.quiz08[3], 2),
    (questions.predict10, 1), (questions.predict10_tools, 297),
    (questions.predict10_dialect, 871), (questions.predict11_image, 308_280),
    (questions.predict11_loop, 684), (questions.predict11_reasoning, 326),
    (questions.quiz10[1], 535), (questions.quiz11[1], 1105), (questions.quiz10[2], 541),
    (questions.quiz11[3], 248),
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
    # A word answer is one of its choices, and the feedback on any other word lists them all.
    candidates = set(question._mistakes()) | (set(question.choices) if isinstance(answer, str)
                                              else {answer - 1, answer + 1, answer * 2, 0})
    for given in candidates - {answer}:
        feedback = question.check(given)
        assert feedback.status == "incorrect"
        assert not re.search(rf"\b{answer}\b", feedback.message)


def test_placeholder_reads_as_not_answered():
    assert questions.predict04.check(...).status == "unanswered"
    assert questions.predict04.check().status == "unanswered"


@pytest.mark.parametrize("question, given, says", [
    (questions.predict04, 1, "pack the older"),  # a packing answer
    (questions.predict03, 114, "UTF-16 units"),  # the wrong unit
    (questions.predict03, 113, "code points"),
    (questions.predict03, 40, "envelope"),
    (questions.predict03, 228, "two bytes per UTF-16 unit"),  # UTF-16 bytes, 114 x 2
    (questions.predict03, 139, "the budget the article rejects"),  # the budget, not a size
    (questions.predict03, 141, "off by one"),
    (questions.predict02_count, 3, "counts turns"),
    (questions.quiz01[1], 366, "before the commit"),
    (questions.quiz01[1], 122, "append-only"),
    (questions.quiz01[2], 175, "earlier projection"),  # the projection, not the ledger
    (questions.quiz01[2], 250, "ceiling"),
    (questions.quiz01[2], 309, "all three turns"),
    (questions.quiz02[1], 2, "does it fit in 240 bytes"),
    (questions.quiz02[1], 5, "messages"),
    (questions.quiz02[2], 108, "old system message"),
    (questions.quiz02[2], 117, "off by one"),  # the largest refused budget
    (questions.quiz03[1], 6, "UTF-16 units"),
    (questions.quiz03[1], 4, "code points"),
    (questions.quiz03[1], 13, "3 bytes for the new emoji"),  # 3 bytes per emoji
    (questions.quiz03[1], 10, "before the second emoji"),
    (questions.quiz03[2], 4, "code points"),
    (questions.quiz03[2], 14, "UTF-8 bytes"),
    (questions.quiz03[2], 5, "single unit"),
    (questions.quiz03[3], 194, "emoji still in it"),
    (questions.quiz03[3], 190, "4 UTF-8 bytes"),
    (questions.quiz03[3], 136, "gson and httpx"),
    (questions.quiz04[1], 408, "ceiling"),
    (questions.quiz04[1], 428, "full request now"),  # the grown request, over the budget
    (questions.quiz04[1], 354, "off by one"),
    (questions.predict04_first, 408, "ceiling"),  # the budget as a target
    (questions.predict04_second, 514, "cut inside a message"),
    (questions.predict05_wide, 530, "both questions"),
    (questions.quiz04[2], 140, "with the full stop"),
    (questions.quiz04[2], 139, "one character, but how many UTF-8 bytes"),  # the full stop as one byte
    (questions.quiz04[2], 138, "off by one"),
    (questions.quiz04[2], 113, "UTF-16 units"),
    (questions.quiz04[2], 112, "code points"),
    (questions.quiz04[3], 2, "grew by those 10 bytes"),
    (questions.quiz04[3], 0, "did not change"),
    (questions.quiz05[1], 480, "do not fit"),  # the wide request as it was
    (questions.quiz05[1], 479, "ceiling"),
    (questions.quiz05[1], 264, "narrow request"),
    (questions.quiz05[1], 380, "off by one"),
    (questions.quiz05[2], 626, "keeps the torn bytes"),
    (questions.quiz05[2], 556, "before opening"),
    (questions.quiz05[2], 525, "off by one"),
    (questions.quiz06[1], 6, "rounds up"),
    (questions.quiz06[1], 170, "one line"),
    (questions.predict01, 1, "request keeps"),
    (questions.predict01, 0, "moved the turns out of the ledger"),
    (questions.quiz02[1], 0, "even the newest turn does not fit"),
    (questions.predict05_torn, 2, "loses an acknowledged turn"),
    (questions.quiz08[3], 0, "kept turn stay"),
    (questions.predict04, -1, "cannot be negative"),
    (questions.predict08_turns, -1, "cannot be negative"),
    (questions.predict02_count, 4, "follows from"),
    (questions.predict05_torn, 4, "never returned"),
    (questions.predict06, 74, "part of a line"),
    (questions.predict02, 108, "whole-turn rule's smallest request"),
    (questions.quiz06[2], 166, "deletes turn one too"),  # the projection taken for a deletion
    (questions.quiz06[2], 514, "forget removes its line"),
    (questions.predict07, 2, "reserve is taken from the window"),
    (questions.predict07, 0, "mandatory input alone"),
    (questions.predict07_tokens, 1, "60-token limit"),
    (questions.quiz07[1], 12, "reply is primed"),
    (questions.quiz07[1], 9, "mandatory input's two messages"),
    (questions.quiz07[1], 21, "both stored turns"),
    (questions.quiz07[1], 17, "role names"),
    (questions.quiz07[4], 235, "neither keeps fewer"),
    (questions.quiz07[4], 308, "token limit binds"),
    (questions.quiz07[4], 140, "smallest budget that sends anything"),
    (questions.predict08, 30, "text alone"),
    (questions.predict08, 36, "origin included"),
    (questions.predict08, 66, "a comma joins the fact's message"),  # a missing comma or space
    (questions.predict08, 65, "a space follows the origin"),  # both missing
    (questions.predict08, 61, "leaves out the origin"),
    (questions.predict08, 60, "text alone"),
    (questions.predict08_turns, 1, "same budget, first"),
    (questions.quiz08[1], 0, "Which fact comes first now"),
    (questions.quiz08[1], 2, "101 bytes"),
    (questions.quiz08[2], 2, "token limit is a separate limit"),
    (questions.quiz08[2], 1, "facts' tokens come out of the same 60"),
    (questions.quiz08[3], 3, "retain deletes the facts"),
    (questions.quiz08[3], 1, "whose origin is the dropped turn"),
    (questions.predict10, 2, "where the whole-turn rule would"),  # the turn, not the pair
    (questions.predict10, 0, "already refused"),
    (questions.predict10_tools, 154, "JSON Schema of the parameters alone"),
    (questions.predict10_tools, 286, "the tool's entry alone"),
    (questions.predict10_tools, 53, "tokens"),  # the wrong unit
    (questions.predict10_tools, 296, "off by one"),
    (questions.predict10_dialect, 908, "openai-chat request"),  # the other dialect's size
    (questions.predict10_dialect, 603, "leaves the tool out"),
    (questions.predict10_dialect, 868, "max_tokens 1"),  # a reserve of 1, not the lesson's
    (questions.predict11_image, 230_778, "how does JSON carry an image"),  # the file, not base64
    (questions.predict11_image, 307_704, "base64 alone"),
    (questions.predict11_image, 337, "tokens"),  # the wrong unit
    (questions.predict11_loop, 464, "belongs to the question being answered"),  # round dropped
    (questions.predict11_loop, 1_128, "every stored turn"),
    (questions.predict11_loop, 791, "keeps turn two"),
    (questions.quiz10[1], 594, "not a copy of the first"),
    (questions.quiz10[1], 545, "twice"),
    (questions.quiz10[1], 297, "second tool's entry"),
    (questions.quiz11[1], 2125, "scales it down first"),  # the tile rule without scaling
    (questions.quiz11[1], 1020, "85 tokens"),
    (questions.quiz11[1], 255, "photo's count"),
    (questions.quiz10[2], 694, "first-user rule"),  # a user message taken for a question
    (questions.quiz10[2], 598, "starts on A1"),
    (questions.quiz10[2], 434, "drops too much"),
    (questions.quiz10[2], 690, "openai-chat slice"),  # the other dialect's slice
    (questions.predict11_reasoning, 325, "comma"),  # the block without what joins it
    (questions.quiz11[3], 326, "Anthropic"),  # the other dialect's reasoning
])

def test_a_known_mistake_is_named(question, given, says):
    feedback = question.check(given)
    assert feedback.status == "incorrect" and says in feedback.message


def test_off_by_one_is_named_but_not_which_way():
    for question, answer in ANSWERS:
        if isinstance(answer, int) and answer >= FEW:
            for given in (answer - 1, answer + 1):
                if given not in question._mistakes():
                    feedback = question.check(given)
                    assert feedback.message == OFF_BY_ONE
    assert "higher" not in OFF_BY_ONE and "lower" not in OFF_BY_ONE


@pytest.mark.parametrize("question, answer",
                         [(q, a) for q, a in ANSWERS if isinstance(a, int) and a < FEW])
def test_a_small_count_never_hears_that_it_is_close(question, answer):
    """Among a few counts (0 to 3 turns), "off by one, and close" all but names the answer: a
    neighbour hears its named mistake or the hint, never how near it is."""
    for given in set(range(answer + 4)) - {answer}:
        message = question.check(given).message
        assert "off by one" not in message and "close" not in message, (given, message)
    for given in (answer - 1, answer + 1):
        assert question.check(given).message in {*question._mistakes().values(),
                                                 f"not {given}. Hint: {question._hint}",
                                                 NEGATIVE}


@pytest.mark.parametrize("question, answer", [(q, a) for q, a in ANSWERS if isinstance(a, int)])
def test_a_negative_count_is_refused_as_no_count(question, answer):
    for given in (-1, -answer - 1, np.int64(-2)):
        feedback = question.check(given)
        assert feedback.status == "incorrect" and feedback.message == NEGATIVE
    assert not re.search(r"\d", NEGATIVE)  # no digit: for an answer of 0 it would be a clue


# Calls that compute an answer: a hint names the method, never a call that prints the answer.
ANSWERING_CALL = re.compile(r"\b(?:measures|toolturns|charts|scenario)\.\w+|\brequest_bytes\b"
                            r"|\bask select\b|\bselect\(|\.encode\(|\.fact_bytes\b|\.kept\b")
CALL = re.compile(r"[\w.]+\([^()]*\)")


@pytest.mark.parametrize("question", CHECKED, ids=lambda q: q.prompt[:40])
def test_no_hint_names_a_call_that_returns_the_answer(question):
    """predict02_count's hint named measures.count_slice(..., 120): run, it printed the answer.
    A call may appear in a hint only as the prompt itself writes it (retain(last=1))."""
    hint = question._hint
    assert not ANSWERING_CALL.search(hint), hint
    for call in CALL.findall(hint):
        assert call in question.prompt, (call, hint)


NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?![\w])")


def shown_numbers(path):
    """Every number a notebook prints in its outputs or states in its text."""
    notebook = json.loads(path.read_text())
    found = set()
    for cell in notebook["cells"]:
        texts = ["".join(cell["source"])] if cell["cell_type"] == "markdown" else []
        for output in cell.get("outputs", []):
            texts.append("".join(output.get("text", "")))
            texts.append("".join(output.get("data", {}).get("text/plain", "")))
        for text in texts:
            found |= {int(n.replace(",", "")) for n in NUMBER.findall(text)}
    return found


def test_most_quiz_questions_ask_one_step_past_what_their_notebook_shows():
    """A quiz answer its notebook already printed tests memory: at least half must not be.

    Only answers of 20 or more are compared: small counts (1 turn, 6 units) appear in every
    notebook by chance, so their absence cannot be told apart from luck."""
    checked = {number: [q for q in getattr(questions, f"quiz{number}").questions
                        if isinstance(q, Question) and not q.choices and q._answer() >= 20]
               for number in (f"{lesson.number:02}" for lesson in syllabus.sessions())}
    shown = {number: shown_numbers(next(NOTEBOOKS.glob(f"{number}-*.ipynb")))
             for number in checked}
    fresh = [q.prompt for number, quiz in checked.items() for q in quiz
             if q._answer() not in shown[number]]
    assert len(fresh) * 2 >= sum(map(len, checked.values())), fresh


def test_an_unknown_wrong_answer_gets_the_hint():
    feedback = questions.predict04.check(7)
    assert feedback.message == f"not 7. Hint: {questions.predict04._hint}"


def test_a_choice_question_names_its_choices():
    asked = Question("Yes or no?", lambda: "no", explanation="because.", hint="think.",
                     choices=("yes", "no"))
    feedback = asked.check("maybe")
    assert feedback.status == "incorrect" and "'yes', 'no'" in feedback.message
    assert asked.check(0).status == "incorrect" and asked.check(" NO ")


def test_questionnaires_number_their_questions_and_refuse_other_numbers():
    quiz = questions.quiz04
    text = repr(quiz)
    assert quiz.title == "04 · The boundary table" and text.splitlines()[0].endswith(quiz.title)
    assert f"\n1. {quiz.questions[0].prompt}" in text and f"\n3. {quiz.questions[2].prompt}" in text
    assert "quiz[1].check(...)" in text
    for bad in (0, len(quiz) + 1, "1", 1.0):
        with pytest.raises(IndexError, match="numbered 1 to 3"):
            quiz[bad]
    assert quiz[np.int64(1)] is quiz.questions[0]


def test_quizzes_are_short_and_open_questions_have_a_model_answer():
    for quiz in QUIZZES:  # 10's, the longest lesson's, has five: tools, images, dialects, reasoning
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

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
# The contents and the lessons: not the exercises or their solutions.
COURSE = [path for path in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
          if int(path.name[:2]) < syllabus.EXERCISES.number]


def cells(path, kind):
    return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]
            if cell["cell_type"] == kind]


def test_the_course_notebooks_are_there():
    assert [path.name[:2] for path in COURSE] == ["00", "01", "02", "03", "04", "05", "06", "07",
                                                  "08", "09", "10", "11", "12"]


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


def notebook_cells(path):
    return json.loads(path.read_text())["cells"]


def shown_before(path, marker):
    """Each cell's text (markdown source, code outputs) up to the cell whose source has
    ``marker``."""
    texts = []
    for cell in notebook_cells(path):
        source = "".join(cell["source"])
        if marker in source:
            return texts
        if cell["cell_type"] == "markdown":
            texts.append(source)
        for output in cell.get("outputs", []):
            texts.append("".join(output.get("text", ""))
                         + "".join(output.get("data", {}).get("text/plain", "")))
    raise AssertionError(f"{marker} not in {path.name}")


def test_the_length_trap_does_not_state_the_wire_bytes_before_its_prediction():
    length_trap = NOTEBOOKS / "03-the-length-trap.ipynb"
    before = shown_before(length_trap, "predict03.check(")
    contents = [text for text in cells(NOTEBOOKS / "00-contents.ipynb", "markdown")
                if text.startswith(("## The question", "## The series"))]
    assert len(contents) == 2
    for text in before + contents:
        assert not re.search(r"\b140\b", text), text
    # ... but it shows what the prediction is worked out from: the fixture and the body.
    assert any(fixtures.BOUNDARY_SYSTEM in text for text in before)
    assert any('"role":"system"' in text and fixtures.BOUNDARY_QUESTION in text
               for text in before)


def test_no_heading_after_a_prediction_gives_its_answer_away():
    """The markdown right after a Predict cell must not state the outcome it asks for."""
    tells = ("did not change", "unchanged", "still holds", "is back", "keeps 0", "no turn")
    for path in COURSE[1:]:
        all_cells = notebook_cells(path)
        for index, cell in enumerate(all_cells[:-1]):
            if ".check(my_answer)" in "".join(cell["source"]):
                after = all_cells[index + 1]
                if after["cell_type"] == "markdown":
                    heading = "".join(after["source"]).splitlines()[0].lower()
                    assert not any(tell in heading for tell in tells), (path.name, heading)


EXPLORER = re.compile(r"^(\w+) = \w*Explorer\(.*\)\n\1\s*$", re.MULTILINE)


@pytest.mark.parametrize("path", COURSE[1:], ids=lambda path: path.name[:2])
def test_an_explorer_shows_what_its_own_cell_says(path):
    """A displayed explorer is never moved by a later cell: the static site and Run All show
    a widget's final state where it was created, so a later change would show there (and
    could answer a prediction above it)."""
    code = cells(path, "code")
    for index, text in enumerate(code):
        for name in EXPLORER.findall(text):
            for later in code[index + 1:]:
                assert not re.search(rf"\b{name}\.\w+\.value\s*=", later), (path.name, later)


def test_the_glossary_defines_the_words_the_course_uses():
    glossary = next(text for text in cells(NOTEBOOKS / "00-contents.ipynb", "markdown")
                    if text.startswith("## Glossary"))
    for word in ("ledger", "projection", "turn", "envelope", "wire bytes", "UTF-16 unit",
                 "code point", "torn tail", "fsync", "fail closed", "whole-turn rule",
                 "copy-on-write", "flash translation layer", "agnes-3.0-flash",
                 "tokenizer", "context window", "output reserve", "binds", "contiguous suffix",
                 "cap** (`JournalFull`)", "BMP", "pinned fact", "origin", "facts budget",
                 "dialect", "tool call", "tool result", "tool schema", "tool loop in progress",
                 "round", "tile rule", "check_request", "base64"):
        assert f"**{word}" in glossary, word


def test_contents_and_readme_name_the_article_and_its_reference():
    title = "Java history and request windows: can a trimmed fact return?"
    contents = cells(NOTEBOOKS / "00-contents.ipynb", "markdown")[1]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for text in (contents, readme):
        text = " ".join(text.split())
        assert title in text and "reference implementation" in text and "Gson" in text


def test_the_answer_key_is_the_one_the_library_computes():
    key = ROOT / "teacher" / "answer-key.md"
    assert key.read_text(encoding="utf-8") == teacher_key(), \
        "teacher/answer-key.md drifted: run `python tools/answer_key.py`"
    listed = [part for parts in questions.NOTEBOOK_QUESTIONS.values() for _, part in parts]
    covered = {id(q) for part in listed
               for q in (part.questions if isinstance(part, Questionnaire) else [part])}
    assert {id(q) for q in CHECKED} <= covered
    for question, answer in ANSWERS:
        assert f"**{answer}**. " in key.read_text(encoding="utf-8")


# --- The figures an explanation states: computed from the fixture, none from memory ------

COUNT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
               "ten", "eleven", "twelve")
NUMERAL = re.compile(r"(?<![\w.-])\d[\d,]*(?![\w])")
# A count in words; not "one" (a pronoun as often as a count) and not a turn's name ("turn
# two", as the scenario names its turns).
COUNT_WORD = re.compile(r"(?<!turn )\b(" + "|".join(COUNT_WORDS[2:]) + r")\b")
# The rules' own numbers: UTF-8 and UTF-16 widths, base64's 4 for 3, the tile rule's numbers,
# the cookbook's 3 per message and 3 to prime the reply, and notebook numbers (02).
RULES = {1, 2, 3, 4, 85, 170, 512, 768, tokens.PER_MESSAGE, tokens.REPLY_PRIMING}


def numerals(text):
    return {int(found.replace(",", "")) for found in NUMERAL.findall(text)}


def count_words(text):
    return {COUNT_WORDS.index(found) for found in COUNT_WORD.findall(text)}


def derived_figures():
    """Each explanation's figures that its prompt does not give, as the library computes
    them: (numerals, counts in words)."""
    pinned, facts = pinned_facts.PINNED, fixtures.PINNED_FACTS
    slice_sizes = measures.suffix_sizes(*bad_slice_vs_whole_turn.SLICE)
    mandatory_facts = request_tokens(pinned[0], [], pinned[2], facts=facts)
    tiles = (-(-1365 // 512), -(-768 // 512))  # the screenshot scaled to 1365x768
    wide = [turn for _, turn in fixtures.SCENARIO_TURNS] + [
        Turn(fixtures.NEXT_STEP_QUESTION, fixtures.LOCAL_FIXTURE_REPLY)]
    return {
        questions.predict04: ({len(fixtures.BOUNDARY_HISTORY),
                               measures.suffix_sizes(*the_boundary_table.BOUNDARY)[1]}, set()),
        questions.predict08_turns: ({len(request_bytes(pinned[0], [], pinned[2]))}, set()),
        questions.quiz01[2]: (set(), {len(fixtures.SLICE_HISTORY),
                                      select(*bad_slice_vs_whole_turn.SLICE, 250).kept}),
        questions.quiz02[1]: ({*slice_sizes[:3], slice_sizes[1] - slice_sizes[0]}, {2}),
        questions.quiz03[1]: ({len(fixtures.BOUNDARY_QUESTION.encode())}, set()),
        questions.quiz03[3]: ({the_length_trap._requests_mandatory(fixtures.BOUNDARY_QUESTION)
                               - the_length_trap._requests_mandatory(the_length_trap.NO_EMOJI)},
                              set()),
        questions.quiz04[2]: ({len(fixtures.BOUNDARY_SYSTEM),
                               len(fixtures.BOUNDARY_SYSTEM.encode())},
                              {len(the_boundary_table.NO_FULL_STOP)}),  # the other characters
        questions.quiz05[1]: (set(), {select(fixtures.SCENARIO_SYSTEM, wide, fixtures.WIDE_QUESTION,
                                             479).kept}),
        questions.quiz05[2]: (set(), {the_ledger._journal_after_torn_tail(100)[0]}),
        questions.quiz07[1]: (set(), {2}),  # the mandatory input's two messages
        questions.quiz08[1]: ({select(*pinned, 1_000, facts=facts[1:]).fact_bytes,
                               select(*pinned, 1_000, facts=facts).fact_bytes}, set()),
        questions.quiz08[2]: ({mandatory_facts,
                               request_tokens(pinned[0], pinned[1][-1:], pinned[2], facts=facts)
                               - mandatory_facts}, {len(facts)}),
        questions.quiz08[3]: (set(), {questions.quiz08[3]._answer()}),
        questions.quiz11[1]: ({*tiles, tiles[0] * tiles[1]}, set()),
    }


def test_every_figure_an_explanation_states_is_given_or_computed():
    """quiz04[2] said 。 is 3 bytes "like the other ten": the system message has nine others.
    A figure in an explanation is in its prompt, one of the rules' numbers, or computed here
    from the fixture (a count in words apart from the numerals, so that "ten" is not excused
    by the 10 characters); a new figure fails until it is computed."""
    derived = derived_figures()
    for question in CHECKED:
        given = numerals(question.prompt) | count_words(question.prompt)
        digits, words = derived.get(question, (set(), set()))
        explanation = question.explanation
        assert numerals(explanation) <= given | RULES | digits, (explanation, digits)
        assert count_words(explanation) <= given | words, (explanation, words)


def test_the_full_stop_explanation_counts_the_system_message():
    system, explanation = fixtures.BOUNDARY_SYSTEM, questions.quiz04[2].explanation
    assert system.endswith("。") and len("。".encode()) == 3
    assert all(len(char.encode()) == 3 for char in system)  # "3 bytes, like each of the others"
    others = re.search(r"other (\w+)", explanation).group(1)
    assert COUNT_WORDS.index(others) == len(system) - 1 == 9
    assert f"({len(system)} characters, {len(system.encode())} bytes)" in explanation
    assert "(10 characters, 30 bytes)" in explanation
    key = (ROOT / "teacher" / "answer-key.md").read_text(encoding="utf-8")
    assert "other ten" not in key and "other nine (10 characters, 30 bytes)" in key


def test_no_solution_opens_with_a_code_name_it_would_capitalize():
    """solution() capitalizes an explanation's first letter: predict01's read "Answer: 3.
    Select reads ...", a function that does not exist. No explanation, and no model answer
    (the teacher's page capitalizes those), starts with a name from the code."""
    import ledgerlab
    from ledgerlab import Journal

    names = {*ledgerlab.__all__, *ledgerlab.ENCODERS, *ledgerlab.DIALECTS,
             *(name for name in dir(Journal) if not name.startswith("_"))}
    assert {"select", "requests", "retain"} <= names  # the three this test was written for
    texts = [q.explanation for q in CHECKED] + [q.model_answer for quiz in QUIZZES
                                                for q in quiz.questions
                                                if isinstance(q, Discussion)]
    for text in texts:
        first = text.split()[0]
        assert first[:1].isupper() or first[:1].isdigit() or (
            first.rstrip(",:;") not in names and not re.search(r"[(_=.`]", first)), text
