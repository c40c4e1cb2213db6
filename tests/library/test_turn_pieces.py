"""A turn's bytes are written once per encoder and dialect and kept on the turn
(RequestWriter.turn): what is kept must be what writing it anew gives, for that writer only,
and a turn a dialect refuses must be refused on every request, never kept."""

from __future__ import annotations

import pytest

from ledgerlab import DIALECTS, ENCODERS, InvalidText, ToolCall, ToolResult, Turn
from ledgerlab import request_bytes as written

SYSTEM, CURRENT = "Answer from the tools.", "And now? 🙂"
TOOL_TURN = Turn("Where is it?", "In Oslo.", steps=(
    ToolCall("call_1", "lookup", '{"q": "where"}'), ToolResult("call_1", "Oslo")))
PLAIN = Turn('接口 "是什么"', "Java\n接口")


def request_bytes(system, history, current, **options):
    return written(system, history, current, reserve_tokens=64, **options)


def anew(turn: Turn) -> Turn:
    return Turn(turn.question, turn.answer, steps=turn.steps)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("encoder", ENCODERS)
def test_a_kept_piece_is_the_bytes_a_new_turn_gives(encoder, dialect):
    history = [PLAIN, TOOL_TURN]
    first = request_bytes(SYSTEM, history, CURRENT, encoder=encoder, dialect=dialect)
    again = request_bytes(SYSTEM, history, CURRENT, encoder=encoder, dialect=dialect)
    fresh = request_bytes(SYSTEM, [anew(t) for t in history], CURRENT, encoder=encoder,
                          dialect=dialect)
    assert first == again == fresh


def test_each_writer_keeps_its_own_piece():
    turn = anew(TOOL_TURN)
    written = {(encoder, dialect): request_bytes(SYSTEM, [turn], CURRENT, encoder=encoder,
                                                 dialect=dialect)
               for encoder in ENCODERS for dialect in DIALECTS}
    for (encoder, dialect), body in written.items():  # in another order, after every other
        assert request_bytes(SYSTEM, [turn], CURRENT, encoder=encoder, dialect=dialect) == body
        assert body == request_bytes(SYSTEM, [anew(turn)], CURRENT, encoder=encoder,
                                     dialect=dialect)
    assert len(set(written.values())) > len(DIALECTS)  # the writers do differ


def test_a_turn_a_dialect_refuses_is_refused_every_time():
    blank = Turn(" ", "fine")  # Anthropic refuses whitespace-only text; OpenAI takes it
    request_bytes(SYSTEM, [blank], CURRENT, dialect="openai-chat")
    for _ in range(2):
        with pytest.raises(InvalidText):
            request_bytes(SYSTEM, [blank], CURRENT, dialect="anthropic-messages")
    assert request_bytes(SYSTEM, [blank], CURRENT, dialect="openai-chat") == request_bytes(
        SYSTEM, [anew(blank)], CURRENT, dialect="openai-chat")


def test_the_kept_pieces_are_not_part_of_a_turns_value():
    turn = anew(TOOL_TURN)
    request_bytes(SYSTEM, [turn], CURRENT)
    assert turn == anew(TOOL_TURN) and hash(turn) == hash(anew(TOOL_TURN))
    assert "pieces" not in repr(turn)
