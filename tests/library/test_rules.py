"""check_request: each provider rule fires on a minimal body built by hand, with the right
``.rule`` and ``.index``, never showing the request's text; every body request_bytes
writes passes.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from ledgerlab import ENCODERS, InvalidRequest, check_request, request_bytes
from ledgerlab.dialects import RULES
from strategies import RICH, requests_

S = "SECRETrq4"  # in every text and id of the bodies below; never in an error
OA, AN = "openai-chat", "anthropic-messages"


def oa(*messages, **extra) -> bytes:
    return json.dumps({"model": S, "messages": list(messages), **extra}).encode()


def an(*messages, **extra) -> bytes:
    """An Anthropic body; with a tool the blocks name, as it wants beside tool blocks."""
    body = {"model": S, "max_tokens": 100, "system": S, "messages": list(messages),
            "tools": [{"name": "f", "description": S, "input_schema": {"type": "object"}}]}
    body.update(extra)
    return json.dumps({k: v for k, v in body.items() if v is not None}).encode()


def system():
    return {"role": "system", "content": S}


def user(content=S):
    return {"role": "user", "content": content}


def assistant(content=S):
    return {"role": "assistant", "content": content}


def calls(*call_ids):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for call_id in call_ids]}


def tool(call_id):
    return {"role": "tool", "tool_call_id": call_id, "content": S}


def uses(*call_ids, text=False):
    blocks = [{"type": "tool_use", "id": call_id, "name": "f", "input": {S: S}}
              for call_id in call_ids]
    return {"role": "assistant", "content": ([{"type": "text", "text": S}] if text else [])
            + blocks}


def results(*call_ids, text_before=False, text_after=False):
    blocks = [{"type": "tool_result", "tool_use_id": call_id, "content": S}
              for call_id in call_ids]
    text = [{"type": "text", "text": S}]
    return {"role": "user", "content": (text if text_before else []) + blocks
            + (text if text_after else [])}


A, B = S + "-a", S + "-b"

# (dialect, body, rule, index)
BROKEN = [
    # --- not a body at all
    (OA, b"", "body", None),
    (OA, b"{", "body", None),
    (OA, b"\xff\xfe\x00", "body", None),
    (OA, ("[" * 200_000 + "]" * 200_000).encode(), "body", None),
    (OA, ('{"model":"m","messages":' + "[" * 200_000 + "]" * 200_000 + "}").encode(), "body",
     None),
    (OA, b"[]", "body", None),
    (OA, json.dumps({"messages": [user()]}).encode(), "body", None),
    (OA, json.dumps({"model": 4, "messages": [user()]}).encode(), "body", None),
    (OA, oa(), "body", None),
    (OA, json.dumps({"model": S, "messages": {"0": user()}}).encode(), "body", None),
    (OA, oa(user(), S), "body", None),
    (AN, an(), "body", None),
    (AN, b"null", "body", None),
    # --- roles
    (OA, oa(system(), {"role": "bot", "content": S}), "role", 1),
    (OA, oa(system(), {"content": S}), "role", 1),
    (AN, an(user(), {"role": "system", "content": S}), "role", 1),
    (AN, an(user(), assistant(), {"role": "tool", "tool_call_id": A, "content": S}), "role", 2),
    (AN, an({"role": "user", "content": [{"type": "tool_use", "id": A, "name": "f",
                                          "input": {}}]}), "role", 0),
    # --- OpenAI: every tool message answers a call of the message before
    (OA, oa(system(), user(), tool(A)), "tool-after-call", 2),  # an orphan result
    (OA, oa(system(), tool(A)), "tool-after-call", 1),
    (OA, oa(system(), user(), calls(A), tool(B)), "tool-after-call", 3),
    (OA, oa(system(), user(), calls(A), tool(A), tool(A)), "tool-after-call", 4),  # duplicate
    (OA, oa(system(), user(), calls(A), tool(A), user(), tool(A)), "tool-after-call", 5),
    (OA, oa(system(), user(), calls(A), tool(A), assistant(), tool(A)), "tool-after-call", 5),
    (OA, oa(system(), user(), calls(A), tool(A), calls(B), tool(A), tool(B)),
     "tool-after-call", 5),  # answers a call of an earlier round
    (OA, oa(system(), user(), calls(A), {"role": "tool", "content": S}), "tool-call-id", 3),
    # --- OpenAI: every call answered by the next messages
    (OA, oa(system(), user(), calls(A), user()), "calls-answered", 2),
    (OA, oa(system(), user(), calls(A)), "calls-answered", 2),  # unanswered at the end
    (OA, oa(system(), user(), calls(A, B), tool(B)), "calls-answered", 2),
    (OA, oa(system(), user(), calls(A, B), tool(A), assistant()), "calls-answered", 2),
    (OA, oa(system(), user(), calls(A, B), tool(A), calls(S)), "calls-answered", 2),
    (OA, oa(system(), user(), calls(A, A), tool(A)), "call-id-unique", 2),  # a repeated id
    (OA, oa(user(), {"role": "assistant", "content": None, "tool_calls": [{"type": "function"}]}),
     "call-id", 1),
    (OA, oa(system(), user(), calls(A), system(), tool(A)), "calls-answered", 2),
    # --- Anthropic: the first message is the user's
    (AN, an(assistant()), "first-user", 0),
    (AN, an(assistant(), user()), "first-user", 0),
    (AN, an(uses(A), results(A)), "first-user", 0),
    # --- Anthropic: a result follows its use, in the next message
    (AN, an(results(A)), "result-follows-use", 0),  # an orphan result
    (AN, an(user(), assistant(), results(A)), "result-follows-use", 2),
    (AN, an(user(), uses(A), results(B)), "result-follows-use", 2),
    (AN, an(user(), uses(A), results(A, A)), "result-follows-use", 2),  # duplicate
    (AN, an(user(), uses(A), results(A), assistant(), results(A)), "result-follows-use", 4),
    (AN, an(user(), uses(A), results(A), uses(B), results(A, B)), "result-follows-use", 4),
    (AN, an(user(), uses(A), {"role": "assistant", "content": [
        {"type": "tool_result", "tool_use_id": A, "content": S}]}), "result-follows-use", 1),
    # --- Anthropic: every use answered in the next message
    (AN, an(user(), uses(A), user()), "use-answered", 1),
    (AN, an(user(), uses(A)), "use-answered", 1),  # unanswered at the end
    (AN, an(user(), uses(A, B), results(B)), "use-answered", 1),
    (AN, an(user(), assistant(), user(), uses(A, B), results(A), assistant()), "use-answered", 3),
    (AN, an(user(), uses(A, A), results(A)), "call-id-unique", 1),  # a repeated id
    # --- Anthropic: results first in their message
    (AN, an(user(), uses(A), results(A, text_before=True)), "results-first", 2),
    (AN, an(user(), uses(A, B), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": A, "content": S}, {"type": "text", "text": S},
        {"type": "tool_result", "tool_use_id": B, "content": S}]}), "results-first", 2),
    # consecutive messages of one role are combined (as Anthropic combines them): a text
    # message then a results message is one user turn whose text comes first
    (AN, an(user(), uses(A), user(), results(A)), "results-first", 2),
    (AN, an(user(), uses(A), user([{"type": "text", "text": S}]), results(A)),
     "results-first", 2),
    # --- Anthropic: no empty message but a final assistant one, no empty text block
    (AN, an(user(), assistant(""), user()), "non-empty", 1),
    (AN, an(user(""), assistant()), "non-empty", 0),
    (AN, an(user([]), assistant()), "non-empty", 0),
    (AN, an(user([{"type": "text", "text": ""}]), assistant()), "non-empty", 0),
    (AN, an(user(), uses(A), results(A), assistant([{"type": "text", "text": ""}])),
     "non-empty", 3),
    # --- Anthropic: max_tokens
    (AN, an(user(), max_tokens=None), "max-tokens", None),
    (AN, an(user(), max_tokens=0), "max-tokens", None),
    (AN, an(user(), max_tokens=-5), "max-tokens", None),
    (AN, an(user(), max_tokens="100"), "max-tokens", None),
    (AN, an(user(), max_tokens=True), "max-tokens", None),
    (AN, an(user(), max_tokens=100.0), "max-tokens", None),
    # --- tools
    (OA, oa(user(), tools={"type": "function"}), "tools", None),
    (OA, oa(user(), tools=[{"type": "function"}]), "tools", None),
    (OA, oa(user(), tools=[{"type": "function", "function": {"description": S}}]), "tools",
     None),
    (OA, oa(user(), tools=[{"function": {"name": S}}]), "tools", None),
    (OA, oa(user(), tools=[{"name": S, "input_schema": {}}]), "tools", None),  # Anthropic's shape
    (AN, an(user(), tools=[{"type": "function", "function": {"name": S, "parameters": {}}}]),
     "tools", None),  # OpenAI's shape
    (AN, an(user(), tools=[{"name": S}]), "tools", None),
    (AN, an(user(), tools=[{"input_schema": {}}]), "tools", None),
    (AN, an(user(), tools=[S]), "tools", None),
    (AN, an(user(), tools=S), "tools", None),
]


def label(case):
    dialect, body, rule, index = case
    return f"{dialect[:2]}-{rule}-{index}-{len(body)}"


@pytest.mark.parametrize(("dialect", "payload", "rule", "index"), BROKEN,
                         ids=[label(case) for case in BROKEN])
def test_each_rule_fires_with_its_key_and_index(dialect, payload, rule, index):
    for given_payload in (payload, payload.decode("utf-8", "replace")):
        with pytest.raises(InvalidRequest) as info:
            check_request(given_payload, dialect)
        error = info.value
        assert (error.rule, error.index) == (rule, index)
        assert isinstance(error, ValueError)
        assert RULES[rule] in str(error)
        for text in (str(error), repr(error), *map(str, error.args), str(vars(error))):
            assert S not in text


def test_every_rule_key_is_exercised():  # (the rules added later: test_provider_rules)
    assert {case[2] for case in BROKEN} <= set(RULES)
    assert {case[2] for case in BROKEN if case[0] == OA} >= {
        "body", "role", "tool-after-call", "calls-answered", "tools"}
    assert {case[2] for case in BROKEN if case[0] == AN} >= {
        "body", "role", "first-user", "result-follows-use", "use-answered", "results-first",
        "max-tokens", "tools", "non-empty"}


def test_the_messages_quote_the_providers():
    with pytest.raises(InvalidRequest, match="must be a response to a preceding message with "
                                             "'tool_calls'"):
        check_request(oa(user(), tool(A)))
    with pytest.raises(InvalidRequest, match="must be followed by tool messages responding to "
                                             "each 'tool_call_id'"):
        check_request(oa(user(), calls(A), user()))
    with pytest.raises(InvalidRequest, match="tool_result blocks must come FIRST"):
        check_request(an(user(), uses(A), results(A, text_before=True)), AN)
    with pytest.raises(InvalidRequest, match="immediately follow"):
        check_request(an(user(), assistant(), results(A)), AN)


VALID = [
    (OA, oa(user())),
    (OA, oa(system(), system(), user(), assistant(), user())),
    (OA, oa({"role": "developer", "content": S}, user())),
    (OA, oa(system(), user(), calls(A, B), tool(B), tool(A), assistant(), user())),
    (OA, oa(system(), user(), calls(A), tool(A), calls(B), tool(B))),  # a loop in progress
    (OA, oa(user(), tools=[{"type": "function", "function": {"name": S}}])),
    (AN, an(user())),
    (AN, an(user(), assistant())),  # a prefilled final assistant message
    (AN, an(user(), uses(A, B), results(B, A), assistant(), user())),
    (AN, an(user(), uses(A, text=True), results(A, text_after=True))),  # text after results
    (AN, an(user(), uses(A), results(A), uses(B), results(B))),
    # consecutive messages of one role are one turn: uses split over two messages, and their
    # results over two, still pair up
    (AN, an(user(), uses(A), uses(B), results(A), results(B))),
    (AN, an(user(), user(), assistant(), assistant(), user())),
    (AN, an(user(), tools=[{"name": S, "description": S, "input_schema": {"type": "object"}}])),
    (AN, an(user(), system=[{"type": "text", "text": S}])),
]


@pytest.mark.parametrize(("dialect", "payload"), VALID,
                         ids=[f"{dialect[:2]}-{number}" for number, (dialect, _) in
                              enumerate(VALID)])
def test_valid_bodies_pass(dialect, payload):
    check_request(payload, dialect)
    check_request(payload.decode(), dialect)


@pytest.mark.parametrize("dialect", [None, "openai", "anthropic", ""])
def test_unknown_dialect(dialect):
    with pytest.raises(ValueError, match="dialect"):
        check_request(oa(user()), dialect)


# --- malformed pieces are the request's fault, never a crash ---------------------------------

MALFORMED = [
    (OA, oa(user(), {"role": "tool", "tool_call_id": [A], "content": S})),
    (OA, oa(user(), {"role": "tool", "tool_call_id": {"id": A}, "content": S})),
    (OA, oa(user(), {"role": "assistant", "content": None, "tool_calls": 5})),
    (OA, oa(user(), {"role": "assistant", "content": None, "tool_calls": True})),
    (OA, oa(user(), {"role": "assistant", "content": None, "tool_calls": {"id": A}})),
    (OA, oa(user(), {"role": "assistant", "content": None, "tool_calls": [{"id": [A]}]})),
    (OA, oa(user(), tools=[1])),
    (OA, oa(user(), tools=[None])),
    (OA, oa(user(), tools=[S])),
    (OA, oa({"role": ["user"], "content": S})),
    (AN, an(user(), uses(A), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": [A], "content": S}]})),
    (AN, an(user(), {"role": "assistant", "content": [
        {"type": "tool_use", "id": [A], "name": "f", "input": {}}]})),
    (AN, an(user(), {"role": "assistant", "content": [
        {"type": "tool_use", "id": {"x": 1}, "name": "f", "input": {}}]}, results(A))),
    (AN, an({"role": ["user"], "content": S})),
    (AN, an({"role": "user", "content": [S, 1, None]})),
    (AN, an({"role": "user", "content": [{"type": ["text"]}]})),
]


@pytest.mark.parametrize(("dialect", "payload"), MALFORMED,
                         ids=[f"{dialect[:2]}-{number}" for number, (dialect, _) in
                              enumerate(MALFORMED)])
def test_malformed_bodies_raise_invalid_request_not_a_crash(dialect, payload):
    """A body whose ids or tool_calls are not what the API takes is refused by a rule; a
    TypeError or AttributeError from the checker would not name one."""
    try:
        check_request(payload, dialect)
    except InvalidRequest as error:
        assert error.rule in RULES and S not in str(error)


@pytest.mark.parametrize("payload", [
    b'{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":NaN}',
    b'{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":Infinity}',
    b'{"model":"m","messages":[{"role":"user","content":"x"}],"top_p":-Infinity}',
    json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]}).encode("utf-16"),
    json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]}).encode(
        "utf-32-le"),
], ids=["NaN", "Infinity", "-Infinity", "utf-16", "utf-32"])
def test_bodies_that_are_not_json_on_the_wire_are_refused(payload):
    """NaN and Infinity are not JSON (RFC 8259), and a JSON body exchanged between systems is
    UTF-8: Python's json.loads accepts both, the providers' parsers do not."""
    with pytest.raises(InvalidRequest) as info:
        check_request(payload)
    assert info.value.rule == "body"


@pytest.mark.parametrize("payload", [None, 5, [b"{}"], {"model": "m"}])
def test_payload_must_be_bytes_or_text(payload):
    with pytest.raises((TypeError, InvalidRequest)):
        check_request(payload)


# --- what request_bytes writes passes, in both dialects, under every encoder ----------------


@given(requests_())
@RICH
def test_every_body_request_bytes_writes_passes(request):
    system_text, history, current, options = request
    for name in ENCODERS:
        payload = request_bytes(system_text, history, current, encoder=name, **options)
        check_request(payload, options["dialect"])
        check_request(payload.decode("utf-8"), options["dialect"])
        other = AN if options["dialect"] == OA else OA
        if options["dialect"] == OA:
            with pytest.raises(InvalidRequest):  # the system message is no Anthropic message
                check_request(payload, other)


@given(requests_())
@RICH
def test_cutting_a_rich_body_between_messages_is_caught(request):
    """Drop any one message of a valid body that holds a tool round: what is left breaks a
    rule whenever the dropped message was a call or a result (the trimmed-history bug)."""
    system_text, history, current, options = request
    dialect = options["dialect"]
    body = json.loads(request_bytes(system_text, history, current, **options))
    key = "input" if dialect == "openai-responses" else "messages"
    for index, message in enumerate(body[key]):
        content = message.get("content")
        pairing = "tool_calls" in message or message.get("role") == "tool" or message.get(
            "type") in ("function_call", "function_call_output") or (
            isinstance(content, list) and any(
                block.get("type") in ("tool_use", "tool_result") for block in content))
        if not pairing:
            continue
        cut = dict(body, **{key: body[key][:index] + body[key][index + 1:]})
        with pytest.raises(InvalidRequest) as info:
            check_request(json.dumps(cut), dialect)
        assert info.value.rule in ("tool-after-call", "calls-answered", "result-follows-use",
                                   "use-answered", "results-first", "first-user", "body",
                                   "call-has-output", "output-has-call")


@pytest.mark.parametrize("payload", [
    an(user(), assistant(""), user()),  # an empty answer before the last message
    an(user(""), assistant()),
    an(user([]), assistant()),
    an(user([{"type": "text", "text": ""}]), assistant()),
], ids=["empty-answer", "empty-question", "no-blocks", "empty-text-block"])
def test_anthropic_refuses_empty_content(payload):
    """"all messages must have non-empty content except for the optional final assistant
    message" (Anthropic's 400), and text blocks must be non-empty."""
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, AN)
    assert info.value.rule in RULES


def test_a_final_empty_assistant_message_is_allowed():
    check_request(an(user(), assistant("")), AN)  # a prefill may be empty


@pytest.mark.parametrize("payload", [
    an(user(" "), assistant()),
    an(user(), assistant("\n\t"), user()),
    an(user([{"type": "text", "text": " "}]), assistant()),
    an(user([{"type": "text", "text": "\n"}, {"type": "text", "text": "  "}]), assistant()),
], ids=["space-question", "whitespace-answer", "space-block", "whitespace-blocks"])
def test_anthropic_refuses_whitespace_only_text(payload):
    """"text content blocks must contain non-whitespace text" (Anthropic's 400)."""
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, AN)
    assert info.value.rule in RULES


def test_a_whitespace_block_beside_real_text_is_accepted():
    check_request(an(user([{"type": "text", "text": " "}, {"type": "text", "text": S}])), AN)


@pytest.mark.parametrize(("dialect", "payload", "index"), [
    (OA, oa(system(), {"role": "user"}), 1),
    (OA, oa(system(), {"role": "user", "content": 5}), 1),
    (OA, oa(system(), {"role": "user", "content": None}), 1),
    (OA, oa(system(), user(), {"role": "assistant", "content": None}), 2),  # no tool_calls
    (OA, oa(system(), user(), {"role": "assistant", "content": None, "tool_calls": []}, user()),
     2),  # OpenAI: tool_calls, when given, has at least one call
    (AN, an({"role": "user"}), 0),
    (AN, an({"role": "user", "content": None}), 0),
    (AN, an(user(), {"role": "assistant", "content": {"type": "text", "text": S}}), 1),
], ids=["oa-missing", "oa-int", "oa-null-user", "oa-null-answer", "oa-no-calls", "an-missing",
        "an-null", "an-object"])
def test_content_must_be_text_or_blocks(dialect, payload, index):
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, dialect)
    assert info.value.index == index and S not in str(info.value)
