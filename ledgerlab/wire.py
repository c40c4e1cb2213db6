"""The wire: the exact bytes of a chat request.

A request is ``{"model": ..., "messages": [...]}``: the system message, then a
``user`` and an ``assistant`` message for each turn, then the current question as
a final ``user`` message. Pinned facts, if any, are one more ``system`` message
right after the first (one ``[origin] text`` line per fact). Budgets are counted
in the UTF-8 bytes of that body, so this module is the single place that decides
what those bytes are: ``RequestWriter`` writes them piece by piece, ``request_bytes``
joins all the pieces, and ``select`` measures and joins only the pieces it keeps.

Real clients serialize the same request differently, so an encoder is named:

- ``"gson"`` (the default): the Java reference's ``JsonElement.toString()``:
  compact, raw UTF-8, with U+2028 and U+2029 escaped.
- ``"httpx"``: httpx 0.28+ ``json=``: compact, raw UTF-8, U+2028/U+2029 left raw.
- ``"requests"``: requests' ``json=``: ``json.dumps`` defaults, ASCII escapes
  and ``", "`` / ``": "`` separators.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from json.encoder import encode_basestring, encode_basestring_ascii

DEFAULT_MODEL = "agnes-3.0-flash"


class InvalidText(ValueError):
    """A text field is not a str, or not valid Unicode (a lone surrogate).

    The message names the field and its length, never its content.
    """


def check_text(value: object, field: str) -> str:
    """Return ``value`` if it is a str that UTF-8 can encode, else raise InvalidText."""
    if not isinstance(value, str):
        raise InvalidText(f"{field} must be str, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        # Java would silently write '?' here; we refuse instead.
        raise InvalidText(
            f"{field} is not valid Unicode: lone surrogate at index {error.start} "
            f"of {len(value)} code points"
        ) from None
    return value


def utf16_units(text: str) -> int:
    """What Java's ``String.length()`` reports: UTF-16 code units, not bytes."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def check_int(value: object, name: str, *, minimum: int) -> int:
    """Return ``value`` if it is an int (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


@dataclass(frozen=True)
class Turn:
    """One confirmed exchange: the user's question and the assistant's answer."""

    question: str
    answer: str

    def __post_init__(self) -> None:
        check_text(self.question, "question")
        check_text(self.answer, "answer")

    def __repr__(self) -> str:
        # Conversation text is private: show sizes only.
        return (
            f"Turn(question={len(self.question.encode())} bytes, "
            f"answer={len(self.answer.encode())} bytes)"
        )


# Made once per process. An unkeyed hash of an id is reversed by hashing guesses
# (t17, t4242, 2024-05-17 in about 2 s); keyed, a tag found in a log, an error or a
# notebook output names nothing outside the process that printed it.
_TAG_KEY = os.urandom(32)


def id_tag(record_id: str) -> str:
    """A short name for an id that does not reveal it: the same id has the same tag
    within one process (errors, reprs and output can be matched up), and another in
    the next (a tag cannot be checked against guessed ids offline)."""
    digest = hmac.new(_TAG_KEY, record_id.encode("utf-8"), hashlib.sha256).hexdigest()
    return "id#" + digest[:12]


def check_id(record_id: object, field: str = "id") -> str:
    """An id is a non-empty str that UTF-8 can encode."""
    check_text(record_id, field)
    if not record_id:
        raise InvalidText(f"{field} must not be empty")
    return record_id


@dataclass(frozen=True)
class Fact:
    """A pinned fact and the id of the stored turn it came from (its ``origin``).

    In a request it is the line ``[origin] text``: the model sees where it came from.
    """

    id: str
    text: str
    origin: str

    def __post_init__(self) -> None:
        check_id(self.id)
        check_text(self.text, "text")
        check_id(self.origin, "origin")

    def __repr__(self) -> str:
        # Ids and text may be private: tags and sizes only.
        return (f"Fact({id_tag(self.id)}, text={len(self.text.encode())} bytes, "
                f"origin={id_tag(self.origin)})")


def fact_line(fact: Fact) -> str:
    """How one fact reads in the facts message: its origin in brackets, then its text."""
    return f"[{fact.origin}] {fact.text}"


def facts_content(facts: Sequence[Fact]) -> str:
    """The content of the facts message: one line per fact, joined by newlines."""
    return "\n".join(fact_line(check_fact(fact)) for fact in facts)


def check_fact(fact: object) -> Fact:
    """Return ``fact`` if it is a Fact, else TypeError (its fields were checked when made)."""
    if not isinstance(fact, Fact):
        raise TypeError(f"facts must be Fact, not {type(fact).__name__}")
    return fact


@dataclass(frozen=True)
class Encoder:
    """How one client turns a request object into bytes."""

    name: str
    ensure_ascii: bool
    item_separator: str
    key_separator: str
    escape_line_separators: bool

    def dumps(self, obj: object) -> bytes:
        """Serialize any JSON value exactly as this client would send it."""
        text = json.dumps(
            obj,
            ensure_ascii=self.ensure_ascii,
            separators=(self.item_separator, self.key_separator),
            allow_nan=False,
        )
        return self.escape(text).encode("utf-8")

    def quote(self, text: str) -> str:
        """One JSON string literal, quotes included, as ``dumps`` writes it."""
        return self.escape(self.basic_quote(text))

    @property
    def basic_quote(self):
        """json's own C string encoder for this preset, before ``escape``."""
        return encode_basestring_ascii if self.ensure_ascii else encode_basestring

    def escape(self, text: str) -> str:
        """The escapes json.dumps does not make: U+2028/U+2029 for gson.

        They can only occur inside string literals, so a plain replace on
        serialized JSON touches nothing else.
        """
        if self.escape_line_separators and ("\u2028" in text or "\u2029" in text):
            return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        return text


ENCODERS: Mapping[str, Encoder] = MappingProxyType({
    "gson": Encoder("gson", False, ",", ":", True),
    "httpx": Encoder("httpx", False, ",", ":", False),
    "requests": Encoder("requests", True, ", ", ": ", False),
})


def get_encoder(name: str) -> Encoder:
    """The encoder preset called ``name``; ValueError names the known ones."""
    try:
        return ENCODERS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(ENCODERS))
        raise ValueError(f"unknown encoder {name!r}; known encoders: {known}") from None


def messages(system: str, turns: list[Turn], current: str,
             facts: Sequence[Fact] = ()) -> list[dict[str, str]]:
    """The chat messages of a request: system, the facts, each turn's pair, the question.

    The facts, if any, are a second system message right after the first.
    """
    result = [{"role": "system", "content": check_text(system, "system")}]
    if facts:
        result.append({"role": "system", "content": facts_content(facts)})
    for turn in turns:
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        result.append({"role": "user", "content": turn.question})
        result.append({"role": "assistant", "content": turn.answer})
    result.append({"role": "user", "content": check_text(current, "current question")})
    return result


def request_bytes(
    system: str,
    turns: list[Turn],
    current: str,
    *,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
    facts: Sequence[Fact] = (),
) -> bytes:
    """The exact body that would go over the wire for this request.

    The same bytes as the encoder's ``dumps`` of ``{"model": model, "messages":
    messages(system, turns, current, facts)}``, written by the request's pieces.
    """
    writer = request_writer(encoder)
    head = writer.head(model, system)
    section = writer.facts_message(writer.fact_lines(facts)) if facts else b""
    pieces = [writer.turn(turn) for turn in turns]
    return b"".join([head, section, *pieces, writer.tail(current)])


class RequestWriter:
    """One encoder's request, piece by piece: its punctuation is computed once.

    A request is ``head + facts message + one piece per turn + tail``. Each piece
    holds the separator before it, so any suffix of the turns joins into exactly the
    bytes the encoder's ``dumps`` writes for the whole request object: ``select``
    encodes only the turns it keeps, and sizes add up piece by piece.
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
        # The facts message: ,{"role":"system","content":"<line>\n<line>..."}
        self.facts_open = (item + self.prefix["system"] + '"').encode("utf-8")
        self.facts_close = b'"}'
        self.fact_separator = encoder.quote("\n")[1:-1].encode("utf-8")

    def message(self, role: str, content: str) -> bytes:
        """One message on its own, without a separator."""
        return (self.prefix[role] + self.encoder.quote(content) + "}").encode("utf-8")

    def head(self, model: str, system: str) -> bytes:
        """The bytes before the facts and the turns: the model and the system message."""
        model = self.encoder.quote(check_text(model, "model"))
        return ((self.model_open + model + self.messages_open).encode("utf-8")
                + self.message("system", check_text(system, "system")))

    def tail(self, current: str) -> bytes:
        """The bytes after the last turn: the current question, and the closing brackets."""
        return self.item.encode("utf-8") + self.message(
            "user", check_text(current, "current question")) + b"]}"

    def fact_line(self, fact: Fact) -> bytes:
        """One fact's line in the facts message, escaped, without quotes or separator.

        JSON escapes each character on its own, so the message's content is its
        lines' escaped bytes joined by an escaped newline.
        """
        text = self.basic_quote(fact_line(check_fact(fact)))[1:-1]  # without its quotes
        if self.escapes and ("\u2028" in text or "\u2029" in text):
            text = self.encoder.escape(text)
        return text.encode("utf-8")

    def fact_lines(self, facts: Sequence[Fact]) -> list[bytes]:
        """Every fact's escaped line, in order."""
        return [self.fact_line(fact) for fact in facts]

    def facts_that_fit(self, facts: Sequence[Fact], room: int) -> list[bytes]:
        """The escaped lines of the first facts whose message fits ``room`` bytes."""
        size = len(self.facts_open) + len(self.facts_close) - len(self.fact_separator)
        lines = []
        for fact in facts:
            line = self.fact_line(fact)
            size += len(self.fact_separator) + len(line)
            if size > room:
                break
            lines.append(line)
        return lines

    def facts_message(self, lines: list[bytes]) -> bytes:
        """The facts message, the separator before it included: all that facts add."""
        return self.facts_open + self.fact_separator.join(lines) + self.facts_close

    def turn(self, turn: Turn) -> bytes:
        """A turn's two messages, each with the separator before it (the hot path)."""
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        quote = self.basic_quote
        text = f"{self.turn_open}{quote(turn.question)}{self.turn_middle}{quote(turn.answer)}}}"
        if self.escapes and ("\u2028" in text or "\u2029" in text):
            text = self.encoder.escape(text)  # the punctuation holds no U+2028/U+2029
        return text.encode("utf-8")


_WRITERS = {name: RequestWriter(encoder) for name, encoder in ENCODERS.items()}


def request_writer(encoder: str) -> RequestWriter:
    """The piece writer of the encoder called ``encoder``; ValueError names the known ones."""
    get_encoder(encoder)  # the clear error for an unknown name
    return _WRITERS[encoder]
