"""Notebook 09's course layer: its fixture, the five-part budget split and its chart, the
questions (answers computed, mistakes named, answers never given away) and exercise 10."""

import hashlib

import pytest

from ledgerlab import Journal, request_bytes, select
from ledgerlab.course import fixtures, measures, scenario
from ledgerlab.course.exercises import ARTICLE, EVIDENCE, MEMORY_IDS, q10, variant
from ledgerlab.course.lessons import summaries_and_evidence as lesson
from ledgerlab.course.lessons.summaries_and_evidence import summary_figures
from ledgerlab.course.memorycharts import memory_split_chart
from sentences import says

FIXTURE = (fixtures.SCENARIO_SYSTEM, fixtures.MEMORY_HISTORY, fixtures.MEMORY_QUESTION)
MANDATORY = len(request_bytes(fixtures.SCENARIO_SYSTEM, [], fixtures.MEMORY_QUESTION))
OFFERED = dict(facts=fixtures.PINNED_FACTS[1:], evidence=[fixtures.TLS_EVIDENCE],
               summaries=[fixtures.EARLY_SUMMARY], ids=fixtures.MEMORY_IDS)


def offered(budget, **caps):
    return select(*FIXTURE, budget, **OFFERED, **caps)


def test_the_summary_carries_orchid_17_back_beside_turn_three_and_not_beside_turn_two():
    narrow = lesson.newest_turns_budget(1)
    assert (MANDATORY, narrow, lesson.summary_bytes()) == (167, 272, 79)
    assert b"ORCHID-17" not in select(*FIXTURE, narrow).payload
    carried = lesson.with_memory(narrow + lesson.summary_bytes())
    assert (carried.kept, carried.summary_ids, b"ORCHID-17" in carried.payload) == \
        (1, ("early",), True)
    wider = lesson.with_memory(lesson.newest_turns_budget(2))  # turns two and three fit
    assert (wider.kept, wider.summary_ids, b"ORCHID-17" in wider.payload) == (2, (), False)
    assert lesson.sent_summary_line() == "[turns: one, two] Code ORCHID-17, Java 8 client."


@pytest.mark.parametrize("budget", [167, 229, 230, 308, 309, 320, 321, 399, 400, 480, 504, 505,
                                    532, 533, 633, 634, 900])
@pytest.mark.parametrize("caps", [{}, {"max_summary_bytes": 78}, {"max_evidence_bytes": 90},
                                  {"max_fact_bytes": 0, "max_summary_bytes": 100}])
def test_each_memory_split_adds_up_to_what_select_sends(budget, caps):
    split, = measures.memory_split(*FIXTURE, [budget], **OFFERED, **caps)
    chosen = offered(budget, **caps)
    assert split.sent == chosen.size and split.mandatory == MANDATORY
    assert (split.facts, split.evidence, split.summaries) == \
        (chosen.fact_bytes, chosen.evidence_bytes, chosen.summary_bytes)
    assert split.counts == (chosen.facts_kept, chosen.evidence_kept, len(chosen.summary_ids),
                            chosen.kept)


def test_a_budget_below_the_mandatory_input_is_a_gap_in_the_memory_split():
    assert measures.memory_split(*FIXTURE, [166, 167], **OFFERED)[0] is None


def test_the_memory_chart_says_where_each_part_arrives_and_where_the_summary_goes():
    chart = memory_split_chart(*FIXTURE, range(150, 701), **OFFERED, max_summary_bytes=100,
                               budget=480)
    text = chart.description
    says(text, "1 fact", "1 evidence item", "1 summary", "offered", "summary cap", "100 bytes",
         in_order=True)
    assert "rejected below 167 bytes" in text
    for step in ("from 230: 1 fact (63 bytes), 230 sent",
                 "from 309: 1 fact (63 bytes), 1 summary (79 bytes), 309 sent",
                 "from 321: 1 fact (63 bytes), 1 evidence item (91 bytes), 321 sent",
                 "from 505: 1 fact (63 bytes), 1 evidence item (91 bytes), 1 summary (79 bytes), "
                 "1 turn (105 bytes), 505 sent",
                 "from 533: 1 fact (63 bytes), 1 evidence item (91 bytes), 2 turns (212 bytes)"):
        assert step in text, step
    says(text, "480 bytes", "system", "question", 167, "facts", 63, "evidence", 91, "summaries",
         79, "turns", 0, "400 bytes", in_order=True)  # the marked budget, part by part
    assert chart.png().startswith(b"\x89PNG")
    bare = memory_split_chart(*FIXTURE, range(100, 200)).description
    says(bare, "0 facts", "0 evidence items", "0 summaries", "offered", "from 167",
         "mandatory input", "167 sent", in_order=True)


def test_forget_leaves_no_orchid_17_in_any_file_and_no_summary(tmp_path):
    with Journal(tmp_path / "conversation.log") as journal:
        for turn_id, turn in fixtures.MEMORY_TURNS:
            journal.commit(turn_id, turn.question, turn.answer)
        summary = fixtures.EARLY_SUMMARY
        journal.add_summary(summary.id, summary.text, covers=summary.covers)
        assert journal.derived_from("one").summaries == (summary,)
        assert any(scenario.trace(tmp_path, fixtures.OLD_FACT).values())
        journal.forget("one")
        assert journal.summaries() == []
        assert not any(scenario.trace(tmp_path, fixtures.OLD_FACT).values())


# --- The questions ----------------------------------------------------------------------

QUESTIONS = [lesson.predict09, lesson.predict09_room, lesson.predict09_forget,
             *lesson.quiz09.questions]


def test_the_answers_are_computed_from_the_library():
    assert [question._answer() for question in QUESTIONS] == [79, 0, 0, 1, 1, 152]
    assert lesson.quiz09[3]._answer() == lesson.with_memory(
        10**5, summaries=(), evidence=(fixtures.TLS_EVIDENCE, lesson.TLS_13_EVIDENCE)
    ).evidence_bytes


@pytest.mark.parametrize("question, answer, named", [
    (lesson.predict09, 30, "text alone"),
    (lesson.predict09, 48, "the summary's line"),
    (lesson.predict09, 78, "separators"),
    (lesson.predict09, 61, "leaves out the covers"),
    (lesson.predict09, 80, "off by one"),
    (lesson.predict09_room, 1, "not a turn"),
    (lesson.predict09_forget, 1, "deleted with any turn it covers"),
    (lesson.quiz09[1], 0, "over its summaries budget"),
    (lesson.quiz09[1], 2, "room for turns two and three"),
    (lesson.quiz09[2], 2, "covers the forgotten turn"),
    (lesson.quiz09[2], 0, "second one"),
    (lesson.quiz09[3], 181, "a message of its own"),
    (lesson.quiz09[3], 150, "newline"),
])
def test_each_mistake_is_named_without_the_answer(question, answer, named):
    feedback = question.check(answer)
    assert not feedback and named in feedback.message
    assert str(question._answer()) not in feedback.message or question._answer() < 10


def test_the_right_answers_are_accepted():
    for question in QUESTIONS:
        assert question.check(question._answer()), question.prompt


# --- Exercise 10, on the article's fixture (the self-paced edition's is a variant) ----------

MEMORY, SUMMARY = ARTICLE.memory, ARTICLE.summary


def test_q10_accepts_the_smallest_budget_and_explains_it():
    answer, (system, turns, question) = summary_figures(ARTICLE)["answer"], MEMORY
    assert answer == len(request_bytes(system, turns[-1:], question, evidence=[EVIDENCE],
                                       summaries=[SUMMARY])) == 442
    feedback = q10.check(answer, fixture=ARTICLE)
    assert feedback
    says(feedback.message, 442, "167 mandatory", 91, "evidence", 79, "summary", 105,
         in_order=True)
    chosen = select(*MEMORY, answer, evidence=[EVIDENCE], summaries=[SUMMARY], ids=MEMORY_IDS)
    assert (chosen.kept, chosen.summary_ids, chosen.evidence_kept) == (1, ("early",), 1)


@pytest.mark.parametrize("name, says", [
    ("no_evidence", "paid before the summaries"), ("no_summary", "bytes of its own"),
    ("no_turn", "newest turn is dropped"), ("line_only", "not the system message"),
    ("no_covers", "leaves out the summary's covers"), ("two_turns", "never travels beside"),
    ("every_turn", "never travels beside"),
])
def test_q10_names_each_mistake(name, says):
    figures = summary_figures(ARTICLE)
    feedback = q10.check(figures[name], fixture=ARTICLE)
    assert not feedback and says in feedback.message
    assert str(figures["answer"]) not in feedback.message


@pytest.mark.parametrize("answer, says", [
    (441, "0 turns"), (443, "a smaller budget does too"), (100, "BudgetError"),
    (10**6, "keeps 3 turns"), (442.5, "whole number"), ("442", "an int"),
])
def test_q10_refuses_other_budgets_with_counts_not_the_answer(answer, says):
    feedback = q10.check(answer, fixture=ARTICLE)
    assert not feedback and says in feedback.message
    assert "442" not in feedback.message.replace(repr(answer), "")


@pytest.mark.slow  # checks q10 on 200 variants
def test_q10_has_a_window_on_every_variant_and_the_articles_answer_is_not_theirs():
    refused = 0
    for number in range(200):
        v = variant(hashlib.sha256(str(number).encode()).hexdigest()[:16])
        figures = summary_figures(v)
        assert figures["answer"] < figures["two_turns"], v  # the summary fits where turn two does not
        assert q10.check(figures["answer"], fixture=v), v
        assert not q10.check(figures["answer"] - 1, fixture=v), v
        if figures["answer"] != summary_figures(ARTICLE)["answer"]:
            refused += not q10.check(summary_figures(ARTICLE)["answer"], fixture=v)
    assert refused > 150
