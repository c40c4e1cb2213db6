"""Issue 36, section 2, done when: over random histories in all three dialects, with
reasoning, text beside calls, error results, images in results and documents, every body
``select`` returns passes ``check_request``, decodes to exactly the kept turns' request, is
byte-identical to the encoder's dump of ``request_body``, and no older whole turn would have
fit."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ledgerlab import (DIALECTS, ENCODERS, AssistantText, BudgetError, Document, Fact, Image,
                       Reasoning, Tool, ToolCall, ToolResult, Turn, check_request, request_body,
                       request_bytes, select, select_reference)
from test_dialects import arguments, solid_texts, texts, tool_names
from test_rich_steps import png
from tiers import examples

OA, AN, OR = "openai-chat", "anthropic-messages", "openai-responses"
IMAGES = [Image("image/png", png(3, 2)), Image("image/png", png(40, 30))]
DOCUMENTS = [Document("application/pdf", b"%PDF-1.4 x"),
             Document("application/pdf", b"%PDF-1.7 \x00\xff" * 40, "a.pdf")]
signatures = st.text("ABCDEFabcdef0123456789+/=", min_size=1, max_size=40)
reasoning_items = st.one_of(
    st.builds(lambda thought, signature: Reasoning(
        {"type": "thinking", "thinking": thought, "signature": signature}, AN),
        texts, signatures),
    st.builds(lambda data: Reasoning({"type": "redacted_thinking", "data": data}, AN),
              signatures),
    st.builds(lambda suffix, summary, encrypted: Reasoning(
        {"type": "reasoning", "id": "rs_" + suffix, "summary": [
            {"type": "summary_text", "text": text} for text in summary],
         "encrypted_content": encrypted}, OR),
        signatures, st.lists(texts, max_size=2), signatures))


@st.composite
def rounds(draw, dialect: str, numbers, max_rounds: int = 2) -> tuple:
    text = solid_texts if dialect == AN else texts
    steps = []
    for _ in range(draw(st.integers(1, max_rounds))):
        chosen = draw(st.lists(reasoning_items, max_size=2))
        responses = [item for item in chosen if item.dialect == OR][:1]
        steps += [item for item in chosen if item.dialect == AN] + responses
        if draw(st.booleans()):
            steps.append(AssistantText(draw(solid_texts)))
        calls = [ToolCall(f"call_{next(numbers)}", draw(tool_names), draw(arguments()))
                 for _ in range(draw(st.integers(1, 3)))]
        steps += calls
        for call in draw(st.permutations(calls)):
            content = draw(text)
            if dialect != OA and draw(st.booleans()):  # OpenAI Chat's results are text
                content = (draw(solid_texts), draw(st.sampled_from(IMAGES)))
            steps.append(ToolResult(call.id, content, draw(st.booleans())))
    return tuple(steps)


@st.composite
def rich_turns(draw, dialect: str, numbers) -> Turn:
    text = solid_texts if dialect == AN else texts
    if draw(st.integers(0, 3)) == 0:
        return Turn(draw(text), draw(text))
    parts = tuple(draw(st.lists(st.one_of(text, st.sampled_from(IMAGES),
                                          st.sampled_from(DOCUMENTS)), min_size=1, max_size=3)))
    steps = draw(st.just(()) | rounds(dialect, numbers))
    return Turn(parts, draw(text), steps)


@st.composite
def cases(draw):
    dialect = draw(st.sampled_from(DIALECTS))
    numbers = itertools.count()  # call ids unique in the request (Anthropic's rule)
    history = draw(st.lists(rich_turns(dialect, numbers), max_size=6))
    options = dict(dialect=dialect, encoder=draw(st.sampled_from(sorted(ENCODERS))),
                   tools=draw(st.just([]) | st.just([Tool("f", "d", {"type": "object"})])),
                   current_steps=draw(st.just(()) | rounds(dialect, numbers, 1)),
                   facts=draw(st.just(()) | st.just([Fact("f1", "a fact", "t1")])))
    if dialect == AN:
        options["reserve_tokens"] = 64
    current = draw(st.sampled_from(["now?", ("now?", DOCUMENTS[0])]))
    full = len(request_bytes("S", history, current, **options))
    least = len(request_bytes("S", [], current, **options))
    budget = draw(st.integers(least, full) | st.integers(max(1, least - 20), full + 20))
    return "S", history, current, budget, options


def check(case) -> None:
    system, history, current, budget, options = case
    try:
        fast = select(system, history, current, budget, **options)
    except BudgetError as error:
        with pytest.raises(BudgetError) as again:
            select_reference(system, history, current, budget, **options)
        assert str(again.value) == str(error)
        event("BudgetError")
        return
    assert fast == select_reference(system, history, current, budget, **options)
    dialect = options["dialect"]
    check_request(fast.payload, dialect)
    kept = history[fast.dropped:]
    assert fast.kept == len(kept) and fast.size <= budget
    options = dict(options, facts=options["facts"][:fast.facts_kept])
    body = request_body(system, kept, current, **options)
    assert fast.payload == ENCODERS[options["encoder"]].dumps(body)
    assert json.loads(fast.payload) == body  # exactly the kept turns' pieces
    if fast.dropped:  # no older whole turn would have fit
        assert len(request_bytes(system, history[fast.dropped - 1:], current,
                                 **options)) > budget
    if any(isinstance(step, Reasoning) for turn in kept for step in turn.steps):
        event(f"reasoning kept ({dialect})")


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


@given(cases())
@settings(max_examples=examples(100), **SETTINGS)
def test_every_rich_selection_is_valid_whole_and_exact(case):
    check(case)


@pytest.mark.long
@given(cases())
@settings(max_examples=1000, **SETTINGS)
def test_every_rich_selection_is_valid_whole_and_exact_at_length(case):
    check(case)
