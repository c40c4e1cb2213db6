"""Notebook 11's section on reasoning between tool calls: the stand-in fixtures, what a naive
trimmer's bodies get from check_request, the prediction and quiz question (answers computed,
mistakes named, never given away) and exercise 11 on every variant."""

import hashlib
import json
from pathlib import Path

import pytest

from ledgerlab import Reasoning, request_bytes, select
from ledgerlab.course import fixtures, reasoning
from ledgerlab.course.exercises import ARTICLE, q11, variant
from ledgerlab.course.lessons.images_loops_and_reasoning import reasoned, reasoned_figures
from ledgerlab.course.questions import predict11_reasoning, quiz11

A, R = reasoning.ANTHROPIC, reasoning.RESPONSES
QUIZ = quiz11[3]


def test_the_stand_ins_are_kept_as_given_and_marked_so():
    assert fixtures.THINKING.as_dict == fixtures.THINKING_BLOCK
    assert fixtures.RESPONSES_REASONING.as_dict == fixtures.REASONING_ITEM
    source = Path(fixtures.__file__).read_text(encoding="utf-8")
    assert "STAND-INS" in source and "never fetched" in source


def test_the_reasoning_bytes_are_the_item_and_one_comma_in_each_dialect():
    assert reasoning.reasoning_bytes(A) == len(fixtures.THINKING.item.encode()) + 1 == 326
    assert reasoning.reasoning_bytes(R) == len(fixtures.RESPONSES_REASONING.item.encode()) + 1 \
        == 248
    assert fixtures.THINKING.item.encode() in reasoning.loop_request(A)


def test_a_dropped_thinking_block_is_refused_in_anthropics_words_only_with_thinking_on():
    payload = reasoning.thinking_on(reasoning.loop_request(A))
    assert reasoning.refusal(payload, A).rule is None
    dropped = reasoning.refusal(reasoning.drop_reasoning(payload, A), A)
    assert dropped.rule == "thinking-first"
    assert dropped.wording.startswith("messages.N.content.0.type: Expected `thinking`")
    assert reasoning.sent_reasoning(reasoning.drop_reasoning(payload, A)) == []
    # without the thinking field, the body alone says nothing of thinking
    off = reasoning.drop_reasoning(reasoning.loop_request(A), A)
    assert reasoning.refusal(off, A).rule is None


def test_a_shortened_thinking_text_passes_check_request_the_provider_alone_can_tell():
    payload = reasoning.thinking_on(reasoning.loop_request(A))
    shortened = reasoning.shorten_thinking(payload)
    [block] = reasoning.sent_reasoning(shortened)
    assert block["signature"] == fixtures.THINKING_BLOCK["signature"]
    assert block["thinking"] != fixtures.THINKING_BLOCK["thinking"]
    assert reasoning.refusal(shortened, A).rule is None


def test_the_responses_loop_cut_after_its_reasoning_is_refused_a_dropped_item_is_not_visible():
    payload = reasoning.loop_request(R)
    cut = reasoning.refusal(reasoning.drop_round_after_reasoning(payload), R)
    assert cut.rule == "reasoning-followed" and "without its required following item" in \
        cut.wording
    assert reasoning.refusal(reasoning.drop_reasoning(payload, R), R).rule is None


def test_select_sends_the_stored_turns_reasoning_item_back_byte_for_byte():
    chosen = select(fixtures.TOOL_SYSTEM, fixtures.REASONED_HISTORY, fixtures.REASONED_QUESTION,
                    1500, tools=[fixtures.LOOKUP_TOOL], dialect=R)
    assert chosen.kept == 3
    assert reasoning.sent_reasoning(chosen.payload) == [fixtures.REASONING_ITEM]
    assert fixtures.RESPONSES_REASONING.item.encode() in chosen.payload
    chat = request_bytes(fixtures.TOOL_SYSTEM, fixtures.REASONED_HISTORY,
                         fixtures.REASONED_QUESTION, tools=[fixtures.LOOKUP_TOOL])
    assert reasoning.sent_reasoning(chat) == []  # openai-chat has no reasoning items


# --- The prediction and the quiz question -------------------------------------------------

@pytest.mark.parametrize("question, answer, wrong", [
    (predict11_reasoning, 326, {325: "comma", 133: "thinking text alone",
                                len(fixtures.THINKING_BLOCK["signature"]): "signature alone",
                                0: "nothing in the loop"}),
    (QUIZ, 248, {247: "comma", 148: "encrypted_content alone", 326: "Anthropic",
                 0: "openai-chat leaves"}),
])
def test_the_reasoning_questions_take_the_measure_and_name_each_mistake(question, answer, wrong):
    assert question._answer() == answer and question.check(answer)
    for value, says in wrong.items():
        feedback = question.check(value)
        assert not feedback and says in feedback.message, (value, feedback.message)
        assert str(answer) not in feedback.message
    assert not question.check(answer + 1)


def test_the_mistakes_are_the_sizes_they_name():
    assert len(fixtures.THINKING_BLOCK["thinking"].encode()) == 133
    assert len(fixtures.REASONING_ITEM["encrypted_content"]) == 148


# --- Exercise 11, on the article's fixture (the self-paced edition's is a variant) ----------

REASONED = reasoned(ARTICLE)


def test_q11_accepts_the_smallest_budget_and_explains_it():
    system, turns, question = REASONED
    answer = reasoned_figures(ARTICLE)["answer"]
    assert answer == len(request_bytes(system, turns[-1:], question,
                                       tools=[fixtures.LOOKUP_TOOL], dialect=R)) == 1020
    feedback = q11.check(answer, fixture=ARTICLE)
    assert feedback and "247-byte reasoning item" in feedback.message
    assert select(*REASONED, answer, tools=[fixtures.LOOKUP_TOOL], dialect=R).kept == 1
    assert select(*REASONED, answer - 1, tools=[fixtures.LOOKUP_TOOL], dialect=R).kept == 0


@pytest.mark.parametrize("name, says", [
    ("no_reasoning", "without its reasoning item"), ("chat", "openai-chat"),
    ("item", "reasoning item alone"), ("blob", "encrypted_content"),
    ("mandatory", "no stored turn"), ("two_turns", "smaller budget"),
    ("every_turn", "smaller budget"),
])
def test_q11_names_each_mistake_without_the_answer(name, says):
    figures = reasoned_figures(ARTICLE)
    feedback = q11.check(figures[name], fixture=ARTICLE)
    assert not feedback and says in feedback.message, feedback.message
    assert str(figures["answer"]) not in feedback.message


@pytest.mark.parametrize("answer, says", [
    (976, "no stored turn"), (100, "BudgetError"), (977.5, "whole number"), ("977", "an int"),
])
def test_q11_refuses_other_budgets(answer, says):
    feedback = q11.check(answer, fixture=ARTICLE)
    assert not feedback and says in feedback.message
    assert "977" not in feedback.message.replace(repr(answer), "")


def test_q11_gives_each_variant_its_own_reasoning_item_and_answer():
    answers, refused = set(), 0
    article = reasoned_figures(ARTICLE)["answer"]
    for number in range(100):
        v = variant(hashlib.sha256(str(number).encode()).hexdigest()[:16])
        system, turns, question = reasoned(v)
        item = next(step for step in turns[-1].steps if isinstance(step, Reasoning))
        assert item.dialect == R and json.loads(item.item)["id"].startswith("rs_")
        assert reasoned(v) == reasoned(v)  # the same key, the same variant
        figures = reasoned_figures(v)
        answers.add(figures["answer"])
        assert q11.check(figures["answer"], fixture=v), v
        assert not q11.check(figures["answer"] - 1, fixture=v), v
        refused += not q11.check(article, fixture=v)
    assert len(answers) > 50 and refused > 90
