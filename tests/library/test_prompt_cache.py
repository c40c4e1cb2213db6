"""Each provider's prompt cache as data in its dialect's module, and Anthropic's breakpoints
written by select (issue 47, item 2)."""

from __future__ import annotations

import json

import pytest

from ledgerlab import (DIALECTS, Fact, InvalidRequest, Tool, Turn, byte_breakdown,
                       check_request, request_bytes, select, select_reference)
from ledgerlab.dialects import SHAPES
from ledgerlab.dialects.anthropic import CACHE as ANTHROPIC_CACHE
from ledgerlab.dialects.openai_chat import OPENAI_CACHE
from ledgerlab.dialects.openai_responses import OpenAIResponses

AN = "anthropic-messages"
TOOL = Tool("lookup", "Look a key up.", {"type": "object"})


def test_each_dialect_holds_its_providers_cache_with_source_and_date():
    for dialect in DIALECTS:
        cache = SHAPES[dialect].cache
        assert cache.source and cache.checked == "2026-12-06"
        assert all(rate.input > 0 and 0 < rate.read < 1 for rate in cache.rates)
    assert OpenAIResponses.cache is OPENAI_CACHE  # one provider, one cache


def test_anthropics_multipliers_lifetimes_and_breakpoints_are_the_documented_ones():
    cache = ANTHROPIC_CACHE
    assert not cache.automatic and cache.breakpoints == 4 and cache.lookback == 20
    opus = cache.rate("claude-opus-4-8")
    assert (opus.input, opus.read, opus.block) == (5.0, 0.1, 1)
    assert opus.writes == {"5m": (300, 1.25), "1h": (3600, 2.0)}
    assert [cache.minimum_for(model) for model in (
        "claude-opus-5", "claude-opus-4-8", "claude-opus-4-6", "claude-sonnet-4-5",
        "claude-haiku-4-5", "claude-fable-5-20261001")] == [512, 1024, 4096, 1024, 4096, 512]


def test_openais_blocks_and_write_prices_change_with_gpt_5_6():
    cache = OPENAI_CACHE
    assert cache.automatic and cache.minimum_for("gpt-5.4") == 1024
    older, newer = cache.rate("gpt-5.4"), cache.rate("gpt-5.6-terra")
    assert (older.block, older.writes["in_memory"]) == (128, (300, 1.0))
    assert (newer.block, newer.writes["in_memory"]) == (1, (1800, 1.25))
    assert cache.rate("gpt-4o").read == 0.5 and cache.rate("gpt-4.1").read == 0.25


def test_a_model_without_a_price_is_refused_by_name():
    with pytest.raises(ValueError, match="no cache price for model 'gpt-2'"):
        OPENAI_CACHE.rate("gpt-2")


def marks(payload: bytes) -> list[str]:
    """Where the request's cache_control marks are: 'system', 'tool' or the message's role."""
    body = json.loads(payload)
    found = []
    system = body.get("system")
    if isinstance(system, list):
        found += ["system" for block in system if "cache_control" in block]
    found += ["tool" for tool in body.get("tools", []) if "cache_control" in tool]
    for message in body["messages"]:
        if isinstance(message["content"], list):
            found += [message["role"] for block in message["content"]
                      if "cache_control" in block]
    return found


def history(count: int) -> list[Turn]:
    return [Turn(f"question {index}", f"answer {index} " + "x" * (index % 3 * 20))
            for index in range(count)]


@pytest.mark.parametrize("system, tools, facts, where", [
    ("You answer briefly.", (), (), ["system", "assistant"]),
    ("You answer briefly.", [TOOL], [Fact("f1", "Lyon", "t0")], ["system", "assistant"]),
    (" ", [TOOL], (), ["tool", "assistant"]),
    (" ", (), (), ["assistant"]),
])
def test_select_marks_the_stable_prefix_and_the_newest_kept_turn(system, tools, facts, where):
    turns = history(12)
    options = dict(dialect=AN, cache_breakpoints=True, tools=tools, facts=facts)
    whole = request_bytes(system, turns, "now?", **options)
    for budget in range(len(whole) - 400, len(whole) + 1, 23):
        chosen = select(system, turns, "now?", budget, **options)
        assert chosen == select_reference(system, turns, "now?", budget, **options)
        check_request(chosen.payload, AN)
        # The marks' bytes are within the budget: the payload is the marked request.
        assert chosen.size <= budget
        assert chosen.payload == request_bytes(system, chosen.turns, "now?", **options)
        assert marks(chosen.payload) == (where if chosen.kept else where[:-1])
        newest = json.loads(chosen.payload)["messages"][2 * chosen.kept - 1] if chosen.kept \
            else None
        assert newest is None or "cache_control" in newest["content"][-1]


def test_the_marks_cost_bytes_the_budget_counts():
    turns = history(6)
    plain = request_bytes("S", turns, "now?", dialect=AN)
    marked = request_bytes("S", turns, "now?", dialect=AN, cache_breakpoints=True)
    parts = byte_breakdown("S", turns, "now?", dialect=AN, cache_breakpoints=True)
    assert len(marked) > len(plain)
    assert sum(value if isinstance(value, int) else sum(value)
               for value in parts.values()) == len(marked)
    # A budget the unmarked request fits, and the marked one does not: fewer turns.
    chosen = select("S", turns, "now?", len(plain), dialect=AN, cache_breakpoints=True)
    assert chosen.kept == 4 and chosen.size <= len(plain)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses"])
def test_cache_breakpoints_in_an_openai_dialect_is_refused(dialect):
    with pytest.raises(ValueError, match="cache_breakpoints: .* takes no cache marks"):
        select("S", history(2), "now?", 10_000, dialect=dialect, cache_breakpoints=True)


def test_check_request_refuses_a_fifth_breakpoint():
    body = json.loads(request_bytes("S", history(2), "now?", dialect=AN))
    body["messages"] = [{"role": "user", "content": [
        {"type": "text", "text": f"part {n}", "cache_control": {"type": "ephemeral"}}
        for n in range(5)]}]
    with pytest.raises(InvalidRequest) as refused:
        check_request(json.dumps(body), AN)
    assert refused.value.rule == "cache-breakpoints" and "found 5" in str(refused.value)
