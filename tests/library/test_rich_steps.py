"""Issue 36, section 2: the richer steps (AssistantText, ToolResult with parts and is_error,
Reasoning, Document), each dialect's shape for them, the openai-responses dialect, the rules
check_request knows for them (each refused by name on a body built through the public API,
and never built by select), and the journal keeping every one of them losslessly."""

from __future__ import annotations

import base64
import hashlib
import json
import struct

import pytest

from ledgerlab import (DIALECTS, ENCODERS, AssistantText, Document, Fact, Image,
                       InvalidRequest, InvalidText, InvalidTurn, Journal, Reasoning, Tool,
                       ToolCall, ToolResult, Turn, byte_breakdown, check_request, encode_record,
                       request_body, request_bytes, select)
from ledgerlab.journal import decode_record, encode_turn
from test_journal_rich import gson_reads

OA, AN, OR = "openai-chat", "anthropic-messages", "openai-responses"
S = "SECRETrs5"
OPTIONS = {OA: {}, AN: {"dialect": AN, "reserve_tokens": 64}, OR: {"dialect": OR}}
TOOLS = [Tool("f", S, {"type": "object"})]
# The rules this module exercises (test_provider_rules checks that every rule is somewhere).
RULES_TESTED = {"call-has-output", "output-has-call", "reasoning-followed", "reasoning-required",
                "reasoning-shape", "thinking-first", "result-content", "is-error", "document"}


def png(width=3, height=2):
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
            + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00" + b"\0" * 4)


IMAGE = Image("image/png", png())
PDF = Document("application/pdf", b"%PDF-1.7 " + S.encode(), "report.pdf")
THINKING = {"type": "thinking", "thinking": S, "signature": "EqQBCkYIARgCIkB+sig/=="}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
REASONING = {"type": "reasoning", "id": "rs_68b0c2", "summary": [{"type": "summary_text",
                                                                   "text": S}],
             "encrypted_content": "gAAAAABoX2fQ+enc/rypted==", "zeta": 1.5, "alpha": [None]}


def thinking(item=THINKING):
    return Reasoning(item, AN)


def reasoning(item=REASONING):
    return Reasoning(item, OR)


def rich_round(call_id="call_1", *, with_reasoning=True, result=None):
    """A round: reasoning of both dialects, text beside the call, the call, its result; the
    text and the call carry their Responses item ids (the reasoning item is paired with the
    item after it by that item's id)."""
    before = (thinking(), reasoning()) if with_reasoning else ()
    return (*before, AssistantText(S + " let me look", "msg_68b0c2"),
            ToolCall(call_id, "f", '{"a":1}', "fc_" + call_id),
            result or ToolResult(call_id, S))


def rich_turn(call_id="call_1", **more):
    return Turn((S, PDF, IMAGE), S + " answer", rich_round(call_id, **more))


def refused(payload, dialect) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, dialect)
    assert S not in str(info.value)
    return info.value


def dumps(value) -> bytes:
    return json.dumps(value).encode()


def conversation(body: dict, dialect: str) -> list:
    return body["input" if dialect == OR else "messages"]


# --- the steps themselves ------------------------------------------------------------------
def test_a_round_may_open_with_reasoning_then_text():
    turn = rich_turn()
    assert len(turn.rounds) == 1 and turn.rounds[0][0][0].id == "call_1"
    two = Turn(S, S, rich_round("a") + rich_round("b", with_reasoning=False))
    assert len(two.rounds) == 2


@pytest.mark.parametrize("steps, words", [
    ((AssistantText(S), thinking(), ToolCall("a", "f", "{}"), ToolResult("a", S)),
     "reasoning comes first"),
    ((AssistantText(S), AssistantText(S), ToolCall("a", "f", "{}"), ToolResult("a", S)),
     "reasoning comes first"),
    ((thinking(),), "reasoning or text but no call"),
    ((ToolCall("a", "f", "{}"), ToolResult("a", S), AssistantText(S)),
     "reasoning or text but no call"),
    ((ToolCall("a", "f", "{}"), thinking(), ToolResult("a", S)), "has answered its 1 call"),
    ((reasoning(), reasoning(dict(REASONING, id="rs_2")), ToolCall("a", "f", "{}"),
      ToolResult("a", S)), "not followed by its own item"),
])
def test_steps_that_are_not_whole_rounds_are_refused(steps, words):
    with pytest.raises(InvalidTurn, match=words) as info:
        Turn(S, S, steps)
    assert S not in str(info.value)


def test_the_old_messages_stay_for_the_old_cases():
    with pytest.raises(InvalidTurn, match="round 1 leaves 1 call"):
        Turn(S, S, (ToolCall("a", "f", "{}"),))
    with pytest.raises(InvalidTurn, match="not an unanswered call of its round"):
        Turn(S, S, (ToolResult("a", S),))


def test_reasoning_is_kept_exactly_and_checked_per_dialect():
    kept = reasoning()
    assert list(kept.as_dict) == list(REASONING) and kept.as_dict == REASONING
    assert Reasoning(json.dumps(REASONING), OR) == kept  # JSON text or a dict: the same
    assert thinking(REDACTED).kind == "redacted_thinking"
    for item, dialect in [(REASONING, AN), (THINKING, OR), (dict(THINKING, signature=""), AN),
                          ({"type": "redacted_thinking"}, AN), (dict(REASONING, id=None), OR),
                          (dict(REASONING, summary="x"), OR)]:
        with pytest.raises(InvalidTurn):
            Reasoning(item, dialect)
    with pytest.raises(InvalidTurn, match="OpenAI Chat has no reasoning items"):
        Reasoning(REASONING, OA)


def test_reprs_show_sizes_and_tags_only():
    shown = " ".join(map(repr, [rich_turn(), PDF, thinking(), reasoning(), AssistantText(S),
                                ToolResult("c", (S, IMAGE), is_error=True)]))
    assert S not in shown and "report" not in shown and "EqQB" not in shown
    assert "is_error" in shown and "reasoning=2" in shown and "documents=1" in shown


def test_a_document_is_a_pdf():
    with pytest.raises(InvalidTurn):
        Document("application/pdf", b"not a pdf")
    with pytest.raises(InvalidTurn):
        Document("text/plain", b"%PDF-")
    with pytest.raises(TypeError):
        Document("application/pdf", "%PDF-")
    with pytest.raises(InvalidTurn):
        Document("application/pdf", b"%PDF-", " ")
    assert PDF.base64 == base64.b64encode(PDF.data).decode()


@pytest.mark.parametrize("content", [(), (S, 3), (PDF,), b"x"])
def test_a_result_is_text_or_text_and_image_parts(content):
    with pytest.raises((InvalidText, InvalidTurn)):
        ToolResult("c", content)


def test_turn_least_bytes_stays_below_every_encoding():
    turn = rich_turn(result=ToolResult("call_1", (S, IMAGE), is_error=True))
    for dialect in DIALECTS:
        if dialect == OA:
            turn = rich_turn()
        for encoder in ENCODERS:
            whole = request_bytes(S, [turn], S, encoder=encoder, **OPTIONS[dialect])
            bare = request_bytes(S, [], S, encoder=encoder, **OPTIONS[dialect])
            assert turn._least_bytes < len(whole) - len(bare)


# --- each dialect's shape ------------------------------------------------------------------
def test_anthropic_round_is_thinking_text_calls_then_results():
    result = ToolResult("call_1", (S, IMAGE), is_error=True)
    body = request_body(S, [rich_turn(result=result)], S, **OPTIONS[AN])
    assistant, user = body["messages"][1:3]
    assert [block["type"] for block in assistant["content"]] == ["thinking", "text", "tool_use"]
    assert assistant["content"][0] == THINKING
    assert user["content"][0]["is_error"] is True
    assert [part["type"] for part in user["content"][0]["content"]] == ["text", "image"]
    plain = request_body(S, [Turn(S, S, (ToolCall("c", "f", "{}"), ToolResult("c", S)))], S,
                         **OPTIONS[AN])
    assert "is_error" not in plain["messages"][2]["content"][0]  # old bytes unchanged
    assert body["messages"][0]["content"][1] == {"type": "document", "source": {
        "type": "base64", "media_type": "application/pdf", "data": PDF.base64}}


def test_openai_chat_sends_the_text_beside_calls_and_leaves_reasoning_out():
    body = request_body(S, [rich_turn(result=ToolResult("call_1", S, is_error=True))], S)
    assistant, tool = body["messages"][2:4]
    assert assistant["content"] == S + " let me look" and "reasoning" not in json.dumps(body)
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": S}  # no error field
    assert body["messages"][1]["content"][1] == {"type": "file", "file": {
        "filename": "report.pdf", "file_data": "data:application/pdf;base64," + PDF.base64}}
    # An image in a result: moved to a user message after the round's tool messages
    # (test_history_shapes.py holds the rule).
    moved = request_body(S, [rich_turn(result=ToolResult("call_1", (S, IMAGE)))], S)
    assert [message["role"] for message in moved["messages"][2:6]] == [
        "assistant", "tool", "user", "assistant"]


def test_openai_responses_items():
    result = ToolResult("call_1", (S, IMAGE))
    body = request_body(S, [rich_turn(result=result)], S, facts=[Fact("f1", S, "t1")],
                        tools=TOOLS + [Tool("g", S, {"type": "object"})], **OPTIONS[OR])
    assert list(body) == ["model", "instructions", "input", "tools"]
    assert body["instructions"] == S
    items = body["input"]
    assert items[0] == {"role": "developer", "content": f"[t1] {S}"}
    assert [part["type"] for part in items[1]["content"]] == ["input_text", "input_file",
                                                              "input_image"]
    assert items[2] == REASONING and list(items[2]) == list(REASONING)
    assert items[3] == {"type": "message", "id": "msg_68b0c2", "role": "assistant",
                        "content": [{"type": "output_text", "text": S + " let me look"}]}
    assert items[4] == {"type": "function_call", "id": "fc_call_1", "call_id": "call_1",
                        "name": "f", "arguments": '{"a":1}'}
    assert items[5]["type"] == "function_call_output" and items[5]["call_id"] == "call_1"
    assert [part["type"] for part in items[5]["output"]] == ["input_text", "input_image"]
    assert items[6] == {"role": "assistant", "content": S + " answer"}
    assert items[7] == {"role": "user", "content": S}
    assert body["tools"][0] == {"type": "function", "name": "f", "description": S,
                                "parameters": {"type": "object"}}
    assert list(request_body(" ", [], S, **OPTIONS[OR])) == ["model", "input"]  # blank: out


def every_step_history(dialect):
    """Turns with every kind of step (an image in a result where the dialect takes one), and
    the rounds of the turn in progress; test_oracle.py selects from them too."""
    result = ToolResult("call_2", S if dialect == OA else (S + "\u2028", IMAGE), is_error=True)
    history = [Turn(S, S), rich_turn("call_1"), rich_turn("call_2", result=result),
               Turn((PDF,), S, rich_round("call_3", with_reasoning=False))]
    return history, rich_round("call_4")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_writer_bytes_are_the_encoders_dump_of_request_body(dialect, encoder):
    history, current = every_step_history(dialect)
    for facts in ((), [Fact("f1", S, "t1")]):
        options = dict(OPTIONS[dialect], encoder=encoder, tools=TOOLS, facts=facts,
                       current_steps=current)
        payload = request_bytes(S, history, (S, PDF), **options)
        assert payload == ENCODERS[encoder].dumps(request_body(S, history, (S, PDF), **options))
        check_request(payload, dialect)
        parts = byte_breakdown(S, history, (S, PDF), **options)
        assert parts["envelope"] + parts["system"] + sum(parts["turns"]) + parts["question"] \
            + parts["tools"] + parts["current_steps"] + parts.get("facts", 0) == len(payload)
        chosen = select(S, history, (S, PDF), len(payload), **options)
        assert chosen.payload == payload and chosen.kept == len(history)


# --- the rules, each refused by name ---------------------------------------------------------
def responses_body(**changes) -> dict:
    return request_body(S, [rich_turn()], S, tools=TOOLS, **OPTIONS[OR]) | changes


def test_a_function_call_needs_its_output():
    body = responses_body()
    del body["input"][4]  # the function_call_output
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("call-has-output", 3)
    assert error.wording.startswith("No tool output found for function call")


def test_an_output_needs_its_function_call():
    body = responses_body()
    del body["input"][2:4]  # the round's text and its call: the reasoning is followed by the output
    assert refused(dumps(body), OR).rule == "reasoning-followed"
    body = request_body(S, [rich_turn(with_reasoning=False)], S, **OPTIONS[OR])
    del body["input"][2]  # the call
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("output-has-call", 2)
    assert "No tool call found for function call output with call_id" in error.wording


def test_a_reasoning_item_needs_its_following_item():
    body = responses_body()
    body["input"][1:2] = [body["input"][1], dict(REASONING, id="rs_other")]
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("reasoning-followed", 1)
    assert "of type 'reasoning' was provided without its required following item" in \
        error.wording
    body = request_body(S, [], S, **OPTIONS[OR])
    body["input"].append(REASONING)
    assert refused(dumps(body), OR).rule == "reasoning-followed"


def test_a_round_of_the_loop_that_lost_its_reasoning_item_is_refused():
    steps = rich_round("call_1") + (ToolCall("call_2", "f", "{}"), ToolResult("call_2", S))
    body = request_body(S, [], S, current_steps=steps, **OPTIONS[OR])
    check_request(dumps(body), OR)  # as built: the second round never had one
    body["input"][5]["id"] = "fc_68b0c3"  # a call as the API returned it, its reasoning gone
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("reasoning-required", 5)
    assert "of type 'function_call' was provided without its required 'reasoning'" in \
        error.wording
    del body["input"][1]  # no round keeps one: a body alone cannot tell
    check_request(dumps(body), OR)


def test_reasoning_must_keep_its_fields():
    body = responses_body()
    del body["input"][1]["id"]
    assert refused(dumps(body), OR).rule == "reasoning-shape"
    body = request_body(S, [rich_turn()], S, **OPTIONS[AN])
    del body["messages"][1]["content"][0]["signature"]
    assert (refused(dumps(body), AN).rule, refused(dumps(body), AN).index) == (
        "reasoning-shape", 1)


THINKING_ON = {"type": "enabled", "budget_tokens": 2048}


def test_a_thinking_tool_loop_must_keep_its_thinking_block():
    kept = request_body(S, [], S, current_steps=rich_round(), tools=TOOLS, **OPTIONS[AN])
    check_request(dumps(kept | {"thinking": THINKING_ON}), AN)
    trimmed = json.loads(json.dumps(kept))
    del trimmed["messages"][1]["content"][0]  # a trimmer that drops the thinking block
    check_request(dumps(trimmed), AN)  # thinking off: no such rule
    error = refused(dumps(trimmed | {"thinking": THINKING_ON}), AN)
    assert (error.rule, error.index) == ("thinking-first", 1)
    assert "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in error.wording
    # The loop ended (the answer was given): the rule is about a loop in progress.
    done = request_body(S, [rich_turn(with_reasoning=False)], S, tools=TOOLS, **OPTIONS[AN])
    check_request(dumps(done | {"thinking": THINKING_ON}), AN)
    redacted = request_body(S, [], S, current_steps=(thinking(REDACTED),) + rich_round()[2:],
                            tools=TOOLS, **OPTIONS[AN])
    check_request(dumps(redacted | {"thinking": {"type": "adaptive"}}), AN)


def test_result_content_of_another_type_is_refused():
    body = request_body(S, [rich_turn(result=ToolResult("call_1", (S, IMAGE)))], S,
                        **OPTIONS[AN])
    body["messages"][2]["content"][0]["content"].append({"type": "tool_use"})
    assert refused(dumps(body), AN).rule == "result-content"
    body = responses_body()
    body["input"][4]["output"] = [{"type": "output_text", "text": S}]
    assert refused(dumps(body), OR).rule == "result-content"
    body = request_body(S, [rich_turn()], S)
    body["messages"][4]["content"] = [{"type": "image_url", "image_url": {"url": "x"}}]
    assert refused(dumps(body), OA).rule == "block-type"  # a tool message is text only


def test_is_error_is_a_boolean():
    body = request_body(S, [rich_turn(result=ToolResult("call_1", S, True))], S, **OPTIONS[AN])
    body["messages"][2]["content"][0]["is_error"] = "true"
    error = refused(dumps(body), AN)
    assert (error.rule, error.index) == ("is-error", 2)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_document_is_a_base64_pdf(dialect):
    body = request_body(S, [], (S, PDF), **OPTIONS[dialect])
    part = conversation(body, dialect)[-1]["content"][1]
    check_request(dumps(body), dialect)
    if dialect == OA:
        part["file"]["file_data"] = "data:text/plain;base64,eA=="
    elif dialect == AN:
        part["source"]["media_type"] = "text/plain"
    else:
        part["file_data"] = "https://example.com/x.pdf"
    assert refused(dumps(body), dialect).rule == "document"


def test_an_empty_text_part_in_an_anthropic_result_is_refused_and_never_built():
    turn = rich_turn(result=ToolResult("call_1", (" ", IMAGE)))
    with pytest.raises(InvalidText):
        request_bytes(S, [turn], S, **OPTIONS[AN])
    body = request_body(S, [rich_turn(result=ToolResult("call_1", (S, IMAGE)))], S,
                        **OPTIONS[AN])
    body["messages"][2]["content"][0]["content"][0]["text"] = " "
    assert refused(dumps(body), AN).rule == "non-empty"


# --- the journal ---------------------------------------------------------------------------
JOURNAL_TURN = Turn((S, PDF, Document("application/pdf", b"%PDF-"), IMAGE), S, (
    thinking(), thinking(REDACTED), reasoning(), AssistantText(S), ToolCall("c1", "f", "{}"),
    ToolCall("c2", "f", '{"k":[1,2.5,null]}'), ToolResult("c2", (S, IMAGE), is_error=True),
    ToolResult("c1", S), ToolCall("c3", "f", "{}"), ToolResult("c3", "", True)))


def test_the_journal_keeps_every_new_step_losslessly(log):
    with Journal(log) as journal:
        journal.commit("plain", S, S)
        journal.commit("rich", JOURNAL_TURN.question, JOURNAL_TURN.answer,
                       steps=JOURNAL_TURN.steps)
    assert log.read_bytes().startswith(encode_record("plain", S, S))  # the reference's bytes
    with Journal(log) as journal:
        back = journal.find("rich")
    assert back == JOURNAL_TURN
    for given, stored in zip(JOURNAL_TURN.steps, back.steps):
        if isinstance(given, Reasoning):  # same keys, same order, same values
            assert stored.item == given.item and list(stored.as_dict) == list(given.as_dict)
    assert back.steps[2].as_dict["encrypted_content"] == REASONING["encrypted_content"]
    assert back.steps[0].as_dict["signature"] == THINKING["signature"]
    assert back.documents[0].filename == "report.pdf" and back.documents[1].filename is None
    line = encode_turn("rich", JOURNAL_TURN)
    assert decode_record(line.rstrip(b"\n")).turn == JOURNAL_TURN


@pytest.mark.parametrize("old, new, problem", [
    ('"type":"reasoning"', '"type":"thought"', "is not a {type: call}"),  # an unknown type
    ('"dialect":"openai-responses"', '"dialect":"openai-chat"', "is invalid"),  # no reasoning
    ('"type":"error"', '"type":"error","is_error":"1"', "is not a {type, call_id, content}"),
])
def test_a_bad_rich_step_is_a_corrupt_line(old, new, problem):
    turn = Turn(S, S, (reasoning(), ToolCall("c", "f", "{}"), ToolResult("c", S, True)))
    payload = base64.b64decode(encode_turn("r", turn).split(b" ")[0])
    assert old.encode() in payload
    bad = payload.replace(old.encode(), new.encode())
    line = base64.b64encode(bad) + b" " + hashlib.sha256(bad).hexdigest().encode()
    with pytest.raises(ValueError) as info:
        decode_record(line)
    assert problem in str(info.value) and S not in str(info.value)


@pytest.mark.slow  # compiles and runs Java
def test_the_java_reference_reads_a_journal_of_new_steps_as_text_and_answer(log, tmp_path):
    """What the reference does with the new steps, by real gson: it reads id, question and
    answer (the question's text, the final answer) and ignores the rest; it never rewrites."""
    with Journal(log) as journal:
        journal.commit("two", "第二问", "第二答")
        journal.commit("rich", ("look", PDF, "here"), "final", steps=JOURNAL_TURN.steps)
    before = log.read_bytes()
    assert gson_reads(log, tmp_path) == "two\t第二问\t第二答\nrich\tlook\\nhere\tfinal\n"
    assert log.read_bytes() == before
