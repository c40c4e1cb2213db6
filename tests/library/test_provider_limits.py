"""Issue 36, section 1: the three limits that need a large body to reach, each built through
the public API at the limit and one past it. ``check_request`` refuses the larger by the
rule's name; ``select`` never builds it (it drops the oldest turn, or refuses the input it
cannot send, with both numbers)."""

from __future__ import annotations

import json
import struct
import zlib

import pytest

from ledgerlab import (LIMITS, Image, InvalidRequest, ProviderLimitError, ToolCall, ToolResult,
                       Turn, check_request, request_bytes, select)

OA, AN = "openai-chat", "anthropic-messages"
S = "SECRETlim"


def refused(payload: bytes, dialect: str) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as info:
        check_request(payload, dialect)
    assert S not in str(info.value)
    return info.value


def padded_png(size: int) -> bytes:
    """A valid 1x1 PNG of ``size`` bytes: the rest is an ancillary chunk a reader skips."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    head = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0\0")))
    tail = chunk(b"IEND", b"")
    filler = size - len(head) - len(tail) - 12
    return head + chunk(b"teXt", b"x" * filler) + tail


def one_round(calls: int) -> tuple:
    ids = [f"call_{number}" for number in range(calls)]
    return (*(ToolCall(call_id, "f", "{}") for call_id in ids),
            *(ToolResult(call_id, S) for call_id in ids))


def test_openai_takes_128_calls_in_one_message_and_refuses_129():
    most = LIMITS[OA]["calls_per_message"].value
    assert most == 128
    check_request(request_bytes(S, [], S, current_steps=one_round(most)), OA)
    with pytest.raises(ProviderLimitError) as info:  # select and the writer refuse to build it
        select(S, [], S, 10**6, current_steps=one_round(most + 1))
    assert (info.value.limit, info.value.value, info.value.allowed) == (
        "calls_per_message", most + 1, most)
    with pytest.raises(ProviderLimitError):
        request_bytes(S, [Turn(S, S, one_round(most + 1))], S)
    # As another client could send it: one more call and its result in the 128-call body.
    body = json.loads(request_bytes(S, [], S, current_steps=one_round(most)))
    calls = body["messages"][-most - 1]["tool_calls"]
    calls.append(dict(calls[0], id="call_x"))
    body["messages"].append({"role": "tool", "tool_call_id": "call_x", "content": S})
    body = json.dumps(body).encode()
    error = refused(body, OA)
    assert error.rule == "too-many-calls"
    assert "129, at most 128" in str(error)


@pytest.mark.slow
def test_openai_refuses_more_than_50_mb_of_images_and_select_drops_a_turn():
    most = LIMITS[OA]["image_bytes"].value
    assert most == 50_000_000
    image = Image("image/png", padded_png(10_000_000))
    turns = [Turn((S, image), S) for _ in range(5)]  # 50,000,000 bytes of images: allowed
    check_request(request_bytes(S, turns, S), OA)
    over = request_bytes(S, [*turns, Turn((S, Image("image/png", padded_png(100))), S)], S)
    assert refused(over, OA).rule == "image-bytes"
    chosen = select(S, [*turns, Turn((S, Image("image/png", padded_png(100))), S)], S, 10**9)
    assert chosen.kept == 5  # the oldest turn is dropped as one over the budget would be
    check_request(chosen.payload, OA)


@pytest.mark.slow
def test_anthropic_refuses_more_than_100000_messages_and_select_drops_a_turn():
    most = LIMITS[AN]["messages"].value
    assert most == 100_000
    options = {"dialect": AN, "reserve_tokens": 64}
    turns = [Turn(S, S)] * ((most - 1) // 2)  # 99,998 messages, and the question: 99,999
    check_request(request_bytes(S, turns, S, **options), AN)
    over = turns + [Turn(S, S)]  # 100,001 messages
    error = refused(request_bytes(S, over, S, **options), AN)
    assert error.rule == "too-many-messages"
    assert "100001, at most 100000" in str(error)
    chosen = select(S, over, S, 10**7, **options)
    assert chosen.kept == len(turns)
    check_request(chosen.payload, AN)
