"""The wire: exact request bytes under each client's encoding."""

import json

import httpx
import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerlab import ENCODERS, InvalidText, Turn, request_bytes
from ledgerlab.course.fixtures import BOUNDARY_HISTORY, BOUNDARY_QUESTION, BOUNDARY_SYSTEM
from ledgerlab import messages, utf16_units
from strategies import escaped_facts, escaped_texts, escaped_turns
from tiers import examples

TRICKY = 'q"uote\\back\nnl\ttab\x00nul\x1fus\x7fdel\u2028ls\u2029ps<&>\'=继续🙂'

MANDATORY_GSON = (
    '{"model":"agnes-3.0-flash","messages":[{"role":"system","content":"只根据已知信息回答。"},'
    '{"role":"user","content":"继续🙂"}]}'
).encode("utf-8")


def body(system, turns, current, model="agnes-3.0-flash"):
    return {"model": model, "messages": messages(system, turns, current)}


def test_mandatory_request_is_140_bytes_but_114_utf16_units():
    payload = request_bytes(BOUNDARY_SYSTEM, [], BOUNDARY_QUESTION)
    assert payload == MANDATORY_GSON
    text = payload.decode("utf-8")
    assert len(payload) == 140
    assert utf16_units(text) == 114  # Java's String.length()
    assert len(text) == 113  # Python's len(): code points


def test_gson_escapes_like_the_java_reference():
    payload = request_bytes("s", [], TRICKY, model="m")
    expected = (
        '{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":'
        '"q\\"uote\\\\back\\nnl\\ttab\\u0000nul\\u001fus\x7fdel\\u2028ls\\u2029ps<&>\'=继续🙂"}]}'
    ).encode("utf-8")
    assert payload == expected


def test_httpx_preset_is_what_httpx_sends():
    turns = [*BOUNDARY_HISTORY, Turn(TRICKY, TRICKY)]
    sent = httpx.Request("POST", "http://localhost/", json=body(BOUNDARY_SYSTEM, turns, TRICKY))
    assert request_bytes(BOUNDARY_SYSTEM, turns, TRICKY, encoder="httpx") == sent.content


def test_requests_preset_is_what_requests_sends():
    turns = [*BOUNDARY_HISTORY, Turn(TRICKY, TRICKY)]
    prepared = requests.Request(
        "POST", "http://localhost/", json=body(BOUNDARY_SYSTEM, turns, TRICKY)
    ).prepare()
    assert request_bytes(BOUNDARY_SYSTEM, turns, TRICKY, encoder="requests") == prepared.body


def test_gson_differs_from_httpx_only_in_line_separators():
    plain = request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION)
    assert plain == request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION,
                                  encoder="httpx")
    gson = request_bytes("s", [], "a\u2028b\u2029c")
    raw = request_bytes("s", [], "a\u2028b\u2029c", encoder="httpx")
    assert b"\\u2028" in gson and b"\\u2029" in gson
    assert "\u2028".encode() in raw and "\u2029".encode() in raw
    assert len(gson) - len(raw) == 6  # each escape is 6 bytes, each raw character 3


def test_requests_preset_sends_ascii_escapes_and_spaces():
    payload = request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION,
                            encoder="requests")
    assert payload.isascii()
    assert b'"model": "agnes-3.0-flash", "messages": [' in payload
    assert b"\\u53ea" in payload  # 只
    assert b"\\ud83d\\ude42" in payload  # 🙂 as a UTF-16 surrogate pair
    assert len(payload) == 399
    assert json.loads(payload) == json.loads(request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY,
                                                           BOUNDARY_QUESTION))


@pytest.mark.parametrize("name", sorted(ENCODERS))
def test_every_preset_parses_back_to_the_same_request(name):
    turns = [Turn(TRICKY, "a"), Turn("", "")]
    payload = request_bytes("sys", turns, TRICKY, encoder=name)
    assert json.loads(payload.decode("utf-8")) == body("sys", turns, TRICKY)


def test_keys_in_order_model_before_messages_role_before_content():
    payload = request_bytes("s", [Turn("q", "a")], "c")
    assert payload.startswith(b'{"model":')
    assert payload.count(b'{"role":') == 4
    assert b'"role":"assistant","content":"a"' in payload


def test_unknown_encoder_is_a_clear_error():
    with pytest.raises(ValueError, match="known encoders: gson, httpx, requests"):
        request_bytes("s", [], "c", encoder="orjson")


@pytest.mark.parametrize("bad", [None, b"bytes", 3, ["x"]])
def test_non_str_text_is_refused(bad):
    with pytest.raises(InvalidText, match="must be str"):
        request_bytes(bad, [], "c")
    with pytest.raises(InvalidText, match="must be str"):
        Turn("q", bad)


def test_lone_surrogate_is_refused_without_echoing_the_text():
    with pytest.raises(InvalidText) as caught:
        Turn("SECRET-MARKER \ud800", "a")
    assert "SECRET-MARKER" not in str(caught.value)
    assert "index 14" in str(caught.value)


def test_turn_is_immutable_and_its_repr_shows_sizes_only():
    turn = Turn("SECRET-MARKER question", "answer")
    with pytest.raises(AttributeError):
        turn.question = "changed"
    assert "SECRET" not in repr(turn)
    assert repr(turn) == "Turn(question=22 bytes, answer=6 bytes)"


def test_history_items_must_be_turns():
    with pytest.raises(TypeError, match="must be Turn"):
        request_bytes("s", [("q", "a")], "c")


# --- Issue 26: one piece writer writes every request; json.dumps stays the oracle ------------
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(system=escaped_texts, turns=escaped_turns, current=escaped_texts,
       facts=escaped_facts, encoder=st.sampled_from(sorted(ENCODERS)),
       model=st.sampled_from(["agnes-3.0-flash", "m\u2028\"é"]))
def test_the_pieces_join_into_what_json_dumps_writes(system, turns, current, facts, encoder,
                                                      model):
    whole = {"model": model, "messages": messages(system, turns, current, facts)}
    assert request_bytes(system, turns, current, model=model, encoder=encoder,
                         facts=facts) == ENCODERS[encoder].dumps(whole)


@pytest.mark.parametrize("args, error", [
    ((None, [("q", "a")], None), InvalidText),  # the system message is checked first
    (("s", [("q", "a")], None), TypeError),  # then the turns, then the current question
    (("s", [], None), InvalidText),
])
def test_bad_arguments_are_reported_in_the_same_order_as_before(args, error):
    with pytest.raises(error):
        request_bytes(*args)
    with pytest.raises(TypeError, match="facts must be Fact"):
        request_bytes("s", [("q", "a")], "c", facts=["not a fact"])  # facts before turns
