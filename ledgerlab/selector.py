"""The selector: project a request from the ledger under a byte budget.

The rule: system instructions and the current question are mandatory. Start
with every stored turn and remove the oldest complete turn until the serialized
request fits. The kept turns are always a contiguous suffix of the history (a
large recent turn is never skipped to pack an older short one), the history is
never changed, and if the mandatory part alone does not fit, BudgetError.

``select_reference`` is the article's readable loop; ``select`` gives the same
bytes but walks back from the newest turn, encoding only what it keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .wire import (
    DEFAULT_MODEL,
    ENCODERS,
    Encoder,
    Turn,
    check_int,
    check_text,
    get_encoder,
    request_bytes,
)


class BudgetError(ValueError):
    """The mandatory input (system message + current question) exceeds the budget."""

    def __init__(self, mandatory_bytes: int, budget: int) -> None:
        self.mandatory_bytes = mandatory_bytes
        self.budget = budget
        super().__init__(
            f"the mandatory input (system message + current question) needs "
            f"{mandatory_bytes} bytes but the budget is {budget} bytes"
        )


@dataclass(frozen=True, repr=False)
class Selection:
    """The request a selection produced: the exact bytes it measured."""

    payload: bytes
    kept: int
    dropped: int
    budget: int

    @property
    def size(self) -> int:
        return len(self.payload)

    def __repr__(self) -> str:
        return (
            f"Selection(kept={self.kept}, dropped={self.dropped}, "
            f"bytes={self.size}, budget={self.budget})"
        )


def select_reference(
    system: str,
    history: Sequence[Turn],
    current: str,
    max_bytes: int,
    *,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
) -> Selection:
    """The article's loop: drop the oldest whole turn and re-serialize until it fits.

    Quadratic in the number of stored turns; kept for teaching and as the oracle
    that ``select`` is tested against.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    turns = list(history)
    for start in range(len(turns) + 1):
        payload = request_bytes(system, turns[start:], current, model=model, encoder=encoder)
        if len(payload) <= budget:
            return Selection(payload, len(turns) - start, start, budget)
    # Even with no turn left the request does not fit: the last payload is mandatory input.
    raise BudgetError(len(payload), budget)


def select(
    system: str,
    history: Sequence[Turn],
    current: str,
    max_bytes: int,
    *,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
) -> Selection:
    """The whole-turn rule, exact and fast: same result as ``select_reference``.

    The request is ``head + turn pieces + tail``, where each turn's piece is its
    two messages with their leading separators. Walking back from the newest
    turn and adding pieces while they fit costs time in proportion to the
    request returned, not to the stored history.

    So it checks only the turns it encodes: the newest turns, down to the first
    one that does not fit. An older item that is not a Turn is never looked at
    and is counted in ``dropped``, where ``select_reference`` (which encodes
    every candidate) raises TypeError. Checking it would mean scanning the whole
    history on every call.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    if not isinstance(history, Sequence):
        history = tuple(history)  # walking back needs the end: materialize an iterator
    writer = _writer(encoder)
    head, tail = writer.envelope(model, system, current)
    size = len(head) + len(tail)
    if size > budget:
        raise BudgetError(size, budget)
    pieces = []
    turn_bytes = writer.turn
    for turn in reversed(history):
        piece = turn_bytes(turn)
        size += len(piece)
        if size > budget:
            break
        pieces.append(piece)
    pieces.reverse()
    return Selection(b"".join([head, *pieces, tail]), len(pieces),
                     len(history) - len(pieces), budget)


def byte_breakdown(
    system: str,
    history: Sequence[Turn],
    current: str,
    *,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
) -> dict[str, object]:
    """Where the bytes of the full request go: envelope, system, each turn, question.

    ``envelope`` is the model field, brackets and separators outside the messages;
    each turn's size includes the separators that join it. The parts add up to
    ``len(request_bytes(...))``.
    """
    writer = _writer(encoder)
    head, tail = writer.envelope(model, system, current)
    system_bytes = len(writer.message("system", system))
    question_bytes = len(writer.message("user", current))
    return {
        "envelope": len(head) + len(tail) - system_bytes - question_bytes,
        "system": system_bytes,
        "turns": [len(writer.turn(turn)) for turn in history],
        "question": question_bytes,
    }


class _RequestWriter:
    """One encoder's punctuation, computed once, and the pieces of a request.

    ``request_bytes`` serializes a whole dict with json.dumps; this writes the same
    bytes piece by piece so that ``select`` encodes only the turns it keeps.
    """

    def __init__(self, encoder: Encoder) -> None:
        q, key, item = encoder.quote, encoder.key_separator, encoder.item_separator
        self.encoder = encoder
        self.prefix = {role: "{" + q("role") + key + q(role) + item + q("content") + key
                       for role in ("system", "user", "assistant")}
        self.model_open = "{" + q("model") + key
        self.messages_open = item + q("messages") + key + "["
        self.item = item
        # A turn: ,{"role":"user","content":<q>},{"role":"assistant","content":<a>}
        self.turn_open = item + self.prefix["user"]
        self.turn_middle = "}" + item + self.prefix["assistant"]
        self.basic_quote = encoder.basic_quote
        self.escapes = encoder.escape_line_separators

    def message(self, role: str, content: str) -> bytes:
        return (self.prefix[role] + self.encoder.quote(content) + "}").encode("utf-8")

    def envelope(self, model: str, system: str, current: str) -> tuple[bytes, bytes]:
        """The bytes before the first turn and after the last one."""
        model = self.encoder.quote(check_text(model, "model"))
        head = (self.model_open + model + self.messages_open).encode("utf-8")
        head += self.message("system", check_text(system, "system"))
        tail = self.item.encode("utf-8") + self.message(
            "user", check_text(current, "current question")) + b"]}"
        return head, tail

    def turn(self, turn: Turn) -> bytes:
        """A turn's two messages, each with the separator before it (the hot path)."""
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        quote = self.basic_quote
        text = f"{self.turn_open}{quote(turn.question)}{self.turn_middle}{quote(turn.answer)}}}"
        if self.escapes and ("\u2028" in text or "\u2029" in text):
            text = self.encoder.escape(text)  # the punctuation holds no U+2028/U+2029
        return text.encode("utf-8")


_WRITERS = {name: _RequestWriter(encoder) for name, encoder in ENCODERS.items()}


def _writer(encoder: str) -> _RequestWriter:
    get_encoder(encoder)  # the clear error for an unknown name
    return _WRITERS[encoder]
