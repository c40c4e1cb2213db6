"""Issue 36, section 1: every documented provider rule, refused by check_request by name
(``.rule``) on a body built through the public API where it lets one be built (or by hand,
as only a foreign client could), and never built by select (a typed error, or the turn
dropped like one over the budget)."""

from __future__ import annotations

import json
import struct
import zlib

import pytest

from ledgerlab import (LIMITS, Fact, Image, InvalidRequest, InvalidTurn, ProviderLimitError,
                       ProviderTool, Tool, ToolCall, ToolResult, Turn, check_request,
                       request_body, request_bytes, select, select_reference)
from ledgerlab.dialects import RULES
from test_rich_steps import RULES_TESTED as RICH_RULES_TESTED
from test_rules import BROKEN

OA, AN = "openai-chat", "anthropic-messages"
S = "SECRETpr7"
OPTIONS = {OA: {}, AN: {"dialect": AN, "reserve_tokens": 64}}


def refused(payload, dialect) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, dialect)
    assert S not in str(info.value)
    return info.value


def body(dialect, **changes) -> dict:
    """A valid body of ``dialect`` with one round, as request_body builds it."""
    turn = Turn(S, S, (ToolCall("call_1", "f", '{"a":1}'), ToolResult("call_1", S)))
    return request_body(S, [turn], S, tools=[Tool("f", S, {"type": "object"})],
                        **OPTIONS[dialect]) | changes


def dumps(value) -> bytes:
    return json.dumps(value).encode()


def round_of(call_id, name="f"):
    return (ToolCall(call_id, name, "{}"), ToolResult(call_id, S))


# --- call ids ------------------------------------------------------------------------------


@pytest.mark.parametrize("call_id", ["call.1", "mcp:server/tool#1", "a b"])
def test_anthropic_call_ids_follow_its_pattern(call_id):
    built = body(AN)
    built["messages"][1]["content"][0]["id"] = call_id
    built["messages"][2]["content"][0]["tool_use_id"] = call_id
    error = refused(dumps(built), AN)
    assert (error.rule, error.index) == ("call-id-pattern", 1)
    assert "String should match pattern" in error.wording
    turn = Turn(S, S, round_of(call_id))
    check_request(request_bytes(S, [turn], S), OA)  # OpenAI takes it
    for build in (select, select_reference):
        with pytest.raises(InvalidTurn, match="must match"):
            build(S, [turn], S, 10_000, **OPTIONS[AN])
    with pytest.raises(InvalidTurn):
        select(S, [], S, 10_000, current_steps=round_of(call_id), **OPTIONS[AN])


def test_openai_call_ids_are_at_most_40_characters():
    long_id = "c" * 41
    turn = Turn(S, S, round_of(long_id))
    with pytest.raises(InvalidTurn):  # the writer does not build it: a foreign client's body
        request_bytes(S, [turn], S)
    hand_made = request_bytes(S, [Turn(S, S, round_of("c" * 40))], S).replace(
        b"c" * 40, long_id.encode())
    error = refused(hand_made, OA)
    assert (error.rule, error.index) == ("call-id-length", 2)
    assert "maximum length 40" in error.wording
    check_request(request_bytes(S, [turn], S, **OPTIONS[AN]), AN)  # Anthropic takes it
    with pytest.raises(InvalidTurn, match="at most 40"):
        select(S, [turn], S, 10_000)
    assert select(S, [Turn(S, S, round_of("c" * 40))], S, 10_000).kept == 1


def test_a_call_id_appears_once_in_an_anthropic_request():
    turns = [Turn(S, S, round_of("call_1")), Turn(S, S, round_of("call_1"))]
    payload = request_bytes(S, turns, S, **OPTIONS[AN])  # the low-level writer builds it
    error = refused(payload, AN)
    assert (error.rule, error.index) == ("call-id-unique", 5)
    for build in (select, select_reference):
        with pytest.raises(InvalidTurn, match="two turns"):
            build(S, turns, S, 10_000, **OPTIONS[AN])
        # dropped for the budget, the older turn is never looked at
        assert build(S, turns, S, len(request_bytes(S, turns[1:], S, **OPTIONS[AN])),
                     **OPTIONS[AN]).kept == 1
    check_request(request_bytes(S, turns, S), OA)


def test_a_missing_id_is_named_as_missing():
    built = body(OA)
    del built["messages"][2]["tool_calls"][0]["id"]
    assert refused(dumps(built), OA).rule == "call-id"
    built = body(OA)
    del built["messages"][3]["tool_call_id"]
    assert (refused(dumps(built), OA).rule, refused(dumps(built), OA).index) == (
        "tool-call-id", 3)
    built = body(AN)
    del built["messages"][1]["content"][0]["id"]
    assert refused(dumps(built), AN).rule == "call-id"
    built = body(AN)
    del built["messages"][2]["content"][0]["tool_use_id"]
    assert refused(dumps(built), AN).rule == "tool-call-id"


# --- tools -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", [OA, AN])
def test_a_tools_schema_must_be_an_object_schema(dialect):
    with pytest.raises(InvalidTurn, match='"type": "object"'):
        Tool("f", "d", {})
    built = body(dialect)
    entry = built["tools"][0]
    (entry["function"] if dialect == OA else entry)["parameters" if dialect == OA
                                                    else "input_schema"] = {}
    error = refused(dumps(built), dialect)
    assert (error.rule, error.index) == ("schema-object", 0)
    assert str(error).startswith("schema-object (tool 0)")


def test_tool_names_follow_each_dialects_pattern():
    name = "x" * 65  # within Anthropic's 128, over OpenAI's 64
    tool = Tool(name, "d", {"type": "object"})
    check_request(request_bytes(S, [], S, tools=[tool], **OPTIONS[AN]), AN)
    with pytest.raises(InvalidTurn, match="64"):
        select(S, [], S, 10_000, tools=[tool])
    with pytest.raises(InvalidTurn, match="64"):
        select(S, [Turn(S, S, (ToolCall("c", name, "{}"), ToolResult("c", S)))], S, 10_000)
    built = body(OA)
    built["tools"][0]["function"]["name"] = name
    assert refused(dumps(built), OA).rule == "tool-name"
    built = body(AN)
    built["tools"][0]["name"] = "x" * 129
    assert refused(dumps(built), AN).rule == "tool-name"
    built = body(AN)
    built["messages"][1]["content"][0]["name"] = "get.weather"
    assert refused(dumps(built), AN).rule == "tool-name"
    built = body(OA)
    built["tools"].append(built["tools"][0])
    assert refused(dumps(built), OA).rule == "tool-names-unique"


@pytest.mark.parametrize("dialect", [OA, AN])
def test_arguments_are_what_each_dialect_sends(dialect):
    built = body(dialect)
    if dialect == OA:
        built["messages"][2]["tool_calls"][0]["function"]["arguments"] = {"a": 1}
    else:
        built["messages"][1]["content"][0]["input"] = '{"a":1}'
    assert refused(dumps(built), dialect).rule == "arguments"


def test_more_tools_than_openai_takes():
    tools = [Tool(f"f{n}", "d", {"type": "object"}) for n in range(129)]
    hand_made = request_body(S, [], S, tools=tools[:1]) | {
        "tools": [request_body(S, [], S, tools=[tool])["tools"][0] for tool in tools]}
    error = refused(dumps(hand_made), OA)
    assert error.rule == "too-many-tools"
    with pytest.raises(ProviderLimitError) as info:
        select(S, [], S, 10**6, tools=tools)
    assert (info.value.limit, info.value.value, info.value.allowed) == ("tools", 129, 128)


# --- provider tools pass untouched, and cost their bytes -----------------------------------

PROVIDER_TOOLS = {
    OA: {"type": "custom", "custom": {"name": "grammar", "description": "free text"}},
    AN: {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
}


@pytest.mark.parametrize("dialect", [OA, AN])
def test_provider_tools_pass_untouched_and_are_mandatory_bytes(dialect):
    tool = ProviderTool(PROVIDER_TOOLS[dialect], dialect)
    assert repr(tool) == f"ProviderTool({dialect}, entry={len(tool.entry.encode())} bytes)"
    payload = request_bytes(S, [], S, tools=[tool], **OPTIONS[dialect])
    check_request(payload, dialect)
    assert json.loads(payload)["tools"] == [PROVIDER_TOOLS[dialect]]
    bare = len(request_bytes(S, [], S, **OPTIONS[dialect]))
    assert select(S, [], S, len(payload), tools=[tool], **OPTIONS[dialect]).payload == payload
    with pytest.raises(ValueError, match="tool schemas"):  # a BudgetError
        select(S, [], S, bare, tools=[tool], **OPTIONS[dialect])
    other = AN if dialect == OA else OA
    with pytest.raises(InvalidTurn, match="cannot go"):
        select(S, [], S, 10_000, tools=[tool], **OPTIONS[other])


# --- the system -----------------------------------------------------------------------------


@pytest.mark.parametrize("system", ["", "  \n"])
def test_a_blank_anthropic_system_is_left_out(system):
    payload = request_bytes(system, [], S, **OPTIONS[AN])
    check_request(payload, AN)
    assert "system" not in json.loads(payload)
    fact = Fact("f1", S, origin="t1")
    payload = select(system, [], S, 10_000, facts=[fact], **OPTIONS[AN]).payload
    check_request(payload, AN)
    assert json.loads(payload)["system"] == [{"type": "text", "text": f"[t1] {S}"}]
    for blank in ("", [{"type": "text", "text": " "}], []):
        error = refused(dumps(body(AN, system=blank)), AN)
        assert (error.rule, error.index) == ("non-empty", None)


# --- blocks, parts, media types, the first message -------------------------------------------


def png(width: int, height: int) -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\0" * (width + 1))) + chunk(b"IEND", b""))


@pytest.mark.parametrize("dialect", [OA, AN])
def test_unknown_blocks_and_media_types_are_refused(dialect):
    image = Image("image/png", png(2, 2))
    built = request_body(S, [], (S, image), **OPTIONS[dialect])
    check_request(dumps(built), dialect)
    parts = built["messages"][-1]["content"]
    parts[0]["type"] = "video"
    assert refused(dumps(built), dialect).rule == "block-type"
    built = request_body(S, [], (S, image), **OPTIONS[dialect])
    text = json.dumps(built).replace("image/png", "image/tiff")
    assert refused(text, dialect).rule == "media-type"


def test_anthropics_first_message_is_the_users():
    built = body(AN)
    built["messages"] = built["messages"][1:]
    assert (refused(dumps(built), AN).rule, refused(dumps(built), AN).index) == ("first-user", 0)


# --- limits -----------------------------------------------------------------------------------


def test_a_budget_over_the_body_limit_is_refused_with_both_numbers():
    for build in (select, select_reference):
        with pytest.raises(ProviderLimitError) as info:
            build(S, [], S, 32_000_001, **OPTIONS[AN])
        assert "32000000" in str(info.value) and "32000001" in str(info.value)
        assert build(S, [], S, 32_000_000, **OPTIONS[AN]).kept == 0
    assert select(S, [], S, 10**9).kept == 0  # OpenAI documents no body limit
    big = dumps(body(AN, metadata={"pad": "x" * 32_000_000}))
    assert refused(big, AN).rule == "too-large"


def test_image_pixel_limits_anthropic():
    wide = Image("image/png", png(8001, 1))
    error = refused(request_bytes(S, [], (S, wide), **OPTIONS[AN]), AN)
    assert error.rule == "image-size"
    with pytest.raises(ProviderLimitError, match="8000"):
        select(S, [], (S, wide), 10**6, **OPTIONS[AN])
    # over 20 images, each at most 2000 px: the turn that would make 21 is dropped
    mid = Image("image/png", png(2001, 1))
    turns = [Turn((S, mid), S) for _ in range(21)]
    error = refused(request_bytes(S, turns, S, **OPTIONS[AN]), AN)
    assert error.rule == "image-size"
    for build in (select, select_reference):
        assert build(S, turns, S, 10**6, **OPTIONS[AN]).kept == 20
    assert select(S, turns, S, 10**6).kept == 21  # OpenAI scales them down


def test_images_per_request():
    small = Image("image/png", png(1, 1))
    most = LIMITS[AN]["images"].value
    turns = [Turn((S, small), S) for _ in range(most + 1)]
    assert refused(request_bytes(S, turns, S, **OPTIONS[AN]), AN).rule == "too-many-images"
    assert select(S, turns, S, 10**6, **OPTIONS[AN]).kept == most


def test_every_rule_key_is_exercised_here_or_in_test_rules():
    here = {"call-id", "tool-call-id", "call-id-pattern", "call-id-length", "call-id-unique",
            "schema-object", "tool-name", "tool-names-unique", "arguments", "block-type",
            "media-type", "too-large", "too-many-images", "image-size", "too-many-tools",
            "first-user", "non-empty"}
    # built at their limits in test_provider_limits.py: too-many-messages (100,000),
    # image-bytes (50 MB), too-many-calls (128 in one message); in test_prompt_cache.py:
    # cache-breakpoints (a fifth cache_control mark)
    assert {case[2] for case in BROKEN} | here | RICH_RULES_TESTED | {
        "too-many-messages", "image-bytes", "too-many-calls", "cache-breakpoints"} == set(RULES)


def test_every_limit_has_a_source():
    assert set(LIMITS) == {OA, AN, "openai-responses"}
    for limits in LIMITS.values():
        assert set(limits) == set(LIMITS[OA])
        assert all(limit.source for limit in limits.values())
