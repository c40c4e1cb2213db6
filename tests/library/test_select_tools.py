"""select over tool histories: the whole-turn rule against the message-count slice, a loop
in progress that no longer fits, the options a tool request takes. That select is
select_reference over random tool histories, and never a body the provider would refuse,
is in test_oracle.py."""

from __future__ import annotations

import json

import pytest

from ledgerlab import (ENCODERS, BudgetError, InvalidRequest, Tool, ToolCall, ToolResult, Turn,
                       check_request, request_bytes, request_tokens, select, select_reference)
from sentences import says
from strategies import ANTHROPIC, OPENAI, SAMPLE_IMAGES


# --- the whole-turn rule against the message-count slice ---------------------------------


# The tool lookup_history calls: Anthropic wants a request's tools beside its tool blocks.
LOOKUP_TOOLS = [Tool("lookup", "Look a key up.", {"type": "object"})]


def lookup_history():
    code = Turn("What is my project code?", "ORCHID-17.", (
        ToolCall("call_1", "lookup", '{"key": "project code"}'),
        ToolResult("call_1", "ORCHID-17")))
    return [Turn("hi", "hello"), code]


def test_the_message_count_slice_orphans_the_result_and_select_does_not():
    for dialect in (OPENAI, ANTHROPIC):
        reserve = {"reserve_tokens": 100, "tools": LOOKUP_TOOLS} if dialect == ANTHROPIC else {}
        payload = request_bytes("S", lookup_history(), "and again?", dialect=dialect, **reserve)
        body = json.loads(payload)
        first = 1 if dialect == OPENAI else 0  # OpenAI's system message stays
        messages = body["messages"]
        tool_at = next(i for i, m in enumerate(messages) if m["role"] == "tool" or (
            isinstance(m["content"], list) and m["content"][0]["type"] == "tool_result"))
        # "keep the last n messages" with the cut just after the call: the result is orphaned
        cut = dict(body, messages=messages[:first] + messages[tool_at:])
        with pytest.raises(InvalidRequest) as info:
            check_request(json.dumps(cut), dialect)
        assert info.value.rule == ("tool-after-call" if dialect == OPENAI else
                                   "result-follows-use")
        for budget in range(len(payload) - 200, len(payload) + 1):
            try:
                chosen = select("S", lookup_history(), "and again?", budget, dialect=dialect,
                                **reserve)
            except BudgetError:
                continue
            check_request(chosen.payload, dialect)
            assert chosen.kept in (0, 1, 2)


# --- mandatory input that no longer fits ----------------------------------------------------

BIG_TOOL = Tool("search", "Search the ledger. " * 20, {"type": "object", "properties": {
    f"p{k}": {"type": "string", "description": "x" * 30} for k in range(10)}})
STEPS = (ToolCall("c1", "search", '{"p1": "' + "q" * 200 + '"}'), ToolCall("c2", "search", "{}"),
         ToolResult("c2", "r" * 300), ToolResult("c1", "none"))


@pytest.mark.parametrize("dialect", [OPENAI, ANTHROPIC])
@pytest.mark.parametrize("encoder", sorted(ENCODERS))
@pytest.mark.parametrize("function", [select, select_reference])
def test_a_loop_in_progress_that_no_longer_fits_is_a_budget_error(dialect, encoder, function):
    options = dict(dialect=dialect, encoder=encoder, tools=[BIG_TOOL], current_steps=STEPS)
    if dialect == ANTHROPIC:
        options["reserve_tokens"] = 64
    history = [Turn("q", "a"), Turn(("look", SAMPLE_IMAGES[0]), "ok")]
    mandatory = len(request_bytes("S", [], "Q", **options))
    without = len(request_bytes("S", [], "Q", **dict(options, current_steps=(), tools=())))
    assert mandatory > without + 1500  # the schemas and the rounds are most of it
    exact = function("S", history, "Q", mandatory, **options)
    assert (exact.kept, exact.dropped, exact.size) == (0, 2, mandatory)
    check_request(exact.payload, dialect)
    with pytest.raises(BudgetError) as info:
        function("S", history, "Q", mandatory - 1, **options)
    error = info.value
    assert error.limit == "bytes"
    assert (error.mandatory_bytes, error.budget) == (mandatory, mandatory - 1)
    assert error.mandatory_tokens is None
    message = str(error)
    assert "mandatory input" in message and "tool schemas" in message
    assert "tool rounds" in message and str(mandatory) in message
    for step in STEPS:  # the message names parts and sizes, never the text
        assert (step.arguments if isinstance(step, ToolCall) else step.content) not in message


@pytest.mark.parametrize("dialect", [OPENAI, ANTHROPIC])
@pytest.mark.parametrize("function", [select, select_reference])
def test_a_loop_in_progress_over_the_token_limit_is_a_budget_error(dialect, function):
    counting = dict(tools=[BIG_TOOL], current_steps=STEPS, dialect=dialect)
    mandatory_tokens = request_tokens("S", [], "Q", **counting)
    options = dict(reserve_tokens=50, **counting)
    fits = function("S", [Turn("q", "a")], "Q", 10**6, max_tokens=mandatory_tokens + 50,
                    **options)
    assert (fits.kept, fits.tokens) == (0, mandatory_tokens)
    with pytest.raises(BudgetError) as info:
        function("S", [Turn("q", "a")], "Q", 10**6, max_tokens=mandatory_tokens + 49, **options)
    error = info.value
    assert error.limit == "tokens"
    assert (error.mandatory_tokens, error.max_tokens, error.reserve_tokens) == (
        mandatory_tokens, mandatory_tokens + 49, 50)
    assert "mandatory input" in str(error) and "tool schemas" in str(error)
    assert str(mandatory_tokens) in str(error)


def test_without_tools_the_budget_error_names_the_articles_mandatory_input():
    with pytest.raises(BudgetError) as info:
        select("只根据已知信息回答。", [], "继续🙂", 139)
    error = info.value
    assert (error.limit, error.mandatory_bytes, error.budget) == ("bytes", 140, 139)
    says(str(error), "mandatory input", "system message", "current question", "140 bytes",
         "budget", "139 bytes", in_order=True)


def test_the_tools_alone_can_break_the_budget():
    plain = len(request_bytes("S", [], "Q"))
    with pytest.raises(BudgetError, match="tool schemas"):
        select("S", [], "Q", plain + 10, tools=[BIG_TOOL])
    with pytest.raises(BudgetError, match="tool rounds"):
        select("S", [], "Q", plain + 10, current_steps=STEPS)


def repeated_lookups():
    """lookup_history three times over, each call id once in the request; test_oracle.py
    selects from it too."""
    return [Turn(turn.question, f"{turn.answer}{k}", tuple(  # a call id once a request
        type(step)(f"{step.id}_{k}", step.name, step.arguments) if isinstance(step, ToolCall)
        else ToolResult(f"{step.call_id}_{k}", step.content) for step in turn.steps))
            for k, turn in enumerate(lookup_history() * 3)]


def test_select_takes_an_iterator_of_turns():
    history = repeated_lookups()
    for dialect in (OPENAI, ANTHROPIC):
        options = (dict(dialect=dialect, reserve_tokens=9, tools=LOOKUP_TOOLS)
                   if dialect == ANTHROPIC else {})
        budget = len(request_bytes("S", history[-3:], "Q", **options))
        assert select("S", iter(history), "Q", budget, **options) == select(
            "S", history, "Q", budget, **options)
        assert select("S", history, "Q", budget, **options).kept == 3


@pytest.mark.parametrize("dialect", [OPENAI, ANTHROPIC])
def test_reserve_and_max_tokens_are_checked(dialect):
    reserve = {"reserve_tokens": 5}
    with pytest.raises(ValueError):
        select("S", [], "Q", 1000, dialect=dialect, max_tokens=5, **reserve)  # reserve >= limit
    if dialect == OPENAI:
        with pytest.raises(ValueError):  # a reserve without a limit means nothing there
            select("S", [], "Q", 1000, **reserve)
    else:
        assert select("S", [], "Q", 1000, dialect=dialect, **reserve).tokens is None
        with pytest.raises(ValueError):  # no max_tokens for the body
            select("S", [], "Q", 1000, dialect=dialect, reserve_tokens=0)
        with pytest.raises(ValueError):
            select_reference("S", [], "Q", 1000, dialect=dialect, reserve_tokens=0)


@pytest.mark.parametrize("function", [select, select_reference])
def test_an_empty_turn_walked_in_anthropic_is_refused_not_written(function):
    from ledgerlab import InvalidText

    # An empty question (an empty answer is left out: test_history_shapes.py).
    history = [Turn("", "old"), Turn("q", "a")]
    with pytest.raises(InvalidText) as info:
        function("s", history, "now", 10**6, dialect=ANTHROPIC, reserve_tokens=5)
    assert "old" not in str(info.value)
    # openai-chat takes the same history
    chosen = function("s", history, "now", 10**6)
    check_request(chosen.payload, OPENAI)
