"""Issue 46, items 2-5: what a 2026 history holds, sent as each provider takes it.

2. Responses item ids (``ToolCall.item_id``, ``AssistantText.item_id``), written in
   ``openai-responses`` only, kept by the journal; the rules that pair a reasoning item with
   its item, with items stored and with ``store: false``.
3. A PDF's filename where the OpenAI dialects require one, PDFs under a token limit, an empty
   stored answer.
4. Histories that cross providers: call ids mapped to the target's pattern and length,
   images in tool results moved, errors that name the turn.
5. ``ProviderItem`` (server, hosted and MCP tool items, custom tool calls) and ``Compaction``.

Each test builds its case through the public API; the rules are refused by name on a body
edited by hand (what a trimmer or an editor leaves behind), and never built by select.
"""

from __future__ import annotations

import json
import re

import pytest

from ledgerlab import (AssistantText, Compaction, Document, Image, InvalidRequest, InvalidText,
                       InvalidTurn, Journal, ProviderItem, Reasoning, Summary, Tool,
                       ToolCall, ToolResult, Turn, byte_breakdown, check_request, request_body,
                       request_bytes, request_tokens, select, select_reference)
from ledgerlab.checks import id_tag
from test_rich_steps import png

OA, AN, OR = "openai-chat", "anthropic-messages", "openai-responses"
DIALECTS = (OA, AN, OR)
S = "SECREThs46"
PLAIN = {OA: {}, AN: {"dialect": AN, "reserve_tokens": 64}, OR: {"dialect": OR}}
# Anthropic wants a tools array beside tool calls and results (its rule tools-defined).
OPTIONS = dict(PLAIN, **{AN: dict(PLAIN[AN], tools=[Tool("f", "d", {"type": "object"})])})
# The rules this module exercises (test_provider_rules checks that every rule is somewhere).
RULES_TESTED = {"item-id-prefix", "reasoning-stored", "document-filename"}

# Ids of the form OpenAI returns: the items of one response share the 16 hex digits after
# their prefix.
KEY = "0a4d512680f81369"
RS = f"rs_{KEY}006a5364c4142481a1803037dcae023e29"
FC = f"fc_{KEY}006a5364c645f481a1a979134e6d548de1"
MSG = f"msg_{KEY}006a5364c645f481a1a979134e6d548de2"
OTHER_FC = "fc_07b27acff2b3b34800697bc13c9a408195a3a79b346cfc2714"
REASONING = {"type": "reasoning", "id": RS, "summary": [], "encrypted_content": "gAAAA=="}
THINKING = {"type": "thinking", "thinking": S, "signature": "EqQBCkYIARgC"}
IMAGE = Image("image/png", png(4, 3))
PDF_PAGES = b"%PDF-1.4\n1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R] /Count 2>>\n" \
    b"2 0 obj <</Type /Page /Parent 1 0 R>>\n3 0 obj <</Type /Page /Parent 1 0 R>>\n"


def refused(payload, dialect) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, dialect)
    assert S not in str(info.value)
    return info.value


def dumps(value) -> bytes:
    return json.dumps(value).encode()


def reasoned_round(call_id="call_1", item_id=FC, text_id=MSG, text=True):
    """A Responses round as the API returned it: reasoning, text, a call, with their ids."""
    said = (AssistantText(S + " looking", text_id),) if text else ()
    return (Reasoning(REASONING, OR), *said, ToolCall(call_id, "f", '{"a":1}', item_id),
            ToolResult(call_id, S))


# --- 2. Responses item ids --------------------------------------------------------------

def test_item_ids_are_written_in_openai_responses_only():
    turn = Turn(S, S, reasoned_round())
    items = request_body(S, [turn], S, dialect=OR)["input"]
    assert items[1] == REASONING
    assert items[2] == {"type": "message", "id": MSG, "role": "assistant",
                        "content": [{"type": "output_text", "text": S + " looking"}]}
    assert items[3]["id"] == FC and items[3]["call_id"] == "call_1"
    for dialect in (OA, AN):
        assert FC.encode() not in request_bytes(S, [turn], S, **OPTIONS[dialect])
        assert MSG.encode() not in request_bytes(S, [turn], S, **OPTIONS[dialect])
    for dialect in DIALECTS:
        check_request(select(S, [turn], S, 10**6, **OPTIONS[dialect]).payload, dialect)
    # Without ids, a request is the same bytes as before ids existed.
    bare = Turn(S, S, (ToolCall("c", "f", "{}"), ToolResult("c", S)))
    assert b'"id"' not in request_bytes(S, [bare], S, dialect=OR)


def test_item_ids_are_kept_by_the_journal(tmp_path):
    turn = Turn(S, S, reasoned_round())
    with Journal(tmp_path / "j.log") as journal:
        journal.commit("t1", turn)
    with Journal(tmp_path / "j.log") as journal:
        stored = journal.history()[0]
    assert stored == turn
    assert [step.item_id for step in stored.steps[1:3]] == [MSG, FC]
    assert MSG not in repr(stored.steps[1]) and FC not in repr(stored.steps[2])


def test_an_item_id_of_another_form_is_refused():
    with pytest.raises(InvalidTurn, match="'fc'"):
        ToolCall("c", "f", "{}", "call_1")
    with pytest.raises(InvalidTurn, match="'msg'"):
        AssistantText(S, "fc_1")
    body = request_body(S, [Turn(S, S, reasoned_round())], S, dialect=OR)
    body["input"][3]["id"] = "item_c270d5511c7129adc7475632"  # a client that made up its id
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("item-id-prefix", 3)
    assert "Expected an ID that begins with 'fc'" in error.wording


def test_a_reasoning_item_is_paired_by_the_id_of_the_item_after_it():
    turn = Turn(S, S, reasoned_round(text=False))
    body = request_body(S, [turn], S, dialect=OR)
    check_request(dumps(body), OR)
    del body["input"][2]["id"]  # the call after the reasoning item lost its id
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("reasoning-followed", 1)
    assert "without its required following item" in error.wording
    # With store false nothing is looked up by id: the position pairs them ...
    check_request(dumps(dict(body, store=False)), OR)
    # ... and the reasoning item must carry its encrypted content.
    del body["input"][1]["encrypted_content"]
    error = refused(dumps(dict(body, store=False)), OR)
    assert (error.rule, error.index) == ("reasoning-stored", 1)
    assert "Items are not persisted when `store` is set to false" in error.wording
    # Paired with an item of another response (their ids show it): refused with items stored.
    other = request_body(S, [turn], S, dialect=OR)
    other["input"][2]["id"] = OTHER_FC
    assert refused(dumps(other), OR).rule == "reasoning-followed"
    check_request(dumps(dict(other, store=False)), OR)
    with pytest.raises(InvalidTurn, match="another response"):  # select never builds it
        select(S, [Turn(S, S, reasoned_round(item_id=OTHER_FC, text=False))], S, 10**6,
               dialect=OR)


def test_select_never_sends_a_reasoning_item_without_its_paired_id():
    unpaired = Turn(S, S, (Reasoning(REASONING, OR), ToolCall("c", "f", "{}"),
                           ToolResult("c", S)))
    for function in (select, select_reference):
        with pytest.raises(InvalidTurn, match="by that item's own id") as info:
            function(S, [unpaired], S, 10**6, dialect=OR)
        assert S not in str(info.value)
    with pytest.raises(InvalidTurn, match="item_id"):
        select(S, [], S, 10**6, dialect=OR, current_steps=unpaired.steps)
    for dialect in (OA, AN):  # the other dialects leave the reasoning item out
        check_request(select(S, [unpaired], S, 10**6, **OPTIONS[dialect]).payload, dialect)


def test_with_store_false_select_pairs_reasoning_by_position_as_check_request_does():
    # The application sends store: false (zero data retention): nothing is looked up by id,
    # so a reasoning item followed by a call without its item id is sent, in a stored turn,
    # in the turn in progress and beside a round whose call carries its id.
    unpaired = (Reasoning(dict(REASONING, id=RS[:-2] + "dd"), OR), ToolCall("c", "f", "{}"),
                ToolResult("c", S))
    other = reasoned_round("c2", item_id=OTHER_FC, text=False)  # another response's call
    bare = (ToolCall("c3", "f", "{}", FC[:-2] + "bb"), ToolResult("c3", S))
    unstored = {"store": False, "include": ["reasoning.encrypted_content"]}
    history = [Turn(S, S, unpaired), Turn(S, S, other)]
    in_progress = (Reasoning(dict(REASONING, id=RS[:-2] + "cc"), OR), ToolCall("c4", "f", "{}"),
                   ToolResult("c4", S), *bare)
    for function in (select, select_reference):
        chosen = function(S, history, S, 10**6, dialect=OR, extra=unstored,
                          current_steps=in_progress)
        assert chosen.kept == 2
        check_request(chosen.payload, OR)
        assert json.loads(chosen.payload)["store"] is False
    body = request_body(S, history, S, dialect=OR, extra=unstored)
    check_request(dumps(body), OR)
    parts = byte_breakdown(S, history, S, dialect=OR, extra=unstored, current_steps=in_progress)
    assert parts["extra"] > 0 and parts["current_steps"] > 0
    # Without encrypted content a reasoning item cannot be sent with store false: refused
    # before any body is built, naming the turn, as check_request refuses the body.
    thin = Reasoning({"type": "reasoning", "id": RS, "summary": []}, OR)
    no_content = Turn(S, S, (thin, ToolCall("c", "f", "{}", FC), ToolResult("c", S)), id="t9")
    for function in (select, select_reference):
        with pytest.raises(InvalidTurn, match="encrypted_content") as info:
            function(S, [no_content], S, 10**6, dialect=OR, extra=unstored)
        assert id_tag("t9") in str(info.value) and S not in str(info.value)
    with pytest.raises(InvalidTurn, match="encrypted_content"):
        select(S, [], S, 10**6, dialect=OR, extra=unstored, current_steps=no_content.steps)
    body = request_body(S, [no_content], S, dialect=OR)  # stored items: it is sent
    assert refused(dumps(dict(body, **unstored)), OR).rule == "reasoning-stored"


def test_a_call_returned_with_a_reasoning_item_the_body_dropped_is_refused():
    # The loop in progress: two rounds of a reasoning model, each with its reasoning item.
    steps = (reasoned_round("c1", text=False)
             + (Reasoning(dict(REASONING, id=RS[:-2] + "aa"), OR),
                ToolCall("c2", "f", "{}", FC[:-2] + "aa"), ToolResult("c2", S)))
    body = request_body(S, [], S, dialect=OR, current_steps=steps)
    check_request(dumps(body), OR)
    del body["input"][4]  # the second round's reasoning item, dropped by an editor
    error = refused(dumps(body), OR)
    assert (error.rule, error.index) == ("reasoning-required", 4)
    assert "without its required 'reasoning' item" in error.wording
    check_request(dumps(dict(body, store=False)), OR)  # nothing is looked up by id
    with pytest.raises(InvalidTurn, match="without its reasoning item"):
        select(S, [], S, 10**6, dialect=OR, current_steps=steps[:3] + steps[4:])


# --- 3. documents, PDFs under a token limit, empty answers ----------------------------------

def test_a_pdf_without_a_filename_is_sent_with_the_documented_one():
    pdf = Document("application/pdf", PDF_PAGES)
    assert pdf.filename is None and pdf.sent_filename == "document.pdf"
    chat = request_body(S, [], (S, pdf))["messages"][1]["content"][1]
    assert chat["file"]["filename"] == "document.pdf"
    responses = request_body(S, [], (S, pdf), dialect=OR)["input"][0]["content"][1]
    assert responses["filename"] == "document.pdf"
    anthropic = request_body(S, [], (S, pdf), **OPTIONS[AN])["messages"][0]["content"][1]
    assert "filename" not in json.dumps(anthropic)
    named = Document("application/pdf", PDF_PAGES, "report.pdf")
    assert b"report.pdf" in request_bytes(S, [], (S, named))
    for dialect, where in ((OA, lambda body: body["messages"][1]["content"][1]["file"]),
                           (OR, lambda body: body["input"][0]["content"][1])):
        body = request_body(S, [], (S, pdf), **OPTIONS[dialect])
        check_request(dumps(body), dialect)
        del where(body)["filename"]  # what another client sends
        error = refused(dumps(body), dialect)
        assert error.rule == "document-filename" and "Missing required parameter" in \
            error.wording


def test_pdfs_count_under_a_token_limit_by_page():
    pdf = Document("application/pdf", PDF_PAGES, "a.pdf")
    assert pdf.pages == 2
    history = [Turn((S, pdf), S), Turn(S, S)]
    counts = {}
    for dialect in DIALECTS:
        with_pdf = request_tokens(S, history, S, dialect=dialect)
        without = request_tokens(S, [Turn(S, S), Turn(S, S)], S, dialect=dialect)
        counts[dialect] = with_pdf - without
        assert with_pdf.exact is False and "PDFs" in with_pdf.basis
        limit = int(with_pdf) + 64
        for function in (select, select_reference):
            limits = dict(PLAIN[dialect], reserve_tokens=64)
            chosen = function(S, history, S, 10**6, max_tokens=limit, **limits)
            assert chosen.kept == 2 and chosen.tokens == with_pdf
            fewer = function(S, history, S, 10**6, max_tokens=limit - 1, **limits)
            assert fewer.kept == 1  # the PDF's turn no longer fits
    # Two pages: each by its provider's figures (text and a page image), text parts aside.
    assert counts[AN] - counts[OA] == 2 * (4600 - 4445)
    unreadable = Document("application/pdf", b"%PDF-1.7 compressed")
    with pytest.raises(ValueError, match="page count"):
        request_tokens(S, [Turn((S, unreadable), S)], S)


def test_an_empty_answer_is_left_out_where_anthropic_refuses_it(tmp_path):
    # Anthropic documents an empty end_turn answer after tool results.
    empty = Turn(S, "", (ToolCall("toolu_1", "f", "{}"), ToolResult("toolu_1", S)))
    history = [Turn(S, S), empty, Turn(S, "  ")]
    with Journal(tmp_path / "j.log") as journal:  # committed as it came
        for number, turn in enumerate(history):
            journal.commit(f"t{number}", turn)
        history = journal.history()
    for function in (select, select_reference):
        chosen = function(S, history, S, 10**6, **OPTIONS[AN])
        assert chosen.kept == 3
        check_request(chosen.payload, AN)
    messages = json.loads(select(S, history, S, 10**6, **OPTIONS[AN]).payload)["messages"]
    assert [message["role"] for message in messages] == [
        "user", "assistant", "user", "assistant", "user", "user", "user"]
    assert all(message["content"] for message in messages)
    # Its token count leaves the answer's message out too; the other dialects send it.
    assert request_tokens(S, [empty], S, dialect=AN) < request_tokens(S, [empty], S)
    for dialect in (OA, OR):
        check_request(select(S, history, S, 10**6, **OPTIONS[dialect]).payload, dialect)


# --- 4. histories that cross providers -----------------------------------------------------

MAPPED = re.compile(r"call_[0-9a-f]{32}")


def ids_written(body: dict, dialect: str) -> list[str]:
    """Every call id and result id a body writes, in order."""
    text = json.dumps(body)
    key = {OA: r'"(?:id|tool_call_id)": "([^"]*)"', AN: r'"(?:id|tool_use_id)": "([^"]*)"',
           OR: r'"call_id": "([^"]*)"'}[dialect]
    return re.findall(key, text)


@pytest.mark.parametrize("foreign, dialect", [
    ("functions.get_weather:0", AN), ("mcp:server/tool#1", AN), ("c" * 41, OA),
    ("toolu_01A09q90qw90lq917835lq9", OA), ("call_a b", AN)])
def test_a_foreign_call_id_is_mapped_the_same_for_its_call_and_result(foreign, dialect):
    turn = Turn(S, S, (ToolCall(foreign, "f", "{}"), ToolResult(foreign, S)))
    later = Turn(S + "2", S, (ToolCall(foreign + "x", "f", "{}"), ToolResult(foreign + "x", S)))
    first = request_body(S, [turn], S, **OPTIONS[dialect])
    second = request_body(S, [turn, later], S, **OPTIONS[dialect])
    written = ids_written(first, dialect)
    takes = foreign.startswith("toolu_")
    assert written[0] == written[1] == (foreign if takes else written[0])
    assert takes or MAPPED.fullmatch(written[0])
    assert ids_written(second, dialect)[:2] == written[:2]  # stable across requests
    assert ids_written(second, dialect)[2] != written[0]
    for function in (select, select_reference):
        check_request(function(S, [turn, later], S, 10**6, **OPTIONS[dialect]).payload,
                      dialect)
    # Where the dialect takes the id, it is written as it is.
    for other in DIALECTS:
        if other != dialect:
            assert foreign in ids_written(request_body(S, [turn], S, **OPTIONS[other]), other) \
                or MAPPED.fullmatch(ids_written(request_body(S, [turn], S,
                                                             **OPTIONS[other]), other)[0])


def test_images_in_tool_results_move_to_a_user_message_in_openai_chat():
    result = ToolResult("call_1", (S + " chart", IMAGE, IMAGE))
    only_image = ToolResult("call_2", (IMAGE,))
    turn = Turn(S, S, (ToolCall("call_1", "f", "{}"), ToolCall("call_2", "g", "{}"), result,
                       only_image))
    for function in (select, select_reference):
        chosen = function(S, [turn], S, 10**6)
        check_request(chosen.payload, OA)
    messages = request_body(S, [turn], S)["messages"][2:]
    assert [message["role"] for message in messages] == [
        "assistant", "tool", "tool", "user", "assistant", "user"]
    assert messages[1]["content"] == [{"type": "text", "text": S + " chart"}]
    assert messages[2]["content"] == ""
    moved = messages[3]["content"]
    assert [part["type"] for part in moved] == ["text", "image_url", "image_url", "text",
                                                "image_url"]
    assert moved[0]["text"] == "[tool result call_1]"
    # The images still count, as the provider's rule counts them.
    assert request_tokens(S, [turn], S) > request_tokens(
        S, [Turn(S, S, (ToolCall("call_1", "f", "{}"), ToolCall("call_2", "g", "{}"),
                        ToolResult("call_1", S + " chart"), ToolResult("call_2", "")))], S)
    for dialect in (AN, OR):  # they take images in a result
        assert IMAGE.base64.encode() in request_bytes(S, [turn], S, **OPTIONS[dialect])


def anthropic_history() -> list[Turn]:
    """Turns recorded with Anthropic: toolu_ ids, thinking, a server tool's blocks, an image
    in a result, an empty answer after tool results."""
    search = (ProviderItem({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
                            "input": {"query": S}}, AN),
              ProviderItem({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
                            "content": []}, AN))
    return [
        Turn(S, S, (Reasoning(THINKING, AN), *search, AssistantText(S),
                    ToolCall("toolu_01A09q90qw90lq917835lq9", "f", "{}"),
                    ToolResult("toolu_01A09q90qw90lq917835lq9", (S, IMAGE)))),
        Turn(S, "", (ToolCall("toolu_02", "f", "{}"), ToolResult("toolu_02", S))),
        Turn(S, S, search),
    ]


def responses_history() -> list[Turn]:
    """Turns recorded with the Responses API: item ids, reasoning, a web search, a custom
    tool call and its output, and a Kimi-style call id."""
    web = ProviderItem({"type": "web_search_call", "id": "ws_1", "status": "completed",
                        "action": {"type": "search", "query": S}}, OR)
    custom = (ProviderItem({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_9",
                            "name": "grammar", "input": S}, OR),
              ProviderItem({"type": "custom_tool_call_output", "call_id": "call_9",
                            "output": S}, OR))
    return [
        Turn(S, S, reasoned_round("functions.lookup:0")),
        Turn(S, S, (Reasoning(dict(REASONING, id="rs_2"), OR), web, *custom)),
        Turn(S, S, (Reasoning(dict(REASONING, id="rs_3"), OR), web)),
    ]


@pytest.mark.parametrize("recorded", [anthropic_history, responses_history])
def test_a_history_recorded_with_one_provider_is_sent_in_every_dialect(recorded):
    history = recorded()
    for dialect in DIALECTS:
        for function in (select, select_reference):
            chosen = function(S, history, S, 10**6, **OPTIONS[dialect])
            assert chosen.kept == len(history)
            check_request(chosen.payload, dialect)
        body = request_body(S, history, S, **OPTIONS[dialect])
        for turn in history:
            for step in turn.steps:
                if isinstance(step, (Reasoning, ProviderItem)):
                    sent = json.dumps(step.as_dict) in json.dumps(body)
                    assert sent == (step.dialect == dialect)  # its own dialect's only


def test_an_error_about_a_stored_turn_names_the_turn():
    history = [Turn(S, S, id="t1"), Turn(" ", S, id="t2")]
    for function in (select, select_reference):
        with pytest.raises(InvalidText) as info:
            function(S, history, S, 10**6, **OPTIONS[AN])
        assert id_tag("t2") in str(info.value) and S not in str(info.value)


# --- 5. provider items and compaction items ---------------------------------------------------

def test_provider_items_are_sent_unchanged_in_their_dialect_and_left_out_of_others():
    web = {"type": "web_search_call", "id": "ws_1", "status": "completed", "zeta": [1.5, None]}
    item = ProviderItem(json.dumps(web), OR)
    assert item.as_dict == web and list(item.as_dict) == list(web) and item.kind == \
        "web_search_call"
    turn = Turn(S, S, (Reasoning(REASONING, OR), item))  # a hosted tool, then the answer
    items = request_body(S, [turn], S, dialect=OR)["input"]
    assert items[1:4] == [REASONING, web, {"role": "assistant", "content": S}]
    check_request(select(S, [turn], S, 10**6, dialect=OR).payload, OR)
    for dialect in (OA, AN):
        body = request_body(S, [turn], S, **OPTIONS[dialect])
        assert "ws_1" not in json.dumps(body) and "rs_" not in json.dumps(body)
    with pytest.raises(InvalidTurn):
        ProviderItem({"type": "function_call"}, OR)  # ledgerlab's own step: a ToolCall
    with pytest.raises(InvalidTurn, match="OpenAI Chat"):
        ProviderItem(web, OA)
    with pytest.raises(InvalidTurn, match="no call or provider item after it"):
        Turn(S, S, (item, Reasoning(THINKING, AN)))
    assert "ws_1" not in repr(item) and "web_search_call" in repr(item)


def test_provider_items_are_kept_by_the_journal(tmp_path):
    history = anthropic_history() + responses_history()
    with Journal(tmp_path / "j.log") as journal:
        for number, turn in enumerate(history):
            journal.commit(f"t{number}", turn)
    with Journal(tmp_path / "j.log") as journal:
        assert journal.history() == history
        assert [step.item for turn in journal.history() for step in turn.steps
                if isinstance(step, ProviderItem)] == [
            step.item for turn in history for step in turn.steps
            if isinstance(step, ProviderItem)]


OPENAI_COMPACTION = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAcmp=="}
ANTHROPIC_COMPACTION = {"type": "compaction", "content": S + " summary",
                        "encrypted_content": "opaque", "signature": "sig"}


@pytest.mark.parametrize("dialect, item", [(OR, OPENAI_COMPACTION), (AN, ANTHROPIC_COMPACTION)])
def test_a_compaction_is_sent_in_place_of_the_turns_it_covers(dialect, item, tmp_path):
    with Journal(tmp_path / "j.log") as journal:
        for number in range(4):  # turns larger than the item: it stands in for two
            journal.commit(f"t{number}", S * 20 + str(number), S * 20)
        stored = journal.add_compaction("c1", item, dialect=dialect, covers=["t0", "t1"])
        assert journal.summaries() == [stored] and stored.as_dict == item
        history, ids = journal.history(), journal.ids()
    with Journal(tmp_path / "j.log") as journal:  # kept losslessly
        assert journal.summaries() == [stored]
    options = dict(OPTIONS[dialect], ids=ids, summaries=[stored])
    everything = len(request_bytes(S, history, S, **OPTIONS[dialect]))
    two = len(request_bytes(S, history[2:], S, summaries=[stored], **OPTIONS[dialect]))
    for budget in (everything, two, two - 1):
        chosen = select(S, history, S, budget, **options)
        assert chosen == select_reference(S, history, S, budget, **options)
        check_request(chosen.payload, dialect)
        sent = json.dumps(item) in json.dumps(json.loads(chosen.payload))
        assert sent == (chosen.summary_ids == ("c1",))
        assert not sent or chosen.kept <= 2  # never beside a turn it covers
    assert select(S, history, S, two, **options).summary_ids == ("c1",)
    body = json.loads(select(S, history, S, two, **options).payload)
    if dialect == OR:
        assert body["input"][0] == item  # first: the API drops what comes before it
    else:
        assert body["messages"][0] == {"role": "user", "content": [item]}
    # Left out of another dialect's request, and counted as dropped.
    other = select(S, history, S, two, **dict(OPTIONS[OA], ids=ids, summaries=[stored]))
    assert other.summary_ids == () and other.summaries_dropped == 1
    # Forgetting a turn it covers deletes it.
    with Journal(tmp_path / "j.log") as journal:
        journal.forget("t1")
        assert journal.summaries() == []


def test_a_compaction_is_checked_when_made():
    for item, dialect in [({"type": "compaction"}, OR), ({"type": "compaction", "content": ""}, AN),
                          ({"type": "summary", "content": "x"}, AN), (OPENAI_COMPACTION, OA)]:
        with pytest.raises(InvalidTurn):
            Compaction("c", item, dialect, ("t1",))
    failed = Compaction("c", {"type": "compaction", "content": None}, AN, ("t1",))
    assert "content" in failed.as_dict  # a failed compaction: round-tripped as null
    shown = repr(Compaction("c1", ANTHROPIC_COMPACTION, AN, ("t1",)))
    assert S not in shown and "sig" not in shown


def test_summaries_and_compactions_together_follow_the_summaries_rule():
    history = [Turn(S + str(number), S, id=f"t{number}") for number in range(5)]
    memory = [Summary("s1", S + " early", ("t0",)),
              Compaction("c1", OPENAI_COMPACTION, OR, ("t1", "t2"))]
    options = dict(dialect=OR, summaries=memory)
    sizes = [len(request_bytes(S, history[k:], S, dialect=OR)) for k in range(6)]
    for budget in range(min(sizes), max(sizes) + 40, 7):
        try:
            chosen = select(S, history, S, budget, **options)
        except ValueError:
            continue
        assert chosen == select_reference(S, history, S, budget, **options)
        check_request(chosen.payload, OR)


def test_a_compaction_is_inspected_by_size_and_counted_by_byte_breakdown(tmp_path, cli):
    log = tmp_path / "c.log"
    with Journal(log) as journal:
        journal.commit("t0", S, S)
        journal.commit("t1", S, S)
        journal.add_compaction("c1", ANTHROPIC_COMPACTION, dialect=AN, covers=["t0"])
        stored = journal.summaries()
    code, out, err = cli("inspect", str(log))
    assert code == 0 and S not in out and "sig" not in out
    assert f"{len(stored[0].item.encode()):>6}  1 turn" in out
    for dialect, item in ((AN, ANTHROPIC_COMPACTION), (OR, OPENAI_COMPACTION)):
        memory = [Compaction("c1", item, dialect, ("t0",)), Summary("s1", S, ("t0",))]
        history = [Turn(S, S)]
        parts = byte_breakdown(S, history, S, summaries=memory, **PLAIN[dialect])
        total = len(request_bytes(S, history, S, summaries=memory, **PLAIN[dialect]))
        assert parts["envelope"] + parts["system"] + sum(parts["turns"]) + parts["question"] \
            + parts["summaries"] == total
        assert parts["summaries"] == total - len(request_bytes(S, history, S,
                                                               **PLAIN[dialect]))
