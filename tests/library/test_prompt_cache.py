"""Each provider's prompt cache as data in its dialect's module, and Anthropic's breakpoints
written by select (issue 47, item 2); the bill simulated and where two requests part (item 3:
ledgerlab.prompt_cache); the offline optimum (item 4)."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from ledgerlab import (DIALECTS, Evidence, Fact, InvalidRequest, ProviderTool, Summary, Tool,
                       ToolCall, ToolResult, Turn, byte_breakdown, check_request, request_bytes,
                       select, select_reference)
from ledgerlab.dialects import SHAPES
from ledgerlab.dialects.anthropic import CACHE as ANTHROPIC_CACHE
from ledgerlab.dialects.openai_chat import OPENAI_CACHE
from ledgerlab.dialects.openai_responses import OpenAIResponses
from ledgerlab.prompt_cache import (UnreadableRequest, cheapest_starts, first_difference,
                                    prompt_order, request_parts, simulate_bill)
from sentences import says

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


def test_cache_breakpoints_count_with_the_marks_of_the_tools_and_extra():
    # At most 4 marks a request: cache_breakpoints=True writes 2, so 2 of the application's
    # own (a provider tool's, extra's top-level one) may go beside them, and a third is
    # refused with the options, before any body is built (check_request would refuse it).
    marked = [ProviderTool({"type": "web_search_20250305", "name": f"w{n}",
                            "cache_control": {"type": "ephemeral"}}, AN) for n in range(2)]
    chosen = select("S", history(4), "now?", 10_000, dialect=AN, cache_breakpoints=True,
                    tools=marked)
    check_request(chosen.payload, AN)
    assert chosen.payload.count(b'"cache_control"') == 4
    with pytest.raises(InvalidRequest) as refused:
        select("S", history(4), "now?", 10_000, dialect=AN, cache_breakpoints=True,
               tools=marked, extra={"cache_control": {"type": "ephemeral"}})
    assert refused.value.rule == "cache-breakpoints"
    says(str(refused.value), 3, 2, "cache_breakpoints", 4, in_order=True)
    # Without cache_breakpoints the same three marks are the application's to send.
    check_request(select("S", history(4), "now?", 10_000, dialect=AN, tools=marked,
                         extra={"cache_control": {"type": "ephemeral"}}).payload, AN)


@pytest.mark.parametrize("dialect", ["openai-chat", "openai-responses"])
def test_openais_prompt_cache_key_goes_through_extra(dialect):
    # A documented top-level field of both OpenAI dialects (FIELDS): the application sends it
    # with extra=, select measures it in the budget and holds the first turn beside it, and
    # check_request takes the body. It is after the conversation, so the prefix is the same.
    assert SHAPES[dialect].fields["prompt_cache_key"] == ("string", "null")
    key = {"prompt_cache_key": "conversation-47"}
    turns = long_history(12, 40)
    whole = len(request_bytes("S", turns[:10], turns[10].question, dialect=dialect, extra=key))
    # One byte short of the request with the key: the turns' room is the key's less.
    tight = select("S", turns[:10], turns[10].question, whole - 1, dialect=dialect)
    assert tight.kept == 10
    assert select("S", turns[:10], turns[10].question, whole - 1, dialect=dialect,
                  extra=key).kept < 10
    budget = whole + 200
    first = select("S", turns[:10], turns[10].question, budget, dialect=dialect, extra=key)
    check_request(first.payload, dialect)
    assert json.loads(first.payload)["prompt_cache_key"] == "conversation-47"
    assert first.payload == request_bytes("S", first.turns, turns[10].question,
                                          dialect=dialect, extra=key)
    second = select("S", turns[:11], turns[11].question, budget, dialect=dialect, extra=key,
                    previous=first, low_water=0.5)
    check_request(second.payload, dialect)
    assert second.dropped == first.dropped  # held
    assert first_difference(first.payload, second.payload).parts[1].name.startswith("turn ")
    assert [part.name for part in request_parts(second.payload)][-2:] == [
        "prompt_cache_key", "envelope"]
    with pytest.raises(InvalidRequest) as refused:
        select("S", turns[:2], "now?", 1500, dialect=dialect, extra={"prompt_cache_key": 47})
    assert (refused.value.rule, refused.value.field) == ("field-type", "prompt_cache_key")


# --- item 3: a request's parts, where two part, the bill ---------------------------------------

def long_history(count: int, size: int = 300) -> list[Turn]:
    return [Turn(f"question {index} " + "q" * size, f"answer {index} " + "a" * size)
            for index in range(count)]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("after", [False, True])
def test_request_parts_name_every_byte_of_a_request(dialect, after):
    options = dict(dialect=dialect, facts=[Fact("f1", "Lyon", "t0")], tools=[TOOL],
                   evidence=[Evidence("e1", "a passage", "doc.md")],
                   summaries=[Summary("s1", "earlier", ("t9",))], evidence_after_turns=after,
                   current_steps=(ToolCall("call_1", "lookup", "{}"),
                                  ToolResult("call_1", "found")))
    payload = request_bytes("You answer.", history(3), "now?", encoder="httpx", **options)
    parts = request_parts(payload)
    assert parts[0].start == 0 and parts[-1].end == len(payload)
    assert all(one.end == other.start for one, other in zip(parts, parts[1:]))
    names = [part.name for part in parts if part.name != "envelope"]
    sections = ["facts", "summaries"] if after else ["facts", "evidence", "summaries"]
    turns = ["turn 1 of 3", "turn 2 of 3", "turn 3 of 3"]
    tail = ["evidence", "question"] if after else ["question"]
    assert names == ["model", *(["max_tokens"] if dialect == AN else []), "system", *sections,
                     *turns, *tail, "tools"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_an_arrays_brackets_are_the_envelopes_not_its_first_or_last_items(dialect):
    payload = request_bytes("You answer.", history(2), "now?", dialect=dialect,
                            encoder="httpx")
    parts = request_parts(payload)
    for at, part in enumerate(parts):
        if part.name == "question" or part.name.startswith("turn 1 "):
            text = payload[part.start:part.end].strip()
            assert not text.startswith(b"[") and not text.endswith(b"]"), part
    question = next(at for at, part in enumerate(parts) if part.name == "question")
    after = parts[question + 1]
    assert after.name == "envelope" and payload[after.start:after.end].lstrip().startswith(b"]")


def test_an_openai_chat_body_with_a_max_tokens_field_is_told_from_anthropics():
    # extra= may send Chat's max_tokens (a reply cap it documents): the body is still told
    # apart from Anthropic's by its system and tool messages and its tool_calls.
    turn = Turn("q", "a", (ToolCall("call_1", "lookup", "{}"), ToolResult("call_1", "found")))
    for system, turns in (("You answer.", history(2)), (" ", [turn])):
        payload = request_bytes(system, turns, "now?", tools=[TOOL], extra={"max_tokens": 64})
        assert request_parts(payload) == request_parts(payload, "openai-chat")
    names = [part.name for part in request_parts(payload) if part.name != "envelope"]
    assert names == ["model", "system", "turn 1 of 1", "question", "tools", "max_tokens"]


def test_the_first_difference_names_the_turn_a_sliding_cut_moved():
    turns = long_history(30, 40)
    sliding = [select("S", turns[:index], turns[index].question, 2400) for index in (20, 21)]
    held = select("S", turns[:21], turns[21].question, 2400 + 500, previous=sliding[0])
    moved = first_difference(sliding[0].payload, sliding[1].payload)
    assert moved.parts[0].name.startswith("turn 1 of") and moved.parts[1].name.startswith(
        "turn 1 of")
    kept = first_difference(sliding[0].payload, held.payload)
    # The last request's question ends where the new turn begins: they part at its closing ]
    # of the messages, an envelope byte, not a byte of its question.
    assert sliding[0].payload[kept.offset:kept.offset + 1] == b"]"
    assert kept.parts[0].name == "envelope" and kept.parts[1].name == f"turn {held.kept} of " \
        f"{held.kept}"
    assert first_difference(held.payload, held.payload) is None


def test_an_unreadable_request_is_named_by_its_size_only():
    with pytest.raises(UnreadableRequest, match=r"not a JSON request body \(9 bytes\)"):
        request_parts(b"not json!")
    with pytest.raises(UnreadableRequest, match="without a conversation"):
        first_difference(b'{"model": "m"}', b"{}")


def requests_of(selections, seconds=20.0):
    return [(selection.payload, seconds) for selection in selections]


def conversation_calls(count, budget, dialect, *, previous_rule, size=300, **options):
    turns = long_history(count + 1, size)
    chosen, previous = [], None
    for index in range(1, count + 1):
        previous = select("You answer from the conversation.", turns[:index],
                          turns[index].question, budget, dialect=dialect,
                          previous=previous if previous_rule else None, **options)
        chosen.append(previous)
    return chosen


def test_openai_bills_the_shared_prefix_in_blocks_at_its_read_price():
    payload = request_bytes("S", long_history(8), "now?")
    tokens = len(prompt_order(payload)[0])
    first, second, late = simulate_bill([(payload, 0), (payload, 10), (payload, 299)],
                                        "gpt-5.4", bytes_per_token=1)
    cached = tokens - tokens % 128
    assert (first.cached, first.written, first.uncached) == (0, tokens, 0)
    assert (second.cached, second.written, second.uncached) == (cached, tokens - cached, 0)
    assert second.cost == pytest.approx((cached * 0.1 + tokens - cached) * 2.5 / 1e6)
    assert late.cached == cached  # 299 s after the second: its entry, refreshed, still lives
    gone = simulate_bill([(payload, 0), (payload, 301)], "gpt-5.4", bytes_per_token=1)[1]
    assert gone.cached == 0  # 301 s after its only use: cleared
    newer = simulate_bill([(payload, 0), (payload, 10)], "gpt-5.6-terra", bytes_per_token=1)
    assert newer[1].cached == tokens and newer[0].cost == pytest.approx(tokens * 1.25 * 2.5
                                                                         / 1e6)


def test_openai_caches_nothing_under_1024_tokens():
    payload = request_bytes("S", history(2), "now?")
    billed = simulate_bill([(payload, 0), (payload, 1)], "gpt-5.4")
    assert all(item.cached == item.written == 0 and item.uncached == item.tokens
               for item in billed)


def test_anthropic_reads_up_to_the_last_requests_mark_and_writes_to_its_own():
    options = dict(cache_breakpoints=True)
    first, second = conversation_calls(2, 100_000, AN, previous_rule=True, size=900, **options)
    prompt, _, marks = prompt_order(first.payload)
    later, _, later_marks = prompt_order(second.payload)
    billed = simulate_bill(requests_of([first, second]), "claude-opus-4-8", bytes_per_token=1)
    assert billed[0].cached == 0 and billed[0].written == marks[-1]
    assert billed[0].uncached == len(prompt) - marks[-1]  # the question, after the marks
    assert billed[1].cached == marks[-1] and billed[1].written == later_marks[-1] - marks[-1]
    assert billed[1].cost == pytest.approx((marks[-1] * 0.1 + billed[1].written * 1.25
                                            + billed[1].uncached) * 5.0 / 1e6)
    hour = simulate_bill(requests_of([first]), "claude-opus-4-8", ttl="1h", bytes_per_token=1)
    assert hour[0].cost == pytest.approx((marks[-1] * 2.0 + billed[0].uncached) * 5.0 / 1e6)
    # Without marks Anthropic caches nothing; under a family's minimum neither.
    unmarked = conversation_calls(2, 100_000, AN, previous_rule=True)
    assert all(item.cached == item.written == 0
               for item in simulate_bill(requests_of(unmarked), "claude-opus-4-8"))
    small = [select("S", history(2), "now?", 10_000, dialect=AN, cache_breakpoints=True)] * 2
    assert all(item.cached == item.written == 0
               for item in simulate_bill(requests_of(small), "claude-haiku-4-5"))


def test_anthropics_top_level_mark_caches_up_to_the_last_block():
    # extra={"cache_control": ...}: Anthropic's automatic caching, one breakpoint on the last
    # cacheable block, moved forward each call: the next request reads this one whole.
    automatic = {"cache_control": {"type": "ephemeral"}}
    first, second = conversation_calls(2, 100_000, AN, previous_rule=True, size=900,
                                       extra=automatic)
    prompt, ends, marks = prompt_order(first.payload)
    assert marks == [ends[-1]] == [len(prompt)]
    billed = simulate_bill(requests_of([first, second]), "claude-opus-4-8", bytes_per_token=1)
    assert (billed[0].cached, billed[0].written, billed[0].uncached) == (0, len(prompt), 0)
    assert billed[1].cached == len(prompt)
    # Beside block marks it is one more: on the last block, after theirs.
    both = conversation_calls(1, 100_000, AN, previous_rule=True, size=900, extra=automatic,
                              cache_breakpoints=True)[0]
    prompt, ends, marks = prompt_order(both.payload)
    assert len(marks) == 3 and marks[-1] == ends[-1] == len(prompt)


def test_anthropic_finds_no_entry_more_than_20_pieces_back():
    # A turn of 11 tool rounds (22 messages) between the last request's mark and this one's.
    loop = [ToolCall(f"call_{n}", "lookup", "{}") for n in range(11)]
    steps = tuple(step for call in loop for step in (call, ToolResult(call.id, "found")))
    turns = long_history(3) + [Turn("look it up " + "q" * 300, "found it", steps)]
    options = dict(dialect=AN, cache_breakpoints=True, tools=[TOOL])
    system = "You answer from the conversation. " * 40  # over the minimum alone
    first = select(system, turns[:3], turns[3].question, 100_000, **options)
    second = select(system, turns, "and then?", 100_000, previous=first, **options)
    billed = simulate_bill(requests_of([first, second]), "claude-opus-4-8", bytes_per_token=1)
    system_mark = prompt_order(first.payload)[2][0]
    assert billed[1].cached == system_mark  # only the tools and system's entry is in reach


def test_a_model_or_lifetime_without_a_price_is_refused_by_name():
    payload = request_bytes("S", history(2), "now?")
    with pytest.raises(ValueError, match="no cache price for model 'gpt-2'; priced: "):
        simulate_bill([(payload, 0)], "gpt-2")
    with pytest.raises(ValueError, match="ttl '1h' is not one of gpt-5.4's"):
        simulate_bill([(payload, 0)], "gpt-5.4", ttl="1h")


@pytest.mark.parametrize("dialect, model", [(AN, "claude-opus-4-8"), ("openai-chat", "gpt-5.4")])
def test_holding_the_first_turn_bills_a_fraction_of_moving_it(dialect, model):
    options = dict(cache_breakpoints=True) if dialect == AN else {}
    budget = 12_000
    sliding = conversation_calls(60, budget, dialect, previous_rule=False, **options)
    held = conversation_calls(60, budget, dialect, previous_rule=True, **options)
    cost = {name: sum(item.cost for item in simulate_bill(requests_of(calls), model))
            for name, calls in (("sliding", sliding), ("held", held))}
    assert cost["held"] < 0.5 * cost["sliding"]


# --- item 4: the best schedule there is ----------------------------------------------------------

def test_the_cheapest_starts_are_the_cheapest_of_every_schedule():
    # Against every schedule of small random cases, written out one by one.
    rng = random.Random(47)
    for _ in range(200):
        windows = []
        for _ in range(rng.randint(1, 5)):
            low = rng.randint(0, 3)
            windows.append((low, low + rng.randint(0, 3)))
        held = {(number, start): rng.random() for number in range(5) for start in range(7)}
        moved = {(number, start): 3 * rng.random() for number in range(5) for start in range(7)}

        def total(path):
            return sum((held if number and path[number - 1] == start else moved)[number, start]
                       for number, start in enumerate(path))

        every = itertools.product(*(range(low, high + 1) for low, high in windows))
        best = min(map(total, every))
        chosen = cheapest_starts(windows, lambda n, s: held[n, s], lambda n, s: moved[n, s])
        assert all(low <= start <= high for start, (low, high) in zip(chosen, windows))
        assert total(chosen) == pytest.approx(best)


def test_the_cheapest_starts_hold_a_turn_where_moving_costs_more():
    # Moving costs 10, holding 1: start once at the turn every window shares, and stay.
    windows = [(0, 2), (1, 3), (2, 4), (2, 5)]
    assert cheapest_starts(windows, lambda n, s: 1, lambda n, s: 10) == [2, 2, 2, 2]
    with pytest.raises(ValueError, match=r"window 1 is empty: \(3, 2\)"):
        cheapest_starts([(0, 1), (3, 2)], lambda n, s: 1, lambda n, s: 1)
