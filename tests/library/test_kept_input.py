"""What a request's fixed input is made of is checked and written once, and kept by value
(``ledgerlab.memo.remembered``): the options of recent keywords, each writer's head and tail,
and each summary's and evidence item's line (kept on it, as a turn's piece is). What is kept
must be what is made anew, a kept value must never let a wrong one through, and nothing
unhashable or refused is kept."""

from __future__ import annotations

import pytest

from ledgerlab import (ENCODERS, BudgetError, DIALECTS, Evidence, Image, InvalidText, InvalidTurn, Summary,
                       Tool, ToolCall, ToolResult, Turn, select)
from ledgerlab.memo import remembered
from ledgerlab.dialects import evidence_line, summary_line
from ledgerlab.wire import request_writer

SYSTEM, CURRENT = "Answer from the tools.", "And now? 🙂"
TOOLS = (Tool("lookup", "Look a code up.", {"type": "object", "properties": {}}),)
STEPS = (ToolCall("call_1", "lookup", '{"q": "where"}'), ToolResult("call_1", "Oslo"))
PNG = b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + b"IHDR" + (2).to_bytes(4, "big") * 2


def test_remembered_keeps_a_result_and_calls_anew_what_it_cannot_hash():
    calls = []

    def length(value):
        calls.append(value)
        return len(value)

    kept = remembered(length, maxsize=2)
    assert kept("abc") == kept("abc") == 3
    assert calls == ["abc"]
    assert kept(["a", "b"]) == kept(["a", "b"]) == 2  # a list: no key, called each time
    assert calls == ["abc", ["a", "b"], ["a", "b"]]


def test_remembered_keeps_only_the_latest_and_never_an_error():
    calls = []

    def checked(value):
        calls.append(value)
        if value < 0:
            raise ValueError("negative")
        return value

    kept = remembered(checked, maxsize=2)
    for value in (1, 2, 3):
        kept(value)
    kept(1)  # the oldest went when 3 came: made again
    assert calls == [1, 2, 3, 1]
    for _ in range(2):
        with pytest.raises(ValueError):
            kept(-1)
    assert calls[-2:] == [-1, -1]


@pytest.mark.parametrize("name", ["max_tokens", "reserve_tokens"])
def test_kept_options_never_pass_a_bool_for_an_int(name):
    """True == 1 and False == 0 as keys: the type is part of the key, so the bool is still
    refused after the int's options are kept."""
    number, limit = (1, {}) if name == "max_tokens" else (0, {"max_tokens": 64})
    try:
        select(SYSTEM, [], CURRENT, 4096, **limit, **{name: number})
    except BudgetError:  # max_tokens=1 is no room: its options were made (and kept) first
        pass
    with pytest.raises(TypeError, match="bool"):
        select(SYSTEM, [], CURRENT, 4096, **limit, **{name: bool(number)})


def test_kept_options_give_the_same_request_as_new_ones():
    history = [Turn("Where?", "Oslo.")]
    first = select(SYSTEM, history, CURRENT, 4096, tools=TOOLS, current_steps=STEPS)
    again = select(SYSTEM, history, CURRENT, 4096, tools=TOOLS, current_steps=STEPS)
    as_lists = select(SYSTEM, history, CURRENT, 4096, tools=list(TOOLS),
                      current_steps=list(STEPS))  # unhashable: checked anew
    assert first.payload == again.payload == as_lists.payload


def test_options_refused_are_refused_each_time():
    orphan = (ToolResult("call_9", "Oslo"),)
    for _ in range(2):
        with pytest.raises(InvalidTurn):
            select(SYSTEM, [], CURRENT, 4096, current_steps=orphan)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("encoder", ENCODERS)
def test_a_kept_head_and_tail_are_the_bytes_written_anew(encoder, dialect):
    writer = request_writer(encoder, dialect)
    question = ("Look at this:", Image("image/png", PNG))
    for current in (CURRENT, question):
        for _ in range(2):
            assert writer.tail(current, STEPS, TOOLS) == writer.write_tail(current, STEPS, TOOLS)
            assert writer.head("m", SYSTEM, 64) == writer.write_head("m", SYSTEM, 64)


def test_a_tail_of_a_wrong_question_names_it():
    writer = request_writer("gson")
    for _ in range(2):  # a list cannot be a key: the question's own check says what is wrong
        with pytest.raises(InvalidText, match="current question"):
            writer.tail(["not", "a tuple"])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_memory_line_is_kept_on_its_item_per_writer(dialect):
    summary = Summary("s1", 'Turns one and two: "ORCHID-17" 接口', covers=("one", "two"))
    evidence = Evidence("e1", "The fix is in release 4. 🙂", "https://docs.example/4")
    for encoder in ENCODERS:
        writer = request_writer(encoder, dialect)
        for item, text in ((summary, summary_line(summary)), (evidence, evidence_line(evidence))):
            assert writer.memory_line(item) == writer.line(text)
            assert item._pieces[writer] == writer.line(text)
    assert len(summary._pieces) == len(ENCODERS)  # one per writer of this dialect
    # What is kept is no part of the value: an equal new item is equal and hashes the same.
    again = Summary(summary.id, summary.text, summary.covers)
    assert again == summary and hash(again) == hash(summary) and not again._pieces


def test_a_request_with_kept_memory_lines_is_the_same_as_with_new_items():
    history = [Turn("one?", "1"), Turn("two?", "2"), Turn("three?", "3")]
    ids = ["one", "two", "three"]

    def chosen(make):
        summaries = [make(Summary, "s1", "Turns one and two.", covers=("one", "two"))]
        evidence = [make(Evidence, "e1", "Release 4.", "https://docs.example/4")]
        return select(SYSTEM, history, CURRENT, 300, ids=ids, summaries=summaries,
                      evidence=evidence)

    kept = {}

    def once(kind, *args, **keywords):
        return kept.setdefault((kind, args), kind(*args, **keywords))

    first, second = chosen(once), chosen(once)
    fresh = chosen(lambda kind, *args, **keywords: kind(*args, **keywords))
    assert first == second == fresh
    assert first.summary_ids == ("s1",) and first.evidence_kept == 1


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_turns_tokens_are_kept_on_it_per_counter(dialect):
    from ledgerlab.tokens import counter

    turn = Turn(("Where is it? 接口", Image("image/png", PNG)), "In Oslo.", steps=STEPS)
    for name in ("o200k_base", "cl100k_base"):
        count = counter(name, dialect)
        assert count.turn(turn) == count.turn(turn) == count.count_turn(turn)
        assert turn._pieces[count] == count.count_turn(turn)
        assert count.mandatory(SYSTEM, CURRENT, STEPS, TOOLS, None) == count.count_mandatory(
            SYSTEM, CURRENT, STEPS, TOOLS, None)
    # The kept counts give what new turns give, with the token limit binding.
    history = [Turn(f"question {i}", "answer " * 40) for i in range(30)]
    limits = dict(max_tokens=400, reserve_tokens=64, dialect=dialect)
    first = select(SYSTEM, history, CURRENT, 1 << 20, **limits)
    again = select(SYSTEM, history, CURRENT, 1 << 20, **limits)
    fresh = select(SYSTEM, [Turn(t.question, t.answer) for t in history], CURRENT, 1 << 20,
                   **limits)
    assert first == again == fresh and 0 < first.kept < len(history)
