"""The oracle: ``select`` gives what ``select_reference``, the article's readable loop, gives.

Every test here runs both on the same input and asserts the same answer (``same_answer``:
an equal Selection, or a BudgetError with the same limit, sizes and message), then checks
what holds for any selection of that kind (its bytes are exactly the kept turns' request,
within every limit, no older whole turn would fit, ``check_request`` takes the body).
Sections, by what the inputs vary:

1. plain turns, the encoders and the model;
2. both limits, bytes on the wire and tokens in the window;
3. facts;
4. evidence and summaries;
5. tool rounds, images, reasoning and documents in each dialect;
6. long histories (against the summaries rule written from the issue's words: the
   reference re-encodes every suffix, too slow at 20,000 turns);
7. the cache-stable rule: a conversation called once a turn, each request with the last as
   ``previous`` (issue 47).

Budgets are drawn around real boundaries: the exact size of some suffix, a little either
side. Each property draws ``examples(N)`` (tests/library/tiers.py: N in `make test`, a fifth
in `make check`); the ``long`` runs of thousands of examples are for `make stress` only.
Contract tests that run select and select_reference side by side over a fixed table (the
article's boundary table and the like) stay with their capability's tests.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ledgerlab import (DIALECTS, ENCODERS, AssistantText, BudgetError, Compaction, Document,
                       Evidence, Fact, Image, ProviderItem, Reasoning, Summary, Tool, ToolCall,
                       ToolResult, Turn, check_request, request_body, request_bytes,
                       request_tokens, select, select_reference)
from ledgerlab.dialects import SHAPES
from strategies import (arguments, escaped_facts, escaped_texts, escaped_turns, extras,
                        fact_lists, requests_, texts, tool_lists, tool_names,
                        with_tools_for_rounds)
from strategies import turns as any_turns
from test_facts_tokens import many_facts
from test_image_tokens import PHOTO_TOOLS, photo_history
from test_rich_steps import OPTIONS, PDF, S, TOOLS, every_step_history, png, rich_turn
from test_select_tools import LOOKUP_TOOLS, repeated_lookups
from tiers import examples

OA, AN, OR = "openai-chat", "anthropic-messages", "openai-responses"
TOKENIZERS = ["o200k_base", "cl100k_base"]
PROPERTY = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])

# --- strategies ------------------------------------------------------------------------------
# (Those other test files draw from too are in strategies.py: the rich requests of any
# dialect, requests_, and the escaped texts, turns and facts.)

# Plain turns: characters that change byte counts (escapes, control characters, line
# separators, multi-byte UTF-8, astral characters of two UTF-16 units) and plain ASCII.
PLAIN_SPECIAL = st.sampled_from(list('"\\\n\r\t\b\f\x00\x01\x1f\x7f\u2028\u2029é接🙂a /<>&\''))
plain_texts = st.text(alphabet=st.one_of(PLAIN_SPECIAL, st.characters(exclude_categories=["Cs"])),
                      max_size=30)
plain_histories = st.lists(st.builds(Turn, plain_texts, plain_texts), max_size=12)

# Memory: turns with ids t0.., summaries covering some of them, evidence, facts.
words = st.text(alphabet="ab c\n[]é🙂\"", min_size=1, max_size=12).filter(str.strip)


COMPACTIONS = {
    "openai-responses": lambda text: {"type": "compaction", "id": "cmp_1",
                                      "encrypted_content": text},
    "anthropic-messages": lambda text: {"type": "compaction", "content": text,
                                        "signature": "sig"}}


@st.composite
def memories(draw):
    """Turns, and summaries of them: Summary items and the providers' Compaction items (of
    either dialect that has them: another dialect's is left out, and counted as dropped)."""
    turns = draw(st.lists(st.builds(Turn, words, words), max_size=7))
    ids = [f"t{index}" for index in range(len(turns))]
    summaries = []
    if ids:
        for number in range(draw(st.integers(0, 6))):
            covers = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True))
            if draw(st.integers(0, 2)):
                summaries.append(Summary(f"s{number}", draw(words), tuple(covers)))
                continue
            dialect = draw(st.sampled_from(sorted(COMPACTIONS)))
            summaries.append(Compaction(f"c{number}", COMPACTIONS[dialect](draw(words)),
                                        dialect, tuple(covers)))
    evidence = [Evidence(f"e{number}", draw(words), draw(words))
                for number in range(draw(st.integers(0, 4)))]
    # A fact comes from a stored turn: select refuses one whose origin is not among ids.
    facts = [Fact(f"f{number}", draw(words), draw(st.sampled_from(ids)))
             for number in range(draw(st.integers(0, 2)) if ids else 0)]
    return turns, ids, summaries, evidence, facts


@st.composite
def tool_selections(draw):
    """A rich request (strategies.requests_: tool rounds of parallel calls with shuffled
    results, images and text parts, tools, rounds of the turn in progress, facts, any
    dialect), an encoder, a byte budget near a size where the answer changes, sometimes a
    cap on the facts and a token limit; the history a list or a tuple."""
    system, history, current, options = draw(requests_(max_turns=8))
    dialect = options["dialect"]
    options["encoder"] = draw(st.sampled_from(sorted(ENCODERS)))
    facts = options.pop("facts")
    if draw(st.booleans()):
        options["max_fact_bytes"] = draw(st.integers(0, 120))
    bare = {k: v for k, v in options.items() if k != "max_fact_bytes"}
    # Budgets near the sizes where the answer changes: each suffix's size (with all the
    # facts, and with none), the mandatory input's, a few bytes either side; or anywhere.
    sizes = [len(request_bytes(system, history[k:], current, facts=chosen, **bare))
             for k in range(len(history) + 1) for chosen in (facts, ())]
    options["max_bytes"] = max(1, draw(st.one_of(
        st.sampled_from(sizes).flatmap(lambda size: st.integers(size - 3, size + 3)),
        st.integers(min(sizes) - 40, max(sizes) + 40))))
    if draw(st.booleans()):
        counting = dict(tools=options["tools"], current_steps=options["current_steps"])
        options["tokenizer"] = draw(st.sampled_from(TOKENIZERS))
        counts = [request_tokens(system, history[k:], current, facts=chosen,
                                 tokenizer=options["tokenizer"], **counting)
                  for k in range(len(history) + 1) for chosen in (facts, ())]
        reserve = draw(st.integers(1 if dialect == AN else 0, 40))
        options["reserve_tokens"] = reserve
        options["max_tokens"] = max(reserve + 1, reserve + draw(st.one_of(
            st.sampled_from(counts).flatmap(lambda count: st.integers(count - 2, count + 2)),
            st.integers(min(counts) - 10, max(counts) + 10))))
        if draw(st.booleans()):  # the bytes do not bind: the token limit alone decides
            options["max_bytes"] = max(sizes) + draw(st.integers(0, 10))
    history_type = draw(st.sampled_from([list, tuple]))
    return system, history_type(history), current, facts, options


# Reasoning of both dialects that keep it, the providers' own items, documents, images in
# results, text beside calls, the Responses API's item ids, ids recorded with another provider.
IMAGES = [Image("image/png", png(3, 2)), Image("image/png", png(40, 30))]
DOCUMENTS = [Document("application/pdf", b"%PDF-1.4 x"),
             Document("application/pdf", b"%PDF-1.7 \x00\xff" * 40, "a.pdf")]
signatures = st.text("ABCDEFabcdef0123456789+/=", min_size=1, max_size=40)


def item_id(prefix: str, response: int, number: int = 0) -> str:
    """An item id of the form OpenAI returns: its response's 16 hex digits, then its own."""
    return f"{prefix}_{response:016x}{number:034x}"


def anthropic_reasoning(draw):
    return draw(st.one_of(
        st.builds(lambda thought, signature: Reasoning(
            {"type": "thinking", "thinking": thought, "signature": signature}, AN),
            texts, signatures),
        st.builds(lambda data: Reasoning({"type": "redacted_thinking", "data": data}, AN),
                  signatures)))


def responses_reasoning(draw, response: int):
    return Reasoning({"type": "reasoning", "id": item_id("rs", response), "summary": [
        {"type": "summary_text", "text": text} for text in draw(st.lists(texts, max_size=2))],
        "encrypted_content": draw(signatures)}, OR)


def provider_items(draw, response: int) -> list:
    """Some of the providers' own items, as a round's opening holds them."""
    kinds = draw(st.lists(st.sampled_from(["web_search", "custom", "server"]), max_size=2))
    items = []
    for number, kind in enumerate(kinds):
        if kind == "web_search":
            items.append(ProviderItem({"type": "web_search_call", "id": item_id(
                "ws", response, number), "status": "completed"}, OR))
        elif kind == "custom":
            call_id = f"ctc_call_{response}_{number}"
            items += [ProviderItem({"type": "custom_tool_call", "id": item_id(
                "ctc", response, number), "call_id": call_id, "name": "grammar",
                "input": draw(texts)}, OR),
                ProviderItem({"type": "custom_tool_call_output", "call_id": call_id,
                              "output": draw(texts)}, OR)]
        else:
            use = f"srvtoolu_{response}_{number}"
            items += [ProviderItem({"type": "server_tool_use", "id": use, "name": "web_search",
                                    "input": {"query": draw(texts)}}, AN),
                      ProviderItem({"type": "web_search_tool_result", "tool_use_id": use,
                                    "content": []}, AN)]
    return items


# Texts with some non-whitespace (what Anthropic takes), made so rather than filtered for:
# a filter that rejects too many draws makes Hypothesis give up on the example.
sure_texts = texts.map(lambda text: text if text.strip() else text + "x")
CALL_ID_FORMS = ("call_{}", "toolu_01{}", "functions.lookup:{}", "mcp:srv/tool#{}",
                 "c" * 40 + "{}")


@st.composite
def rounds(draw, dialect: str, numbers, max_rounds: int = 2, in_progress: bool = False,
           final: bool = True) -> tuple:
    """Whole rounds: reasoning of both dialects, the providers' own items, text, calls with
    ids of any provider's form (unique in the request), their results; the Responses items'
    ids where a Responses reasoning item is paired with the item after it (and, in the turn
    in progress, only in rounds that keep their reasoning item); with ``final``, maybe a last
    round of provider items alone."""
    text = sure_texts if dialect == AN else texts
    steps = []
    for _ in range(draw(st.integers(1, max_rounds))):
        response = next(numbers)
        opening = [anthropic_reasoning(draw) for _ in range(draw(st.integers(0, 2)))]
        reasons = draw(st.booleans())
        if reasons:
            opening.append(responses_reasoning(draw, response))
        opening += provider_items(draw, response)
        identified = reasons or (not in_progress and draw(st.booleans()))
        if draw(st.booleans()):
            opening.append(AssistantText(draw(sure_texts),
                                         item_id("msg", response) if identified else None))
        steps += opening
        calls = [ToolCall(draw(st.sampled_from(CALL_ID_FORMS)).format(next(numbers)),
                          draw(tool_names), draw(arguments()),
                          item_id("fc", response, k + 1) if identified else None)
                 for k in range(draw(st.integers(1, 3)))]
        steps += calls
        for call in draw(st.permutations(calls)):
            content = draw(text)
            if draw(st.booleans()):  # OpenAI Chat moves a result's images to a user message
                content = (draw(sure_texts), draw(st.sampled_from(IMAGES)))
            steps.append(ToolResult(call.id, content, draw(st.booleans())))
    if final and draw(st.booleans()):  # a hosted tool used before the answer
        response = next(numbers)
        closing = provider_items(draw, response)
        if any(item.dialect == OR for item in closing) and draw(st.booleans()):
            closing.insert(0, responses_reasoning(draw, response))  # paired with its first
        steps += closing
    return tuple(steps)


@st.composite
def rich_turns(draw, dialect: str, numbers) -> Turn:
    text = sure_texts if dialect == AN else texts
    if draw(st.integers(0, 3)) == 0:
        return Turn(draw(text), draw(texts))
    parts = tuple(draw(st.lists(st.one_of(text, st.sampled_from(IMAGES),
                                          st.sampled_from(DOCUMENTS)), min_size=1, max_size=3)))
    steps = draw(st.just(()) | rounds(dialect, numbers))
    # An empty answer after tool rounds (Anthropic documents one), or any text.
    return Turn(parts, draw(st.just("") | texts), steps)


@st.composite
def rich_requests(draw):
    dialect = draw(st.sampled_from(DIALECTS))
    numbers = itertools.count()  # call ids unique in the request (Anthropic's rule)
    history = draw(st.lists(rich_turns(dialect, numbers), max_size=6))
    options = dict(dialect=dialect, encoder=draw(st.sampled_from(sorted(ENCODERS))),
                   tools=draw(st.just([]) | st.just([Tool("f", "d", {"type": "object"})])),
                   current_steps=draw(st.just(()) | rounds(dialect, numbers, 1,
                                                           in_progress=True, final=False)),
                   facts=draw(st.just(()) | st.just([Fact("f1", "a fact", "t1")])),
                   extra=draw(extras(dialect)))
    options["tools"] = with_tools_for_rounds(dialect, options["tools"], history,
                                             options["current_steps"])
    if dialect == AN:
        options["reserve_tokens"] = 64
    current = draw(st.sampled_from(["now?", ("now?", DOCUMENTS[0])]))
    full = len(request_bytes("S", history, current, **options))
    least = len(request_bytes("S", [], current, **options))
    budget = draw(st.integers(least, full) | st.integers(max(1, least - 20), full + 20))
    return "S", history, current, budget, options


# --- the oracle check ------------------------------------------------------------------------

def outcome(function, system, history, current, budget, **options):
    try:
        return function(system, history, current, budget, **options)
    except BudgetError as error:
        return error


def budget_fields(error: BudgetError) -> tuple:
    return (error.limit, str(error), error.mandatory_bytes, error.budget,
            error.mandatory_tokens, error.max_tokens, error.reserve_tokens)


def same_answer(system, history, current, budget, **options):
    """select gives what select_reference gives: an equal Selection, or a BudgetError with
    every field and the message the same; neither changes the history. Returns the one
    answer, a Selection or a BudgetError."""
    before = list(history)
    expected = outcome(select_reference, system, history, current, budget, **options)
    chosen = outcome(select, system, history, current, budget, **options)
    assert list(history) == before  # the history is never changed
    if isinstance(expected, BudgetError) or isinstance(chosen, BudgetError):
        assert isinstance(chosen, BudgetError) and isinstance(expected, BudgetError), (
            chosen, expected)
        assert budget_fields(chosen) == budget_fields(expected)
        return chosen
    assert chosen == expected
    return chosen


# --- 1. plain turns, the encoders and the model ---------------------------------------------

@settings(max_examples=examples(300), **PROPERTY)
@given(system=plain_texts, history=plain_histories, current=plain_texts,
       encoder=st.sampled_from(sorted(ENCODERS)),
       model=st.sampled_from(["agnes-3.0-flash", "m\u2028\"é"]), slack=st.integers(-40, 40),
       pick=st.integers(0, 12))
def test_select_equals_select_reference(system, history, current, encoder, model, slack, pick):
    # Budgets around a real boundary: the exact size of some suffix, plus or minus a little.
    suffix = history[len(history) - min(pick, len(history)):]
    boundary = len(request_bytes(system, suffix, current, model=model, encoder=encoder))
    budget = max(1, boundary + slack)
    same_answer(system, history, current, budget, model=model, encoder=encoder)


# --- 2. both limits: bytes on the wire and tokens in the window ------------------------------

@settings(max_examples=examples(200), **PROPERTY)
@given(system=plain_texts, history=plain_histories, current=plain_texts,
       encoder=st.sampled_from(sorted(ENCODERS)), tokenizer=st.sampled_from(TOKENIZERS),
       byte_slack=st.integers(-40, 40), token_slack=st.integers(-8, 8), pick=st.integers(0, 12),
       reserve=st.integers(0, 30))
def test_select_equals_select_reference_under_both_limits(
        system, history, current, encoder, tokenizer, byte_slack, token_slack, pick, reserve):
    # Both limits around real boundaries, from two independently chosen suffixes.
    suffix = history[len(history) - min(pick, len(history)):]
    other = history[len(history) - min(pick // 2, len(history)):]
    budget = max(1, len(request_bytes(system, other, current, encoder=encoder)) + byte_slack)
    max_tokens = max(reserve + 1, request_tokens(system, suffix, current, tokenizer=tokenizer)
                     + reserve + token_slack)
    chosen = same_answer(system, history, current, budget, encoder=encoder,
                         max_tokens=max_tokens, reserve_tokens=reserve, tokenizer=tokenizer)
    if isinstance(chosen, BudgetError):
        return
    assert chosen.size <= budget and chosen.tokens + reserve <= max_tokens


# --- 3. facts --------------------------------------------------------------------------------

def boundary_budgets(system, history, current, facts, encoder, pick, slack):
    """A byte budget and a fact cap around real boundaries: some prefix of facts, some suffix."""
    suffix = history[len(history) - min(pick, len(history)):]
    prefix = facts[:min(pick, len(facts))]
    budget = len(request_bytes(system, suffix, current, facts=prefix, encoder=encoder)) + slack
    return max(1, budget), prefix


def fact_bytes_of(system, current, facts, encoder):
    return (len(request_bytes(system, [], current, facts=facts, encoder=encoder))
            - len(request_bytes(system, [], current, encoder=encoder)))


def check_composition(system, history, current, facts, chosen, encoder, budget, cap):
    """The two budgets compose: request = mandatory + facts + turns, each apart."""
    pinned = facts[:chosen.facts_kept]
    kept = history[len(history) - chosen.kept:]
    mandatory = len(request_bytes(system, [], current, encoder=encoder))
    turns = len(request_bytes(system, kept, current, encoder=encoder)) - mandatory
    # The facts' bytes do not depend on which turns are kept.
    assert chosen.fact_bytes == fact_bytes_of(system, current, pinned, encoder)
    assert chosen.size == mandatory + chosen.fact_bytes + turns <= budget
    assert chosen.payload == request_bytes(system, kept, current, facts=pinned, encoder=encoder)
    assert chosen.facts_kept + chosen.facts_dropped == len(facts)
    assert cap is None or chosen.fact_bytes <= cap
    assert (chosen.fact_bytes == 0) == (chosen.facts_kept == 0)


@settings(max_examples=examples(300), **PROPERTY)
@given(system=escaped_texts, history=escaped_turns, current=escaped_texts, facts=escaped_facts,
       encoder=st.sampled_from(sorted(ENCODERS)), slack=st.integers(-30, 30),
       cap_slack=st.one_of(st.none(), st.integers(-10, 10)), pick=st.integers(0, 8))
def test_select_equals_select_reference_with_facts(system, history, current, facts, encoder,
                                                   slack, cap_slack, pick):
    budget, prefix = boundary_budgets(system, history, current, facts, encoder, pick, slack)
    cap = None if cap_slack is None else max(0, fact_bytes_of(system, current, prefix, encoder)
                                             + cap_slack)
    chosen = same_answer(system, history, current, budget, facts=facts, max_fact_bytes=cap,
                         encoder=encoder)
    if not isinstance(chosen, BudgetError):
        check_composition(system, history, current, facts, chosen, encoder, budget, cap)


@settings(max_examples=examples(200), **PROPERTY)
@given(system=escaped_texts, history=escaped_turns, current=escaped_texts, facts=escaped_facts,
       encoder=st.sampled_from(sorted(ENCODERS)), tokenizer=st.sampled_from(TOKENIZERS),
       slack=st.integers(-30, 30), token_slack=st.integers(-6, 6), pick=st.integers(0, 8),
       other=st.integers(0, 8), reserve=st.integers(0, 20))
def test_select_equals_select_reference_with_facts_under_both_limits(
        system, history, current, facts, encoder, tokenizer, slack, token_slack, pick, other,
        reserve):
    budget, _ = boundary_budgets(system, history, current, facts, encoder, other, slack + 200)
    suffix = history[len(history) - min(pick, len(history)):]
    max_tokens = max(reserve + 1, request_tokens(system, suffix, current, tokenizer=tokenizer,
                                                 facts=facts[:pick]) + reserve + token_slack)
    chosen = same_answer(system, history, current, budget, facts=facts, encoder=encoder,
                         max_tokens=max_tokens, reserve_tokens=reserve, tokenizer=tokenizer)
    if isinstance(chosen, BudgetError):
        return
    pinned = facts[:chosen.facts_kept]
    kept = history[len(history) - chosen.kept:]
    assert chosen.tokens == request_tokens(system, kept, current, tokenizer=tokenizer,
                                           facts=pinned)
    assert chosen.tokens + reserve <= max_tokens
    check_composition(system, history, current, facts, chosen, encoder, budget, None)


def test_select_equals_select_reference_with_many_facts_under_a_token_limit():
    # 400 facts fit the bytes, 30 the tokens (test_facts_tokens.py counts what select encodes).
    system, current, facts = "Use only the supplied conversation.", "Next step?", many_facts(400)
    max_tokens = request_tokens(system, [], current, facts=facts[:30]) + 3
    chosen = same_answer(system, [], current, 1 << 20, facts=facts, max_tokens=max_tokens,
                         tokenizer="o200k_base")
    assert chosen.facts_kept == 30


# --- 4. evidence and summaries ---------------------------------------------------------------

def greedy(system, current, kept, ids, summaries, base, max_summary_bytes, budget, room,
           tokenizer):
    """The issue's rule for one k, written from its words: the summaries k sends."""
    dropped = set(ids[:len(ids) - kept])
    position = {turn_id: index for index, turn_id in enumerate(ids)}
    dialect = base.get("dialect", OA)  # another dialect's compaction is never a candidate
    candidates = [(max(position[c] for c in s.covers), given, s)
                  for given, s in enumerate(summaries) if set(s.covers) <= dropped
                  and (not isinstance(s, Compaction) or s.dialect == dialect)]
    candidates.sort(key=lambda item: (item[0], item[1]), reverse=True)
    without = len(request_bytes(system, [], current, **base))
    taken = []
    for _, _, summary in candidates:
        if any(set(summary.covers) & set(other.covers) for other in taken):
            continue
        trial = dict(base, summaries=list(reversed([*taken, summary])))
        size = len(request_bytes(system, [], current, **trial))
        if ((max_summary_bytes is None or size - without <= max_summary_bytes) and size <= budget
                and (room is None or request_tokens(system, [], current, tokenizer=tokenizer,
                                                    dialect=dialect, facts=trial["facts"],
                                                    evidence=trial["evidence"],
                                                    summaries=trial["summaries"]) <= room)):
            taken.append(summary)
    return list(reversed(taken))


@settings(max_examples=examples(150), **PROPERTY)
@given(memory=memories(), dialect=st.sampled_from([OA, AN, OR]), share=st.floats(0.2, 1.1),
       summary_cap=st.one_of(st.none(), st.integers(0, 120)),
       evidence_cap=st.one_of(st.none(), st.integers(0, 120)),
       token_share=st.one_of(st.none(), st.floats(0.3, 1.1)),
       tokenizer=st.sampled_from(TOKENIZERS))
def test_select_equals_select_reference_with_summaries_and_evidence(
        memory, dialect, share, summary_cap, evidence_cap, token_share, tokenizer):
    # Every field equal, no summary beside a turn it covers, every budget respected, the
    # summaries the rule's, and nothing older fits.
    turns, ids, summaries, evidence, facts = memory
    system, current = "sys", "now?"
    reserve = 5 if dialect == AN or token_share is not None else 0
    everything = dict(facts=facts, evidence=evidence, summaries=summaries)
    full = request_bytes(system, turns, current, dialect=dialect, reserve_tokens=reserve,
                         **everything)
    budget = max(1, int(len(full) * share))
    max_tokens = None
    if token_share is not None:
        whole = request_tokens(system, turns, current, tokenizer=tokenizer, dialect=dialect,
                               **everything)
        max_tokens = max(reserve + 1, int(whole * token_share) + reserve)
    options = dict(dialect=dialect, reserve_tokens=reserve, ids=ids, facts=facts,
                   summaries=summaries, max_summary_bytes=summary_cap, evidence=evidence,
                   max_evidence_bytes=evidence_cap, max_tokens=max_tokens, tokenizer=tokenizer)
    chosen = same_answer(system, turns, current, budget, **options)
    if isinstance(chosen, BudgetError):
        return
    check_request(chosen.payload, dialect)
    by_id = {summary.id: summary for summary in summaries}
    sent = [by_id[summary_id] for summary_id in chosen.summary_ids]
    kept_ids = set(ids[len(ids) - chosen.kept:]) if chosen.kept else set()
    assert not any(set(summary.covers) & kept_ids for summary in sent)
    base = dict(dialect=dialect, reserve_tokens=reserve, facts=facts[:chosen.facts_kept],
                evidence=evidence[:chosen.evidence_kept])
    kept = turns[len(turns) - chosen.kept:] if chosen.kept else []
    assert chosen.payload == request_bytes(system, kept, current, summaries=sent, **base)
    without = len(request_bytes(system, [], current, **base))
    assert chosen.summary_bytes == len(request_bytes(system, [], current, summaries=sent,
                                                     **base)) - without
    assert chosen.size <= budget
    assert summary_cap is None or chosen.summary_bytes <= summary_cap
    assert evidence_cap is None or chosen.evidence_bytes <= evidence_cap
    room = None if max_tokens is None else max_tokens - reserve
    if room is not None:
        assert chosen.tokens == request_tokens(system, kept, current, tokenizer=tokenizer,
                                               dialect=dialect, summaries=sent,
                                               facts=base["facts"], evidence=base["evidence"])
        assert chosen.tokens <= room
    assert sent == greedy(system, current, chosen.kept, ids, summaries, base, summary_cap,
                          budget, room, tokenizer)
    if chosen.kept < len(turns):  # one more turn, beside its own summaries, does not fit
        more = chosen.kept + 1
        its = greedy(system, current, more, ids, summaries, base, summary_cap, budget, room,
                     tokenizer)
        bigger = turns[len(turns) - more:]
        size = len(request_bytes(system, bigger, current, summaries=its, **base))
        assert size > budget or (room is not None and request_tokens(
            system, bigger, current, tokenizer=tokenizer, dialect=dialect, summaries=its,
            facts=base["facts"], evidence=base["evidence"]) > room)


# --- 5. tool rounds, images, reasoning and documents in each dialect -------------------------

def check_tool_selection(case) -> None:
    """The same answer, and never a body the provider refuses: a contiguous suffix of whole
    turns, as many as fit, exactly their request with the first facts_kept facts."""
    system, history, current, facts, options = case
    options = dict(options)
    budget = options.pop("max_bytes")
    chosen = same_answer(system, history, current, budget, facts=facts, **options)
    if isinstance(chosen, BudgetError):
        event(f"BudgetError ({chosen.limit})")
        return
    dialect = options["dialect"]
    event("some turns dropped, some kept" if chosen.kept and chosen.dropped else
          "all kept" if not chosen.dropped else "none kept")
    if any(not turn.plain for turn in history[chosen.dropped:]):
        event("a rich turn kept")
    if chosen.facts_kept and chosen.facts_dropped:
        event("facts partly kept")
    check_request(chosen.payload, dialect)  # never a body the provider refuses
    # The kept turns are the newest ones, a contiguous suffix, and the payload is exactly
    # their request with the first facts_kept facts.
    assert chosen.kept + chosen.dropped == len(history)
    wire = {k: options[k] for k in ("model", "encoder", "dialect", "tools", "current_steps",
                                    "reserve_tokens", "extra") if k in options}
    kept_facts = facts[:chosen.facts_kept]
    assert chosen.payload == request_bytes(system, history[chosen.dropped:], current,
                                           facts=kept_facts, **wire)
    assert chosen.size <= budget
    counting = dict(tools=options["tools"], current_steps=options["current_steps"],
                    tokenizer=options.get("tokenizer", "o200k_base"), dialect=dialect,
                    model=options["model"])
    if "max_tokens" in options:
        assert chosen.tokens == request_tokens(system, history[chosen.dropped:], current,
                                               facts=kept_facts, **counting)
        assert chosen.tokens + options["reserve_tokens"] <= options["max_tokens"]
    else:
        assert chosen.tokens is None
    # Whole turns, as many as fit: one more (older) turn would break a limit.
    if chosen.dropped:
        more = history[chosen.dropped - 1:]
        bigger = request_bytes(system, more, current, facts=kept_facts, **wire)
        if len(bigger) <= budget:
            event("the token limit decided")
        assert len(bigger) > budget or (
            "max_tokens" in options and request_tokens(system, more, current, facts=kept_facts,
                                                       **counting)
            + options["reserve_tokens"] > options["max_tokens"])
    body = json.loads(chosen.payload)
    if dialect == AN:
        assert body["max_tokens"] == options["reserve_tokens"]
    assert_extra_fields(body, dialect, options.get("extra", {}))


def assert_extra_fields(body: dict, dialect: str, extra: dict) -> None:
    """The body holds exactly the extra fields, as given, after the writer's own."""
    written = list(SHAPES[dialect].written)
    assert list(body) == [key for key in body if key in written] + list(extra)
    assert {key: body[key] for key in extra} == extra


@given(tool_selections())
@settings(max_examples=examples(200), **PROPERTY)
def test_select_is_select_reference_and_always_valid(case):
    check_tool_selection(case)


@pytest.mark.long  # minutes of one core: `make stress` only
@given(tool_selections())
@settings(max_examples=3000, **PROPERTY)
def test_select_is_select_reference_and_always_valid_at_length(case):
    check_tool_selection(case)


def check_rich_selection(case) -> None:
    """The same answer; every body passes check_request, decodes to exactly the kept turns'
    request, is byte-identical to the encoder's dump of request_body, and no older whole
    turn would have fit."""
    system, history, current, budget, options = case
    event(f"dialect {options['dialect']}")
    chosen = same_answer(system, history, current, budget, **options)
    if isinstance(chosen, BudgetError):
        event("BudgetError")
        return
    dialect = options["dialect"]
    check_request(chosen.payload, dialect)
    kept = history[chosen.dropped:]
    assert chosen.kept == len(kept) and chosen.size <= budget
    options = dict(options, facts=options["facts"][:chosen.facts_kept])
    body = request_body(system, kept, current, **options)
    assert chosen.payload == ENCODERS[options["encoder"]].dumps(body)
    assert json.loads(chosen.payload) == body  # exactly the kept turns' pieces
    assert_extra_fields(body, dialect, options["extra"])
    if chosen.dropped:  # no older whole turn would have fit
        assert len(request_bytes(system, history[chosen.dropped - 1:], current,
                                 **options)) > budget
    steps = [step for turn in kept for step in turn.steps] + list(options["current_steps"])
    if any(isinstance(step, Reasoning) for step in steps):
        event(f"reasoning kept ({dialect})")
    if any(isinstance(step, ProviderItem) and step.dialect == dialect for step in steps):
        event(f"a provider item sent ({dialect})")
    if any(getattr(step, "item_id", None) for step in steps) and dialect == OR:
        event("item ids sent")
    if any(not turn.answer.strip() for turn in kept):
        event(f"an empty answer kept ({dialect})")
    if any(isinstance(step, ToolCall) and step.id.encode() not in chosen.payload
           for step in steps):
        event(f"a call id mapped ({dialect})")
    if dialect == OA and any(isinstance(step, ToolResult) and step.images for step in steps):
        event("an image moved out of a tool result")


@given(rich_requests())
@settings(max_examples=examples(100), **PROPERTY)
def test_every_rich_selection_is_valid_whole_and_exact(case):
    check_rich_selection(case)


@pytest.mark.long
@given(rich_requests())
@settings(max_examples=1000, **PROPERTY)
def test_every_rich_selection_is_valid_whole_and_exact_at_length(case):
    check_rich_selection(case)


def test_select_equals_select_reference_on_repeated_tool_rounds():
    history = repeated_lookups()
    for dialect in (OA, AN):
        options = (dict(dialect=dialect, reserve_tokens=9, tools=LOOKUP_TOOLS)
                   if dialect == AN else {})
        budget = len(request_bytes("S", history[-3:], "Q", **options))
        assert same_answer("S", history, "Q", budget, **options).kept == 3


@pytest.mark.slow  # select and select_reference at each of 2,400 token limits
def test_select_equals_select_reference_at_every_token_limit_around_an_image():
    history = photo_history()
    for dialect, reserve in ((OA, 0), (AN, 7)):
        counting = dict(dialect=dialect, tools=PHOTO_TOOLS)
        everything = request_tokens("S", history, "Q", **counting)
        for max_tokens in range(max(reserve + 1, everything - 1200), everything + 2 + reserve):
            options = dict(counting, reserve_tokens=reserve, max_tokens=max_tokens)
            chosen = same_answer("S", history, "Q", 10**6, **options)
            if isinstance(chosen, BudgetError):
                continue
            assert chosen.tokens == request_tokens("S", history[chosen.dropped:], "Q",
                                                   **counting)
            assert chosen.tokens + reserve <= max_tokens


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_select_equals_select_reference_with_every_rich_step(dialect, encoder):
    # test_rich_steps.py's history of every step, whole, in each dialect and encoder.
    history, current = every_step_history(dialect)
    for facts in ((), [Fact("f1", S, "t1")]):
        options = dict(OPTIONS[dialect], encoder=encoder, tools=TOOLS, facts=facts,
                       current_steps=current)
        payload = request_bytes(S, history, (S, PDF), **options)
        assert same_answer(S, history, (S, PDF), len(payload), **options).payload == payload


@pytest.mark.parametrize("dialect", DIALECTS)
def test_select_keeps_reasoning_with_its_turn(dialect):
    turns = [rich_turn(f"call_{n}") for n in range(6)]
    options = dict(OPTIONS[dialect], tools=TOOLS)
    sizes = [len(request_bytes(S, turns[k:], S, **options)) for k in range(7)]
    for budget in range(sizes[-1], sizes[0] + 1, max(1, (sizes[0] - sizes[-1]) // 40)):
        chosen = same_answer(S, turns, S, budget, **options)
        body = json.loads(chosen.payload)
        check_request(chosen.payload, dialect)
        text = json.dumps(body)
        want = {OA: 0, AN: chosen.kept, OR: chosen.kept}[dialect]
        assert text.count("EqQBCkYIARgCIkB+sig/==" if dialect == AN else "rs_68b0c2") == want
        if chosen.dropped:  # no older whole turn would have fit
            assert sizes[chosen.dropped - 1] > budget


# --- 6. long histories -----------------------------------------------------------------------

def test_a_long_history_sends_the_summaries_the_rule_takes():
    # 20,000 turns, a summary of each 50, a few of long spans and overlaps: the blocks of
    # older ids are placed as the passes reach them, and the result is the rule's.
    turns = [Turn(f"q{index} 🙂", f"a{index} " + "x" * (index % 40)) for index in range(20_000)]
    ids = [f"t{index}" for index in range(len(turns))]
    summaries = [Summary(f"s{n}", f"Turns {n * 50}.. said ORCHID-{n}.",
                         tuple(ids[n * 50:(n + 1) * 50])) for n in range(400)]
    summaries += [Summary("wide", "Everything early.", tuple(ids[:19_000:1000])),
                  Summary("pair", "Two turns.", (ids[19_990], ids[5]))]
    for budget, cap in ((40_000, 20_000), (60_000, None), (9_000, 3_000)):
        chosen = select("sys", turns, "now?", budget, ids=ids, summaries=summaries,
                        max_summary_bytes=cap)
        assert chosen.summary_ids
        kept = turns[len(turns) - chosen.kept:]
        sent = greedy("sys", "now?", chosen.kept, ids, summaries, dict(facts=[], evidence=[]),
                      cap, budget, None, "o200k_base")
        assert [summary.id for summary in sent] == list(chosen.summary_ids)
        assert chosen.payload == request_bytes("sys", kept, "now?", summaries=sent)
        more = chosen.kept + 1
        its = greedy("sys", "now?", more, ids, summaries, dict(facts=[], evidence=[]), cap,
                     budget, None, "o200k_base")
        assert len(request_bytes("sys", turns[len(turns) - more:], "now?",
                                 summaries=its)) > budget


# --- 7. the cache-stable rule ----------------------------------------------------------------

MARK = "the-question-7f3a"  # a question no drawn text writes


def end_of_turns(payload: bytes) -> int:
    """Where the question's message starts in a request whose question is MARK: the bytes
    before it are the request's up to its last turn (and the separator after it)."""
    return payload.rindex(b"{", 0, payload.index(MARK.encode()))


@st.composite
def conversations(draw):
    """A conversation of rich turns in any dialect, called once a turn (call i sends turns[:i]
    and turns[i]'s question), its turns with ids (as a journal gives them) or without; a byte
    budget between the largest request without turns and the last request whole; sometimes
    a token limit; facts, tools, the application's own fields (extra=); a low-water mark."""
    dialect = draw(st.sampled_from(DIALECTS))
    taken: set = set()  # call ids, once in the conversation (Anthropic's rule)
    turns = draw(st.lists(any_turns(dialect == AN, taken), min_size=2, max_size=10))
    facts = draw(st.just(()) | fact_lists)
    if draw(st.booleans()):
        turns = [replace(turn, id=f"t{index}") for index, turn in enumerate(turns)]
        # Each fact from the first turn, which every call's history holds: select refuses a
        # fact whose turn a history with ids does not hold (OriginNotInHistory).
        facts = [replace(fact, origin="t0") for fact in facts]
    # The same tools on every call (a tools array where Anthropic wants one beside rounds).
    tools = with_tools_for_rounds(dialect, draw(tool_lists), turns, ())
    options = dict(dialect=dialect, encoder=draw(st.sampled_from(sorted(ENCODERS))),
                   tools=tools, facts=facts)
    extra = draw(st.just({}) | extras(dialect))  # the same fields on every call
    if extra:
        options["extra"] = extra
    if dialect == AN:
        options["reserve_tokens"] = draw(st.integers(1, 40))
        options["cache_breakpoints"] = draw(st.booleans())
    system = draw(texts)
    calls = [(turns[:index], turns[index].question) for index in range(1, len(turns))]
    least = max(len(request_bytes(system, [], question, **options)) for _, question in calls)
    full = len(request_bytes(system, turns[:-1], turns[-1].question, **options))
    budget = draw(st.integers(least, max(least, full)))
    if draw(st.booleans()):
        counting = dict(dialect=dialect, tools=options["tools"], facts=options["facts"],
                        tokenizer=draw(st.sampled_from(TOKENIZERS)))
        counts = [request_tokens(system, turns[:-1], turns[-1].question, **counting),
                  request_tokens(system, [], turns[-1].question, **counting)]
        reserve = draw(st.integers(1 if dialect == AN else 0, 20))
        options.update(tokenizer=counting["tokenizer"], reserve_tokens=reserve,
                       max_tokens=reserve + draw(st.integers(min(counts), max(counts))))
    low_water = draw(st.sampled_from([0.3, 0.5, 0.6, 1.0]) | st.floats(0.01, 1.0))
    return system, calls, budget, low_water, options


def check_cache_stable(case) -> None:
    """Each call: the same answer as the oracle; a whole-turn suffix within every limit that
    passes check_request; at least the turns that fit the low-water marks; the previous
    first kept turn held unless the request from it no longer fits or keeps fewer turns than
    the marks (then the cut is at the marks), and where it is held, the previous request's
    bytes up to its last turn."""
    system, calls, budget, low_water, options = case
    dialect, room = options["dialect"], None
    if "max_tokens" in options:
        room = options["max_tokens"] - options["reserve_tokens"]
    wire = {key: value for key, value in options.items()
            if key not in ("max_tokens", "tokenizer", "facts")}
    counting = {key: value for key, value in options.items()
                if key in ("dialect", "tools", "tokenizer")}
    previous = None
    for history, current in calls:
        chosen = same_answer(system, history, current, budget, previous=previous,
                             low_water=low_water, **options)
        if isinstance(chosen, BudgetError):
            event("BudgetError")
            previous = None
            continue
        check_request(chosen.payload, dialect)
        facts = options["facts"][:chosen.facts_kept]

        def fits(kept, most_bytes, most_tokens):
            size = len(request_bytes(system, kept, current, facts=facts, **wire))
            return size <= most_bytes and (most_tokens is None or request_tokens(
                system, kept, current, facts=facts, **counting) <= most_tokens)

        assert chosen.payload == request_bytes(system, history[chosen.dropped:], current,
                                               facts=facts, **wire)
        assert fits(history[chosen.dropped:], budget, room)
        marks = (math.floor(low_water * budget),
                 None if room is None else math.floor(low_water * room))
        low = next((start for start in range(len(history) + 1)
                    if fits(history[start:], *marks)), len(history))
        assert chosen.dropped <= low  # at least the turns that fit the marks
        if previous is not None:
            first = previous.dropped  # the history only grows: its position is its place
            if chosen.dropped == first:
                event("held")
                if previous.facts_kept == chosen.facts_kept:
                    before = request_bytes(system, previous.turns, MARK,
                                           facts=facts, **wire)
                    shared = end_of_turns(before)
                    if options.get("cache_breakpoints") and previous.kept:
                        # The newest turn's mark moves on: up to that turn's last message.
                        marked = previous.payload.rindex(b'"cache_control"', 0, shared)
                        shared = previous.payload.rindex(b'{"role"', 0, marked)
                    assert chosen.payload[:shared] == previous.payload[:shared]
            else:
                event("cut")
                assert chosen.dropped == low
                assert first > low or not fits(history[first:], budget, room)
        previous = chosen


@given(conversations())
@settings(max_examples=examples(150), **PROPERTY)
def test_the_cache_stable_rule_holds_its_first_turn_within_every_limit(case):
    check_cache_stable(case)


@pytest.mark.long
@given(conversations())
@settings(max_examples=1000, **PROPERTY)
def test_the_cache_stable_rule_holds_its_first_turn_within_every_limit_at_length(case):
    check_cache_stable(case)


@settings(max_examples=examples(100), **PROPERTY)
@given(memory=memories(), dialect=st.sampled_from(DIALECTS), share=st.floats(0.3, 1.0),
       summary_cap=st.one_of(st.none(), st.integers(0, 120)),
       token_share=st.one_of(st.none(), st.floats(0.3, 1.1)),
       low_water=st.floats(0.05, 1.0), tokenizer=st.sampled_from(TOKENIZERS),
       after=st.booleans(), breakpoints=st.booleans(), data=st.data())
def test_select_equals_select_reference_with_previous_beside_summaries_and_evidence(
        memory, dialect, share, summary_cap, token_share, low_water, tokenizer, after,
        breakpoints, data):
    # A conversation of the memory strategy's turns, called once a turn with the last
    # request as previous: the summaries for a held first turn, and those of a cut; the
    # evidence after the facts or after the turns; in Anthropic's, with its cache marks or not.
    breakpoints = breakpoints and dialect == AN
    extra = data.draw(st.just({}) | extras(dialect))  # the same fields on every call
    turns, ids, summaries, evidence, facts = memory
    reserve = 5 if dialect == AN or token_share is not None else 0
    everything = dict(facts=facts, evidence=evidence, summaries=summaries)
    full = request_bytes("sys", turns, "now?", dialect=dialect, reserve_tokens=reserve,
                         **everything)
    max_tokens = None
    if token_share is not None:
        whole = request_tokens("sys", turns, "now?", tokenizer=tokenizer, **everything)
        max_tokens = max(reserve + 1, int(whole * token_share) + reserve)
    previous = None
    for count in range(1, len(turns) + 1):
        history, known = turns[:count], ids[:count]
        sent = [summary for summary in summaries if set(summary.covers) <= set(known)]
        held_facts = [fact for fact in facts if fact.origin in known]  # from a stored turn
        options = dict(dialect=dialect, reserve_tokens=reserve, ids=known, facts=held_facts,
                       summaries=sent, max_summary_bytes=summary_cap, evidence=evidence,
                       max_tokens=max_tokens, tokenizer=tokenizer, previous=previous,
                       low_water=low_water, evidence_after_turns=after,
                       cache_breakpoints=breakpoints, extra=extra)
        chosen = same_answer("sys", history, "now?", max(1, int(len(full) * share)), **options)
        if isinstance(chosen, BudgetError):
            previous = None
            continue
        check_request(chosen.payload, dialect)
        kept_ids = set(known[chosen.dropped:])
        by_id = {summary.id: summary for summary in sent}
        assert not any(set(by_id[summary_id].covers) & kept_ids
                       for summary_id in chosen.summary_ids)
        # The rule, from the summaries each first kept turn takes (section 4's greedy).
        budget, room = max(1, int(len(full) * share)), None
        if max_tokens is not None:
            room = max_tokens - reserve
        base = dict(facts=held_facts[:chosen.facts_kept],
                    evidence=evidence[:chosen.evidence_kept],
                    evidence_after_turns=after, cache_breakpoints=breakpoints, extra=extra)

        def fits(start, most_bytes, most_tokens):
            its = greedy("sys", "now?", count - start, known, sent, dict(
                base, dialect=dialect, reserve_tokens=reserve), summary_cap, budget, room,
                tokenizer)
            size = len(request_bytes("sys", history[start:], "now?", summaries=its,
                                     dialect=dialect, reserve_tokens=reserve, **base))
            return size <= most_bytes and (most_tokens is None or request_tokens(
                "sys", history[start:], "now?", summaries=its, tokenizer=tokenizer,
                dialect=dialect, facts=base["facts"], evidence=base["evidence"]) <= most_tokens)

        marks = (math.floor(low_water * budget),
                 None if room is None else math.floor(low_water * room))
        low = next((start for start in range(count + 1) if fits(start, *marks)), count)
        assert chosen.dropped <= low
        if previous is not None:
            first = previous.dropped
            held = first <= low and fits(first, budget, room)
            assert chosen.dropped == (first if held else low)
            event("held" if held else "cut")
        previous = chosen
