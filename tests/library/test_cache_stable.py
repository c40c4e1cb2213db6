"""The cache-stable rule (issue 47): ``select(..., previous=, low_water=)`` holds the last
request's first kept turn while the request from it fits, then cuts once to the low-water
mark. The property tests (select equal to select_reference, every request within its limits,
the prefix shared) are in test_oracle.py, section 7."""

from __future__ import annotations

import math

import pytest

from ledgerlab import (DIALECTS, Evidence, Fact, Journal, RequestOptions, Selection, Turn,
                       check_request, request_bytes, select)

SYSTEM = "You answer from the conversation."


def conversation(count: int) -> list[Turn]:
    return [Turn(f"question {index}: " + "x" * (index % 5 * 9), f"answer {index} " + "y" * 40)
            for index in range(count)]


def calls(turns: list[Turn], budget: int, low_water: float, first_call: int = 1):
    """Each call's Selection, each with the last one as ``previous``: call i sends turns[:i]
    and turns[i]'s question."""
    chosen, previous = [], None
    for index in range(first_call, len(turns)):
        previous = select(SYSTEM, turns[:index], turns[index].question, budget,
                          previous=previous, low_water=low_water)
        chosen.append(previous)
    return chosen


def end_of_turns(payload_of_turns: bytes) -> int:
    """Where the question's message starts in a request whose question is MARK."""
    return payload_of_turns.rindex(b"{", 0, payload_of_turns.index(MARK.encode()))


MARK = "the-question-7f3a"


@pytest.mark.parametrize("low_water", [0, -0.5, 1.01, float("nan"), float("inf")])
def test_a_low_water_mark_out_of_range_is_refused_by_name(low_water):
    with pytest.raises(ValueError, match="low_water must be above 0 and at most 1"):
        select(SYSTEM, conversation(3), "now?", 10_000, low_water=low_water)


@pytest.mark.parametrize("low_water", ["0.5", True, None, [0.5]])
def test_a_low_water_mark_that_is_not_a_number_is_a_type_error(low_water):
    with pytest.raises(TypeError, match="low_water must be a number"):
        RequestOptions(low_water=low_water)


@pytest.mark.parametrize("previous", ["payload", b"{}", 3, {"kept": 1}])
def test_previous_must_be_a_selection(previous):
    with pytest.raises(TypeError, match="previous must be a Selection"):
        select(SYSTEM, conversation(3), "now?", 10_000, previous=previous)


def test_without_previous_the_rule_is_the_whole_turn_rule():
    turns = conversation(40)
    for budget in (600, 1500, 4000):
        assert select(SYSTEM, turns, "now?", budget, low_water=0.3) == select(
            SYSTEM, turns, "now?", budget)


def test_the_first_kept_turn_holds_until_the_request_outgrows_the_budget_then_cuts_once():
    turns = conversation(80)
    budget, low_water = 3000, 0.6
    chosen = calls(turns, budget, low_water)
    cuts = [number for number in range(1, len(chosen))
            if chosen[number].dropped != chosen[number - 1].dropped]
    # A handful of cuts in 79 calls, each a few calls apart (the whole-turn rule moves the
    # first kept turn on every call once the budget is reached).
    sliding = calls(turns, budget, 1.0)
    moved = sum(1 for number in range(1, len(sliding))
                if sliding[number].dropped != sliding[number - 1].dropped)
    assert 0 < len(cuts) <= 12 and moved >= 50
    for number, selection in enumerate(chosen):
        assert selection.size <= budget
        # At least the turns that fit the low-water mark.
        mark = math.floor(low_water * budget)
        history = turns[:number + 1]
        fitting = max(k for k in range(len(history) + 1)
                      if len(request_bytes(SYSTEM, history[len(history) - k:],
                                           turns[number + 1].question)) <= mark)
        assert selection.kept >= fitting
        if number in cuts:  # a cut keeps exactly what fits the mark
            assert selection.kept == fitting
            before = chosen[number - 1]
            held = turns[before.dropped:number + 1]
            assert len(request_bytes(SYSTEM, held, turns[number + 1].question)) > budget


def test_a_held_first_turn_keeps_the_last_requests_bytes_up_to_its_last_turn():
    turns = conversation(30)
    chosen = calls(turns, 2500, 0.5)
    held = 0
    for before, after in zip(chosen, chosen[1:]):
        if after.dropped == before.dropped:
            shared = end_of_turns(request_bytes(SYSTEM, before.turns, MARK))
            assert after.payload[:shared] == before.payload[:shared]
            assert after.turns[:before.kept] == before.turns
            held += 1
    assert held >= 20


def test_a_journal_reopened_between_two_requests_keeps_the_first_turn_and_the_prefix(log):
    turns = conversation(40)
    with Journal(log) as journal:
        for index, turn in enumerate(turns[:30]):
            journal.commit(f"turn-{index}", turn)
        history = journal.history()
    budget = len(request_bytes(SYSTEM, history[-8:], "and now?"))
    first = select(SYSTEM, history, "and now?", budget)
    assert first.dropped == 22 and first.turns[0].id == "turn-22"
    # The process ends; the next one reopens the journal and commits the answer and a turn.
    with Journal(log) as journal:
        journal.commit("turn-30", turns[30])
        journal.commit("turn-31", turns[31])
        history = journal.history()
    second = select(SYSTEM, history, "next?", budget + 400, previous=first, low_water=0.5)
    assert second.turns[0].id == "turn-22" and second.kept == 10
    shared = end_of_turns(request_bytes(SYSTEM, first.turns, MARK))
    assert second.payload[:shared] == first.payload[:shared]


def fifteen_committed_from_turn_9(journal: Journal, turns: list[Turn]):
    """Commit the first 15 turns as turn-0 ... turn-14, and select at the budget that keeps
    turn-9 onwards: that budget and the Selection."""
    for index, turn in enumerate(turns[:15]):
        journal.commit(f"turn-{index}", turn)
    budget = len(request_bytes(SYSTEM, turns[9:15], "q?"))
    return budget, select(SYSTEM, journal.history(), "q?", budget)


def test_the_first_turn_is_found_by_its_id_after_an_older_turn_is_forgotten(log):
    turns = conversation(20)
    with Journal(log) as journal:
        budget, first = fifteen_committed_from_turn_9(journal, turns)
        assert first.turns[0].id == "turn-9"
        journal.forget("turn-2")  # its position moves; its id does not
        journal.commit("turn-15", turns[15])
        second = select(SYSTEM, journal.history(), "r?", budget + 300, previous=first)
    assert second.turns[0].id == "turn-9" and second.dropped == 8
    shared = end_of_turns(request_bytes(SYSTEM, first.turns, MARK))
    assert second.payload[:shared] == first.payload[:shared]


def test_without_ids_the_first_turn_is_found_by_its_position():
    turns = conversation(20)
    first = select(SYSTEM, turns[:12], "q?", 1800)
    second = select(SYSTEM, turns[:13], "r?", 1800 + 200, previous=first)
    assert first.turns[0].id is None
    assert second.dropped == first.dropped and second.kept == first.kept + 1


def test_a_forgotten_first_turn_moves_the_cut_to_the_low_water_mark(log):
    turns = conversation(20)
    with Journal(log) as journal:
        budget, first = fifteen_committed_from_turn_9(journal, turns)
        journal.forget("turn-9")
        second = select(SYSTEM, journal.history(), "q?", budget, previous=first,
                        low_water=0.5)
        alone = select(SYSTEM, journal.history(), "q?", budget // 2)
    assert second.turns == alone.turns and second.kept < first.kept


def test_a_request_that_would_keep_fewer_turns_than_the_mark_holds_is_not_held():
    # The budget grew: the old first turn still fits, but fewer turns than the new mark holds.
    turns = conversation(30)
    first = select(SYSTEM, turns[:20], "q?", 800)
    second = select(SYSTEM, turns[:21], "r?", 20_000, previous=first, low_water=0.9)
    assert second.dropped < first.dropped
    assert second.payload == select(SYSTEM, turns[:21], "r?", 18_000).payload


def test_the_selection_is_unchanged_by_previous_where_it_is_the_first_request():
    turns = conversation(10)
    chosen = select(SYSTEM, turns, "q?", 900, previous=None, low_water=0.2)
    assert isinstance(chosen, Selection) and chosen == select(SYSTEM, turns, "q?", 900)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_evidence_chosen_per_question_goes_after_the_turns_and_keeps_the_prefix(dialect):
    # Each call retrieves other evidence. After the turns, a held request keeps the last
    # request's bytes up to its last turn; after the facts, only up to the evidence.
    turns = conversation(30)
    options = dict(dialect=dialect, facts=[Fact("f1", "The user is in Lyon.", "t0")])

    def evidence(number):
        return [Evidence(f"e{number}", f"passage {number} " + "z" * (number % 4 * 7),
                         f"doc-{number}.md")]

    for after in (True, False):
        previous, held = None, 0
        for index in range(1, len(turns)):
            chosen = select(SYSTEM, turns[:index], turns[index].question, 2600,
                            previous=previous, evidence=evidence(index),
                            evidence_after_turns=after, **options)
            check_request(chosen.payload, dialect)
            assert chosen.evidence_kept == 1
            if previous is not None and chosen.dropped == previous.dropped and previous.kept:
                held += 1
                # The previous request's bytes up to its last turn, with its evidence.
                turns_end = end_of_turns(request_bytes(
                    SYSTEM, previous.turns, MARK, evidence=[] if after else evidence(index - 1),
                    **options))
                shared = next(at for at, (one, other) in enumerate(zip(chosen.payload,
                                                                       previous.payload))
                              if one != other)
                assert shared >= turns_end if after else shared < turns_end
            previous = chosen
        assert held >= 15
