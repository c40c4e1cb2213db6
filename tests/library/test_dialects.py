"""The wire in both dialects: the documented shapes, the article's bytes unchanged, and
every encoder's bytes equal to what json.dumps, the real httpx and the real requests write.
The strategies for rich requests are in strategies.py."""

from __future__ import annotations

import json

import httpx
import pytest
import requests
from hypothesis import HealthCheck, given, settings

from ledgerlab import (DIALECTS, ENCODERS, Fact, Image, Tool, ToolCall, ToolResult, Turn,
                       byte_breakdown, request_body, request_bytes)
from ledgerlab.course.fixtures import BOUNDARY_HISTORY, BOUNDARY_QUESTION, BOUNDARY_SYSTEM
from strategies import ANTHROPIC, OPENAI, RICH, SAMPLE_IMAGES, png_file, requests_
from tiers import examples

# --- the article's bytes stay the article's -----------------------------------------------

FULL_GSON = (
    '{"model":"agnes-3.0-flash","messages":[{"role":"system","content":"只根据已知信息回答。"},'
    '{"role":"user","content":"hello"},{"role":"assistant","content":"world"},'
    '{"role":"user","content":"接口 \\"是什么\\""},{"role":"assistant","content":"Java\\n接口"},'
    '{"role":"user","content":"继续🙂"}]}').encode("utf-8")
MANDATORY_GSON = (
    '{"model":"agnes-3.0-flash","messages":[{"role":"system","content":"只根据已知信息回答。"},'
    '{"role":"user","content":"继续🙂"}]}').encode("utf-8")


@pytest.mark.parametrize("options", [{}, {"dialect": OPENAI}, {"tools": (), "current_steps": ()},
                                     {"tools": [], "current_steps": [], "dialect": OPENAI,
                                      "reserve_tokens": 0}, {"reserve_tokens": 900}])
def test_the_articles_request_is_unchanged(options):
    full = request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION, **options)
    assert full == FULL_GSON and len(full) == 308
    mandatory = request_bytes(BOUNDARY_SYSTEM, [], BOUNDARY_QUESTION, **options)
    assert len(mandatory) == 140
    assert mandatory == MANDATORY_GSON
    assert b"tools" not in full and b"max_tokens" not in full
    assert [len(request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY[k:], BOUNDARY_QUESTION,
                              **options)) for k in (2, 1, 0)] == [140, 235, 308]


def test_the_articles_request_in_every_encoder_is_its_json():
    for name, encoder in ENCODERS.items():
        body = request_body(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION)
        assert request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION,
                             encoder=name) == encoder.dumps(body)
    assert list(body) == ["model", "messages"]


# --- the documented shapes ----------------------------------------------------------------

WEATHER = Tool("get_weather", "Weather now.", {"type": "object", "properties": {
    "city": {"type": "string", "description": "A city"}}, "required": ["city"]})
PNG = Image("image/png", png_file((3, 2)))


def rich_turn():
    return Turn(("what is this?", PNG), "Rain in Oslo, sun in Rome.", (
        ToolCall("call_1", "get_weather", '{"city": "Oslo"}'),
        ToolCall("call_2", "get_weather", '{"city":"Rome"}'),
        ToolResult("call_2", "sun"), ToolResult("call_1", "rain"),
        ToolCall("call_3", "get_weather", '{"city":"Bergen","days":[1,2.5,null,true]}'),
        ToolResult("call_3", "wind")))


def parsed(*args, **options) -> dict:
    payload = request_bytes(*args, **options)
    body = json.loads(payload)
    assert body == request_body(*args, **options)
    return body


def test_openai_shapes():
    body = parsed("sys", [rich_turn()], "and now?", tools=[WEATHER],
                  current_steps=(ToolCall("c9", "get_weather", "{}"), ToolResult("c9", "fog")))
    assert list(body) == ["model", "messages", "tools"]
    assert body["tools"] == [{"type": "function", "function": {
        "name": "get_weather", "description": "Weather now.", "parameters": WEATHER.schema}}]
    assert list(body["tools"][0]["function"]) == ["name", "description", "parameters"]
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool",
                                             "assistant", "tool", "assistant", "user",
                                             "assistant", "tool"]
    assert messages[1]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG.base64}}]
    assert messages[2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
        {"id": "call_2", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'}}]}
    assert list(messages[2]) == ["role", "content", "tool_calls"]
    assert messages[3] == {"role": "tool", "tool_call_id": "call_2", "content": "sun"}
    assert messages[4] == {"role": "tool", "tool_call_id": "call_1", "content": "rain"}
    assert list(messages[3]) == ["role", "tool_call_id", "content"]
    assert messages[5]["tool_calls"][0]["function"]["arguments"] == (
        '{"city":"Bergen","days":[1,2.5,null,true]}')  # the text as the model wrote it
    assert messages[7] == {"role": "assistant", "content": "Rain in Oslo, sun in Rome."}
    assert messages[8] == {"role": "user", "content": "and now?"}
    assert messages[10] == {"role": "tool", "tool_call_id": "c9", "content": "fog"}


def test_openai_has_no_tools_key_without_tools_and_facts_are_a_second_system_message():
    body = parsed("sys", [rich_turn()], "q", facts=[Fact("f1", "ORCHID-17", "t1")])
    assert "tools" not in body
    assert body["messages"][:2] == [{"role": "system", "content": "sys"},
                                    {"role": "system", "content": "[t1] ORCHID-17"}]


def test_anthropic_shapes():
    body = parsed("sys", [rich_turn()], ("and now?", PNG), tools=[WEATHER], dialect=ANTHROPIC,
                  reserve_tokens=1024,
                  current_steps=(ToolCall("c9", "get_weather", "{}"), ToolResult("c9", "fog")))
    assert list(body) == ["model", "max_tokens", "system", "messages", "tools"]
    assert body["max_tokens"] == 1024 and body["system"] == "sys"
    assert body["tools"] == [{"name": "get_weather", "description": "Weather now.",
                              "input_schema": WEATHER.schema}]
    assert list(body["tools"][0]) == ["name", "description", "input_schema"]
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user",
                                             "assistant", "user", "assistant", "user"]
    image_block = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                               "data": PNG.base64}}
    assert messages[0] == {"role": "user", "content": [
        {"type": "text", "text": "what is this?"}, image_block]}
    assert list(image_block["source"]) == list(messages[0]["content"][1]["source"])
    assert messages[1] == {"role": "assistant", "content": [
        {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Oslo"}},
        {"type": "tool_use", "id": "call_2", "name": "get_weather", "input": {"city": "Rome"}}]}
    assert list(messages[1]["content"][0]) == ["type", "id", "name", "input"]
    assert messages[2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_2", "content": "sun"},
        {"type": "tool_result", "tool_use_id": "call_1", "content": "rain"}]}
    assert list(messages[2]["content"][0]) == ["type", "tool_use_id", "content"]
    assert messages[3]["content"][0]["input"] == {"city": "Bergen", "days": [1, 2.5, None, True]}
    assert messages[5] == {"role": "assistant", "content": "Rain in Oslo, sun in Rome."}
    assert messages[6]["content"] == [{"type": "text", "text": "and now?"}, image_block]
    assert messages[8] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "c9", "content": "fog"}]}


def test_anthropic_system_with_facts_is_two_text_blocks_and_no_tools_key():
    body = parsed("sys", [Turn("q", "a")], "q2", dialect=ANTHROPIC, reserve_tokens=5,
                  facts=[Fact("f1", "one", "t1"), Fact("f2", "two\u2028", "t2")])
    assert body["system"] == [{"type": "text", "text": "sys"},
                              {"type": "text", "text": "[t1] one\n[t2] two\u2028"}]
    assert "tools" not in body
    assert list(body) == ["model", "max_tokens", "system", "messages"]
    assert body["messages"] == [{"role": "user", "content": "q"},
                                {"role": "assistant", "content": "a"},
                                {"role": "user", "content": "q2"}]


@pytest.mark.parametrize("reserve", [0, -1, True, 1.5, "5"])
def test_anthropic_needs_a_reserve_for_max_tokens(reserve):
    options = {"reserve_tokens": reserve}
    with pytest.raises((ValueError, TypeError)):
        request_bytes("s", [], "q", dialect=ANTHROPIC, **options)
    with pytest.raises((ValueError, TypeError)):
        request_body("s", [], "q", dialect=ANTHROPIC, **options)


def test_anthropic_max_tokens_defaults_to_the_documented_reserve():
    # Issue 44: each dialect works with the defaults; Anthropic's examples send 1024.
    assert json.loads(request_bytes("s", [], "q", dialect=ANTHROPIC))["max_tokens"] == 1024
    assert "max_tokens" not in json.loads(request_bytes("s", [], "q"))


def test_anthropic_max_tokens_is_the_reserve_exactly():
    for reserve in (1, 9, 10, 4096, 10**12):
        body = json.loads(request_bytes("s", [], "q", dialect=ANTHROPIC, reserve_tokens=reserve))
        assert body["max_tokens"] == reserve


@pytest.mark.parametrize("dialect", ["openai", "anthropic", "", None, "OPENAI-CHAT"])
def test_unknown_dialects_are_refused(dialect):
    with pytest.raises(ValueError, match="dialect"):
        request_bytes("s", [], "q", dialect=dialect)


def test_images_travel_as_base64():
    for image in SAMPLE_IMAGES:
        for dialect in DIALECTS:
            plain = request_bytes("s", [], "q", dialect=dialect, reserve_tokens=1)
            with_image = request_bytes("s", [], ("q", image), dialect=dialect, reserve_tokens=1)
            assert image.base64.encode() in with_image
            assert len(image.base64) == 4 * -(-len(image.data) // 3)
            assert len(with_image) - len(plain) > len(image.base64)


# --- every encoder, both dialects, random rich requests ------------------------------------


@given(requests_())
@RICH
def test_request_bytes_is_each_encoders_dumps_of_request_body(request):
    system, history, current, options = request
    for name, encoder in ENCODERS.items():
        body = request_body(system, history, current, **options)
        payload = request_bytes(system, history, current, encoder=name, **options)
        assert payload == encoder.dumps(body)
        assert json.loads(payload) == json.loads(json.dumps(body))


@given(requests_())
@RICH
def test_the_real_httpx_and_requests_write_our_bytes(request):
    system, history, current, options = request
    obj = json.loads(request_bytes(system, history, current, **options))  # from the gson bytes
    sent = httpx.Request("POST", "http://x", json=obj).content
    assert request_bytes(system, history, current, encoder="httpx", **options) == sent
    prepared = requests.Request("POST", "http://x", json=obj).prepare().body
    assert request_bytes(system, history, current, encoder="requests", **options) == prepared


def test_line_separators_in_every_place_they_can_go():
    ls = "a\u2028b\u2029c"
    # (A call id is where Anthropic's pattern allows no separator: OpenAI's only.)
    def steps(call_id):
        return (ToolCall(call_id, "t", json.dumps({ls: ls}, ensure_ascii=False)),
                ToolResult(call_id, ls))
    kwargs = dict(tools=[Tool("t", ls, {"type": "object", "description": ls, ls: [ls]})],
                  facts=[Fact(ls, ls, ls)])
    for dialect in DIALECTS:
        separator = ls if dialect == "openai-chat" else ""
        turn = Turn((ls, PNG, ls), ls, steps("x" + separator))
        options = dict(kwargs, dialect=dialect, reserve_tokens=3, model=ls,
                       current_steps=steps("y" + separator))
        gson = request_bytes(ls, [turn], ls, **options)
        assert "\u2028".encode() not in gson and "\u2029".encode() not in gson
        obj = json.loads(gson)
        assert httpx.Request("POST", "http://x", json=obj).content == request_bytes(
            ls, [turn], ls, encoder="httpx", **options)
        assert "\u2028".encode() in request_bytes(ls, [turn], ls, encoder="httpx", **options)
        assert requests.Request("POST", "http://x", json=obj).prepare().body == request_bytes(
            ls, [turn], ls, encoder="requests", **options)


@given(requests_())
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pieces_join_for_every_suffix(request):
    """request_bytes of each suffix of the history is what its turns' bytes add up to:
    a turn's bytes do not depend on its neighbours (select relies on this)."""
    system, history, current, options = request
    for name in ENCODERS:
        sizes = [len(request_bytes(system, history[k:], current, encoder=name, **options))
                 for k in range(len(history) + 1)]
        breakdown = byte_breakdown(system, history, current, encoder=name,
                                   **{k: v for k, v in options.items() if k != "facts"})
        plain = len(request_bytes(system, history, current, encoder=name,
                                  **{k: v for k, v in options.items() if k != "facts"}))
        assert sum(breakdown["turns"]) + sum(v for k, v in breakdown.items()
                                             if k != "turns") == plain
        assert all(v >= 0 for k, v in breakdown.items() if k != "turns")
        assert [sizes[k] - sizes[k + 1] for k in range(len(history))] == breakdown["turns"]


def test_input_is_the_parsed_arguments_under_every_encoder():
    call = ToolCall("c", "f", '{"n": 1e16, "x": 1.0, "big": 123456789012345678901234567890,'
                              ' "s": "\\u00e9\\n", "neg": -0.0}')
    turn = Turn("q", "a", (call, ToolResult("c", "r")))
    for name in ENCODERS:
        body = json.loads(request_bytes("s", [turn], "q", encoder=name, dialect=ANTHROPIC,
                                        reserve_tokens=1))
        assert body["messages"][1]["content"][0]["input"] == json.loads(call.arguments)
        body = json.loads(request_bytes("s", [turn], "q", encoder=name))
        assert body["messages"][2]["tool_calls"][0]["function"]["arguments"] == call.arguments


class Text(str):
    """A str subclass, as numpy.str_, an Enum member or Markup are."""


def test_str_subclasses_are_written_as_str():
    import numpy as np

    for make in (Text, np.str_):
        question, part = make("hi"), make("look")
        turn = Turn(question, make("answer"))
        cases = [([turn], question), ([], ("x", part)), ([Turn((part, PNG), "a")], question)]
        for history, current in cases:
            for dialect in DIALECTS:
                options = dict(dialect=dialect, reserve_tokens=5)
                plain_history = [Turn(str(t.question) if isinstance(t.question, str) else
                                      tuple(str(p) if isinstance(p, str) else p
                                            for p in t.question), str(t.answer))
                                 for t in history]
                plain_current = str(current) if isinstance(current, str) else tuple(
                    str(p) if isinstance(p, str) else p for p in current)
                expected = request_bytes("s", plain_history, plain_current, **options)
                for name, encoder in ENCODERS.items():
                    got = request_bytes("s", history, current, encoder=name, **options)
                    assert got == encoder.dumps(request_body("s", history, current, **options))
                assert request_bytes("s", history, current, **options) == expected


def test_a_tool_call_subclass_is_a_call():
    class Call(ToolCall):
        pass

    steps = (Call("a", "f", "{}"), ToolResult("a", "r"))
    for dialect in DIALECTS:
        assert request_bytes("s", [], "q", current_steps=steps, dialect=dialect,
                             reserve_tokens=1) == request_bytes(
            "s", [], "q", current_steps=(ToolCall("a", "f", "{}"), steps[1]), dialect=dialect,
            reserve_tokens=1)


EMPTY_CASES = [  # (history, current): each holds one empty question, text part or answer
    ([Turn("", "a")], "now"),
    ([Turn(("look", ""), "a")], "now"),
    ([Turn(("",), "a", (ToolCall("c", "f", "{}"), ToolResult("c", "r")))], "now"),
    ([], ""),
    ([], ("", PNG)),
]


@pytest.mark.parametrize(("history", "current"), EMPTY_CASES)
def test_anthropic_writer_refuses_empty_text(history, current):
    """Anthropic refuses empty messages and empty text blocks: the writer refuses to write
    them (InvalidText, naming no text), where OpenAI takes them."""
    from ledgerlab import InvalidText

    for name in ENCODERS:
        with pytest.raises(InvalidText):
            request_bytes("s", history, current, encoder=name, dialect=ANTHROPIC,
                          reserve_tokens=5)
    with pytest.raises(InvalidText):
        request_body("s", history, current, dialect=ANTHROPIC, reserve_tokens=5)
    request_bytes("s", history, current)  # openai-chat writes them
    assert json.loads(request_bytes("s", history, current)) == request_body("s", history, current)


def test_anthropic_takes_an_image_only_question_and_an_empty_tool_result():
    steps = (ToolCall("c", "f", "{}"), ToolResult("c", ""))
    payload = request_bytes("s", [Turn((PNG,), "a", steps)], (PNG,), dialect=ANTHROPIC,
                            reserve_tokens=5, tools=[Tool("f", "d", {"type": "object"})])
    from ledgerlab import check_request

    check_request(payload, ANTHROPIC)


WHITESPACE_CASES = [
    ([Turn(" ", "a")], "now"),
    ([Turn((" \t",), "a")], "now"),
    ([Turn(("\u3000",), "a")], "now"),
    ([], " "),
]


@pytest.mark.parametrize(("history", "current"), WHITESPACE_CASES)
def test_anthropic_writer_refuses_whitespace_only_text(history, current):
    """"text content blocks must contain non-whitespace text" (Anthropic's 400)."""
    from ledgerlab import InvalidText

    with pytest.raises(InvalidText):
        request_bytes("s", history, current, dialect=ANTHROPIC, reserve_tokens=5)
