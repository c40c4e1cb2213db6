"""Issue 46: the request that is sent is the request that was measured.

The application's own top-level fields (``extra=``) are measured and written where each
provider expects them; ``check_request`` knows each dialect's documented top-level fields
and their JSON types; and the bodies it used to pass that the providers refuse (more than 4
cache breakpoints, empty arrays, both reply caps, trailing whitespace at the end, a "PDF"
that is not one, Anthropic tool blocks without tools, an image over Anthropic's 5 MB of
base64) are refused by rule, index and the provider's words. Property tests over random
requests with extra fields are in test_oracle.py.
"""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path

import pytest

from ledgerlab import (DIALECTS, LIMITS, Document, Image, InvalidRequest, InvalidTurn,
                       ProviderLimitError, ProviderTool, Reasoning, RequestOptions,
                       ReservedFieldError, Tool, ToolCall, ToolResult, Turn, byte_breakdown,
                       check_request, request_body, request_bytes, request_tokens, select,
                       select_reference)
from ledgerlab.dialects import SHAPES
from test_rich_steps import png

OA, AN, OR = "openai-chat", "anthropic-messages", "openai-responses"
S = "SECRETxf6"  # in every text and private value below; never in an error or a repr
TOOLS = [Tool("f", S, {"type": "object"})]
OPTIONS = {OA: {}, AN: {"dialect": AN, "reserve_tokens": 64}, OR: {"dialect": OR}}
# A field each dialect documents, with a value it takes.
VALID = {OA: {"temperature": 0.2, "stream": True, "user": S},
         AN: {"thinking": {"type": "enabled", "budget_tokens": 2048}, "stream": True,
              "metadata": {"user_id": S}},
         OR: {"store": False, "include": ["reasoning.encrypted_content"], "user": S}}
# The rules added here (test_provider_rules.py checks that every rule is tested somewhere).
RULES_TESTED = {"unknown-field", "field-type", "cache-breakpoints", "tools-empty",
                "tool-calls-empty", "max-tokens-both", "final-whitespace", "pdf-signature",
                "tools-defined", "image-base64"}


def refused(payload, dialect) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, dialect)
    assert S not in str(info.value) and S not in info.value.wording
    return info.value


def dumps(value) -> bytes:
    return json.dumps(value).encode()


def history():
    return [Turn(S + f" q{n}", S + f" a{n}") for n in range(6)]


# --- 1. extra=: measured, written at the top level, in every function ------------------------

@pytest.mark.parametrize("dialect", DIALECTS)
def test_extra_fields_are_measured_and_sent_at_the_top_level(dialect):
    options, extra = OPTIONS[dialect], VALID[dialect]
    body = request_body(S, history(), S, extra=extra, **options)
    assert list(body)[-len(extra):] == list(extra)  # after the writer's own fields
    assert {key: body[key] for key in extra} == extra
    payload = request_bytes(S, history(), S, extra=extra, **options)
    check_request(payload, dialect)
    plain = request_bytes(S, history(), S, **options)
    added = len(payload) - len(plain)
    assert added == len(json.dumps(extra, separators=(",", ":"))) - 2 + 1  # the pairs, a comma
    parts = byte_breakdown(S, history(), S, extra=extra, **options)
    assert parts["extra"] == added
    assert sum(value if isinstance(value, int) else sum(value)
               for value in parts.values()) == len(payload)
    # The budget holds the fields too: what fits without them keeps fewer turns with them.
    budget = len(plain)
    for build in (select, select_reference):
        chosen = build(S, history(), S, budget, extra=extra, **options)
        assert chosen.kept < len(history())
        assert chosen.payload == request_bytes(S, history()[chosen.dropped:], S, extra=extra,
                                               **options)
        assert chosen.size <= budget
        check_request(chosen.payload, dialect)


def test_the_issues_thinking_and_stream_are_in_the_measured_bytes():
    # The issue: a body measured at 230 bytes was 295 once thinking and stream were added.
    extra = {"thinking": {"type": "enabled", "budget_tokens": 1024}, "stream": True}
    bare = request_bytes("Be brief.", [], "Hello?", dialect=AN, reserve_tokens=2048)
    sent = request_bytes("Be brief.", [], "Hello?", dialect=AN, reserve_tokens=2048,
                         extra=extra)
    assert len(sent) - len(bare) == 65
    assert select("Be brief.", [], "Hello?", len(sent), dialect=AN, reserve_tokens=2048,
                  extra=extra).payload == sent


def test_anthropics_tool_choice_picks_its_tool_prompt_figure():
    counting = dict(dialect=AN, tools=TOOLS, model="claude-opus-4-5")
    auto = request_tokens(S, [], S, **counting)
    assert request_tokens(S, [], S, extra={"tool_choice": {"type": "auto"}}, **counting) == auto
    forced = request_tokens(S, [], S, extra={"tool_choice": {"type": "any"}}, **counting)
    assert auto - forced == 346 - 313  # the pricing table's two figures
    chosen = select(S, [], S, 10_000, max_tokens=forced + 64, reserve_tokens=64,
                    extra={"tool_choice": {"type": "tool", "name": "f"}}, **counting)
    assert chosen.tokens == forced
    assert request_tokens(S, [], S, extra={"temperature": 0.5}, **counting) == auto


@pytest.mark.parametrize(("dialect", "words"), [
    (OA, "Unrecognized request argument supplied: thinking"),
    (AN, "reasoning_effort: Extra inputs are not permitted"),
    (OR, "Unrecognized request argument supplied: max_tokens")])
def test_an_unknown_field_is_refused_by_name_in_the_providers_words(dialect, words):
    name = words.split(": ")[-1] if dialect != AN else words.split(":")[0]
    with pytest.raises(InvalidRequest) as info:
        select(S, history(), S, 10_000, extra={name: S}, **OPTIONS[dialect])
    assert (info.value.rule, info.value.index, info.value.field) == ("unknown-field", None, name)
    assert info.value.wording == words and S not in str(info.value)
    body = request_body(S, history(), S, **OPTIONS[dialect]) | {name: S}  # a foreign client's
    error = refused(dumps(body), dialect)
    assert (error.rule, error.field, error.wording) == ("unknown-field", name, words)


@pytest.mark.parametrize(("dialect", "name", "value", "words"), [
    (OA, "temperature", S, "Invalid type for 'temperature': expected number or null, but got "
                           "string instead."),
    (OA, "stream", {"on": S}, "Invalid type for 'stream'"),
    (AN, "top_k", 1.5, "top_k: Input should be a valid integer"),
    (AN, "stop_sequences", S, "stop_sequences: Input should be a valid array"),
    (OR, "store", "false", "Invalid type for 'store': expected boolean or null"),
    (OR, "include", None, "Invalid type for 'include'"),  # null is taken: see below
])
def test_a_known_field_of_another_type_is_refused(dialect, name, value, words):
    if value is None:  # include takes null (the reference: Optional); an object it does not
        request_bytes(S, [], S, extra={name: None}, **OPTIONS[dialect])
        value = {S: S}
    with pytest.raises(InvalidRequest) as info:
        request_bytes(S, [], S, extra={name: value}, **OPTIONS[dialect])
    assert (info.value.rule, info.value.field) == ("field-type", name)
    assert info.value.wording.startswith(words) and S not in str(info.value)
    body = request_body(S, [], S, **OPTIONS[dialect]) | {name: value}
    assert refused(dumps(body), dialect).rule == "field-type"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_writers_own_fields_cannot_be_set_through_extra(dialect):
    written = {OA: {"model", "messages", "tools"},
               AN: {"model", "max_tokens", "system", "messages", "tools"},
               OR: {"model", "instructions", "input", "tools"}}[dialect]
    assert set(SHAPES[dialect].written) == written
    for name in written:
        for build in (request_bytes, request_tokens, byte_breakdown):
            with pytest.raises(ReservedFieldError) as info:
                build(S, [], S, extra={name: S}, **OPTIONS[dialect])
            assert info.value.field == name and S not in str(info.value)
            assert "extra cannot set" in str(info.value)
    with pytest.raises(ReservedFieldError, match="reserve_tokens"):
        select(S, [], S, 10_000, extra={"max_tokens": 10}, **OPTIONS[AN])


def test_extra_is_a_mapping_of_json_values_named_in_the_error():
    for bad, kind in (([("stream", True)], TypeError), ({1: True}, TypeError),
                      ({"stop": {S}}, TypeError), ({"temperature": math.nan}, InvalidTurn),
                      ("stream", TypeError)):
        with pytest.raises(kind, match="extra") as info:
            RequestOptions(extra=bad)
        assert S not in str(info.value)


def test_extra_is_kept_as_a_copy_and_left_out_of_the_repr():
    given = {"metadata": {"user": S}}
    options = RequestOptions(extra=given)
    given["metadata"]["user"] = "changed"  # the caller's dict changes after the options
    assert request_body(S, [], S, options=options)["metadata"] == {"user": S}
    request_body(S, [], S, options=options)["metadata"]["user"] = "edited"  # the caller's body
    assert request_body(S, [], S, options=options)["metadata"] == {"user": S}
    assert S not in repr(options) and "metadata" not in repr(options)
    assert select(S, [], S, 10_000, options=options).payload == request_bytes(
        S, [], S, options=options)


@pytest.mark.parametrize(("dialect", "cap"), [(OA, "max_completion_tokens"),
                                              (OR, "max_output_tokens")])
def test_a_reply_cap_in_extra_is_kept_within_reserve_tokens(dialect, cap):
    options = dict(OPTIONS[dialect], max_tokens=1000)
    with pytest.raises(ValueError, match=f"{cap} \\(500\\) is over reserve_tokens \\(0\\)"):
        select(S, [], S, 10_000, extra={cap: 500}, **options)
    chosen = select(S, [], S, 10_000, extra={cap: 500}, reserve_tokens=500, **options)
    assert json.loads(chosen.payload)[cap] == 500
    check_request(chosen.payload, dialect)


# --- 6. check_request's false accepts -------------------------------------------------------

def cached(block: dict) -> dict:
    return {**block, "cache_control": {"type": "ephemeral"}}


def test_more_than_four_cache_breakpoints_are_refused():
    turns = [Turn(S, S) for _ in range(4)]
    body = request_body(S, turns, S, tools=TOOLS, **OPTIONS[AN])
    for index in (1, 3, 5, 7):  # the four answers, as blocks with a breakpoint
        body["messages"][index]["content"] = [cached({"type": "text", "text": S})]
    check_request(dumps(body), AN)  # four: the most
    body["messages"][8]["content"] = [cached({"type": "text", "text": S})]
    error = refused(dumps(body), AN)
    assert (error.rule, error.index) == ("cache-breakpoints", 8)
    assert error.wording == "A maximum of 4 blocks with cache_control may be provided. Found 5."
    del body["messages"][8]["content"][0]["cache_control"]
    body["tools"][0] = cached(body["tools"][0])  # the tools and the top level count too,
    assert refused(dumps(body), AN).index == 7  # first: the fifth is the last message's
    del body["tools"][0]["cache_control"]
    assert refused(dumps(body | {"cache_control": {"type": "ephemeral"}}), AN).rule == (
        "cache-breakpoints")
    assert LIMITS[AN]["cache_breakpoints"].value == 4
    # select builds no such body: provider tools with breakpoints and the automatic one
    marked = [ProviderTool(cached({"type": "web_search_20250305", "name": f"w{n}"}), AN)
              for n in range(4)]
    with pytest.raises(InvalidRequest) as info:
        select(S, turns, S, 10_000, tools=marked, extra={"cache_control": {"type": "ephemeral"}},
               **OPTIONS[AN])
    assert info.value.rule == "cache-breakpoints"
    check_request(select(S, turns, S, 10_000, tools=marked, **OPTIONS[AN]).payload, AN)


def test_empty_tools_and_tool_calls_arrays_are_refused_by_openai_chat():
    body = request_body(S, [], S) | {"tools": []}
    error = refused(dumps(body), OA)
    assert (error.rule, error.index) == ("tools-empty", None)
    assert "empty array. Expected an array with minimum length 1" in error.wording
    turn = Turn(S, S, (ToolCall("call_1", "f", "{}"), ToolResult("call_1", S)))
    body = request_body(S, [turn], S, tools=TOOLS)
    body["messages"][2]["content"] = S  # text beside calls, then the calls emptied
    check_request(dumps(body), OA)
    body["messages"][2]["tool_calls"] = []
    del body["messages"][3]
    error = refused(dumps(body), OA)
    assert (error.rule, error.index) == ("tool-calls-empty", 2)


def test_max_tokens_beside_max_completion_tokens_is_refused():
    both = {"max_tokens": 100, "max_completion_tokens": 100}
    error = refused(dumps(request_body(S, [], S) | both), OA)
    assert error.rule == "max-tokens-both"
    assert "at the same time is not supported" in error.wording
    with pytest.raises(InvalidRequest, match="max-tokens-both"):
        select(S, [], S, 10_000, extra=both)
    for name in both:  # either alone is taken
        check_request(select(S, [], S, 10_000, extra={name: 100}).payload, OA)


def test_a_final_assistant_message_may_not_end_with_whitespace():
    body = request_body(S, [], S, **OPTIONS[AN])
    for prefill in ("The answer is ", [{"type": "text", "text": "The answer is\n"}]):
        with_prefill = dict(body, messages=[*body["messages"], {"role": "assistant",
                                                                "content": prefill}])
        error = refused(dumps(with_prefill), AN)
        assert (error.rule, error.index) == ("final-whitespace", 1)
        assert error.wording == "final assistant content cannot end with trailing whitespace"
    check_request(dumps(dict(body, messages=[*body["messages"], {
        "role": "assistant", "content": "The answer is"}])), AN)
    # not final, or not the assistant's: taken
    check_request(request_bytes(S, [Turn(S, S + " \n")], S + " ", **OPTIONS[AN]), AN)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_base64_pdf_that_is_not_a_pdf_is_refused(dialect):
    pdf = Document("application/pdf", b"%PDF-1.7 " + S.encode(), "a.pdf")
    payload = request_bytes(S, [], (S, pdf), **OPTIONS[dialect])
    check_request(payload, dialect)
    not_pdf = base64.b64encode(b"<html>" + S.encode()).decode()
    error = refused(payload.replace(pdf.base64.encode(), not_pdf.encode()), dialect)
    assert (error.rule, error.index) == ("pdf-signature", 1 if dialect == OA else 0)
    if dialect == AN:
        assert "The PDF specified was not valid." in error.wording


def test_anthropic_tool_blocks_need_a_tools_array():
    turn = Turn(S, S, (ToolCall("call_1", "f", "{}"), ToolResult("call_1", S)))
    body = request_body(S, [turn], S, **OPTIONS[AN])  # the low-level writer builds it
    error = refused(dumps(body), AN)
    assert (error.rule, error.index) == ("tools-defined", 1)
    assert "must define tools" in error.wording
    for build in (select, select_reference):  # a typed error naming where, nothing built
        with pytest.raises(InvalidTurn, match="kept turn 0") as info:
            build(S, [turn], S, 10_000, **OPTIONS[AN])
        assert S not in str(info.value) and "tool_choice" in str(info.value)
        with pytest.raises(InvalidTurn, match="the rounds in progress"):
            build(S, [], S, 10_000, current_steps=turn.steps, **OPTIONS[AN])
        # dropped for the budget, the tool turn asks nothing
        assert build(S, [turn, Turn(S, S)], S, len(request_bytes(S, [Turn(S, S)], S,
                                                                 **OPTIONS[AN])),
                     **OPTIONS[AN]).kept == 1
        # switched off the way Anthropic documents: the tools, and tool_choice none
        off = build(S, [turn], S, 10_000, tools=TOOLS, extra={"tool_choice": {"type": "none"}},
                    **OPTIONS[AN])
        check_request(off.payload, AN)
    check_request(request_bytes(S, [turn], S), OA)  # OpenAI takes it


def test_thinking_in_extra_needs_the_thinking_of_the_rounds_in_progress():
    steps = (ToolCall("call_1", "f", "{}"), ToolResult("call_1", S))
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    with pytest.raises(InvalidRequest) as info:
        select(S, [], S, 10_000, tools=TOOLS, current_steps=steps, extra=thinking,
               **OPTIONS[AN])
    assert info.value.rule == "thinking-first"
    kept = (Reasoning({"type": "thinking", "thinking": S, "signature": "EqQB"}, AN), *steps)
    chosen = select(S, [], S, 10_000, tools=TOOLS, current_steps=kept, extra=thinking,
                    **OPTIONS[AN])
    check_request(chosen.payload, AN)


def test_a_responses_input_given_as_a_string_is_taken():
    check_request(dumps({"model": "gpt-5", "input": S}), OR)
    check_request(dumps({"model": "gpt-5", "instructions": None, "input": S, "store": False}),
                  OR)
    assert refused(dumps({"model": "gpt-5", "input": 5}), OR).rule == "body"
    assert refused(dumps({"model": "gpt-5", "messages": S}), OA).rule == "body"  # Chat: a list


# --- 3 (part). Anthropic's 5 MB image limit is on the base64 string -------------------------

def test_anthropics_image_limit_is_on_its_base64_string():
    most = LIMITS[AN]["image_base64"].value
    assert most == 5_242_880 and LIMITS[OA]["image_base64"].value is None
    header = png(64, 64)
    fits = Image("image/png", header + b"\0" * (most // 4 * 3 - len(header)))  # 3.75 MiB
    over = Image("image/png", header + b"\0" * (most // 4 * 3 - len(header) + 1))
    assert (len(fits.base64), len(over.base64)) == (most, most + 4)
    check_request(request_bytes(S, [], (S, fits), **OPTIONS[AN]), AN)
    error = refused(request_bytes(S, [], (S, over), **OPTIONS[AN]), AN)
    assert (error.rule, error.index) == ("image-base64", 0)
    assert error.wording.endswith(f"image exceeds 5 MB maximum: {most + 4} bytes > {most} bytes")
    # select builds no such body: over the limit in the question, a typed error naming both
    with pytest.raises(ProviderLimitError) as info:
        select(S, [], (S, over), 10**7, **OPTIONS[AN])
    assert (info.value.limit, info.value.value, info.value.allowed) == (
        "image_base64", most + 4, most)
    # in a stored turn, the turn is dropped like one over the budget
    for build in (select, select_reference):
        assert build(S, [Turn((S, over), S), Turn(S, S)], S, 10**7, **OPTIONS[AN]).kept == 1
    check_request(request_bytes(S, [], (S, over)), OA)  # OpenAI documents no such limit


def test_the_docs_list_each_dialects_top_level_fields():
    text = (Path(__file__).parents[2] / "docs" / "library.md").read_text(encoding="utf-8")
    table = text.split("### The application's own fields", 1)[1].split("###", 1)[0]
    for dialect in DIALECTS:
        row = next(line for line in table.splitlines() if line.startswith(f"| `{dialect}` |"))
        assert {name for name in SHAPES[dialect].fields} == set(re.findall(r"`(\w+)`", row)) - {
            dialect}
