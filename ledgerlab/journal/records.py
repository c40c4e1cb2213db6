"""The line format of a journal file, byte-compatible with the Java reference::

    base64(payload) SP sha256_hex(payload) LF

where ``payload`` is ``{"id":...,"question":...,"answer":...}`` serialized like a
request (the gson encoder). A turn with tool rounds or a question of parts adds
keys after those three, in this order and only when present::

    "parts": [part, ...]    (text, image, document: ``ledgerlab.journal.rich``)
    "steps": [step, ...]    (call, result, error, text, reasoning: the same)

``parts`` only when the question is a tuple of parts; ``steps`` only when there are
tool rounds. ``question`` stays a
string, the question's text (``Turn.text``), so the Java reference, which reads only
``id``, ``question`` and ``answer``, still opens the file. A facts file uses the same
line with the payload ``{"id":...,"text":...,"origin":...}``.

This module only encodes, decodes and examines bytes: it opens no file. What a
torn tail (the bytes after the last newline, or a last line whose first page never
landed) holds is told here too, because ``inspect``, ``Journal`` and ``salvage`` must
all read it the same way.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..checks import InvalidText, InvalidTurn, check_id, id_tag
from ..encoders import ENCODERS
from ..turns import Fact, Turn
from .arguments import check_type
from .rich import (Pairs, check_strings, decode_question, decode_steps, part_payload,
                   step_payload)

RECORD_KEYS = ["id", "question", "answer"]
# What a richer turn adds after RECORD_KEYS, in this order, each only when present.
RICH_KEYS = ["parts", "steps"]
FACT_KEYS = ["id", "text", "origin"]
_HEX_DIGITS = frozenset(b"0123456789abcdef")
# Every record line starts with the base64 of '{"id":"'.
_LINE_START = base64.b64encode(b'{"id":"')[:9]


@dataclass(frozen=True)
class Record:
    """One decoded journal line."""

    id: str
    turn: Turn
    sha256: str  # the line's checksum of its payload

    def __repr__(self) -> str:  # ids may be private too
        return f"Record({id_tag(self.id)}, {self.turn!r}, sha256={self.sha256[:12]})"


@dataclass(frozen=True)
class FactRecord:
    """One decoded line of a facts file."""

    id: str
    fact: Fact
    sha256: str

    @property
    def item(self) -> Fact:  # what a derived file's record holds, by one name for each kind
        return self.fact

    def __repr__(self) -> str:
        return f"FactRecord({self.fact!r}, sha256={self.sha256[:12]})"


@dataclass(frozen=True)
class Kind:
    """What the records of one file hold: their payload keys, and how to build one."""

    name: str  # in messages
    items: str
    keys: list[str]
    build: Callable[[list, str], Record | FactRecord]  # (key/value pairs, digest) -> record
    optional: tuple[str, ...] = ()  # keys that may follow ``keys``, in this order

    def fits(self, keys: list[str]) -> bool:
        """Are these a payload's keys: ``keys``, then some of ``optional`` in its order?"""
        rest = keys[len(self.keys):]
        return (keys[:len(self.keys)] == self.keys
                and rest == [key for key in self.optional if key in rest])

    def shape(self) -> str:
        """The keys a payload holds, as messages name them: ``{id, question, answer[, parts]…}``."""
        return "{" + ", ".join(self.keys) + "".join(f"[, {key}]" for key in self.optional) + "}"


def _turn_record(pairs: list, digest: str) -> Record:
    check_strings(pairs[:len(RECORD_KEYS)], "")
    fields = dict(pairs)
    turn_id, question, answer = (fields[key] for key in RECORD_KEYS)
    try:
        check_id(turn_id)
        if "parts" in fields:
            question = decode_question(question, fields["parts"])
        steps = decode_steps(fields["steps"]) if "steps" in fields else ()
        # The Turn checks the texts, and that the rounds pair up; it carries its id.
        turn = Turn(question, answer, steps, id=turn_id)
    except (InvalidText, InvalidTurn) as error:
        raise ValueError(f"payload field is invalid: {error}") from None
    return Record(turn_id, turn, digest)


def _fact_record(pairs: list, digest: str) -> FactRecord:
    check_strings(pairs, "")
    try:
        fact = Fact(*(value for _, value in pairs))
    except InvalidText as error:
        raise ValueError(f"payload field is invalid: {error}") from None
    return FactRecord(fact.id, fact, digest)


TURNS = Kind("journal", "turns", RECORD_KEYS, _turn_record, tuple(RICH_KEYS))
FACTS = Kind("facts file", "facts", FACT_KEYS, _fact_record)


@dataclass(frozen=True)
class LineStatus:
    """What one line of a journal file holds: a record, or the problem with it."""

    number: int
    offset: int
    length: int  # bytes, newline included (all the lines', when ``lines`` > 1)
    record: Record | FactRecord | None
    problem: str | None
    torn: bool = False  # bytes after the last newline that a cut-short append explains
    unterminated: bool = False  # a torn tail holding a whole record but not its newline
    # A run of identical corrupt lines is one status: ``number`` is the first line's, and
    # each line is ``length // lines`` bytes. A file of 4 MiB of newlines is one status.
    lines: int = 1


def encode_record(turn_id: str, question: str | tuple, answer: str, steps: tuple = ()) -> bytes:
    """The journal line for one turn, newline included.

    A str question and no steps give the Java reference's record, byte for byte. A
    question of parts, or tool rounds in ``steps``, give the richer record
    (``encode_turn``); those are checked as ``Turn`` checks them.
    """
    check_type(turn_id, "turn_id", str, "a str")
    if isinstance(question, str) and not steps:
        check_type(answer, "answer", str, "a str")
        return encode_line({"id": turn_id, "question": question, "answer": answer})
    return encode_turn(turn_id, Turn(question, answer, steps))


def encode_turn(turn_id: str, turn: Turn) -> bytes:
    """The journal line for a Turn, newline included: what ``Journal.commit`` writes."""
    check_id(check_type(turn_id, "turn_id", str, "a str"), "turn_id")
    check_type(turn, "turn", Turn, "a Turn")
    return encode_line(turn_payload(turn_id, turn))


def turn_payload(turn_id: str, turn: Turn) -> dict:
    """A turn's record payload, as an object: the three keys the Java reference reads
    (``question`` is the question's text), then ``parts`` and ``steps`` when present."""
    payload: dict = {"id": turn_id, "question": turn.text, "answer": turn.answer}
    if not isinstance(turn.question, str):
        payload["parts"] = [part_payload(part) for part in turn.question]
    if turn.steps:
        payload["steps"] = [step_payload(step) for step in turn.steps]
    return payload


def encode_fact(fact: Fact) -> bytes:
    """The facts file's line for one fact: the journal's format, keys id, text, origin."""
    check_type(fact, "fact", Fact, "a Fact")
    return encode_line({"id": fact.id, "text": fact.text, "origin": fact.origin})


def encode_line(payload: dict) -> bytes:
    encoded = ENCODERS["gson"].dumps(payload)
    digest = hashlib.sha256(encoded).hexdigest()
    return base64.b64encode(encoded) + b" " + digest.encode("ascii") + b"\n"


def decode_record(line: bytes, kind: Kind = TURNS) -> Record | FactRecord:
    """Decode one complete line (without its newline); ValueError says what is wrong."""
    check_type(line, "line", bytes, "bytes")
    check_type(kind, "kind", Kind, "a Kind (TURNS, FACTS, SUMMARIES)")
    if line.endswith(b"\r"):
        raise ValueError("line ends with CR (Windows line endings?)")
    fields = line.split(b" ")
    if len(fields) != 2:
        raise ValueError(f"expected 2 fields, found {len(fields)}")
    encoded, digest = fields
    if len(digest) != 64 or not _HEX_DIGITS.issuperset(digest):
        raise ValueError("checksum is not 64 lowercase hex digits")
    try:
        payload = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise ValueError("payload is not valid base64") from None
    # b64decode ignores padding bits ("YR==" decodes like "YQ=="): only an
    # exact re-encoding proves that no stored byte was altered.
    if base64.b64encode(payload) != encoded:
        raise ValueError("payload base64 is not canonical")
    if hashlib.sha256(payload).hexdigest().encode("ascii") != digest:
        raise ValueError("checksum mismatch")
    try:
        pairs = json.loads(payload.decode("utf-8"), object_pairs_hook=Pairs)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("payload is not UTF-8 JSON") from None
    except RecursionError:  # a checksum-valid payload can still be hostile
        raise ValueError("payload JSON is nested too deeply") from None
    if type(pairs) is not Pairs or not kind.fits([key for key, _ in pairs]):
        raise ValueError(f"payload is not an {kind.shape()} object")
    return kind.build(pairs, digest.decode("ascii"))


def overwritten_newline(tail: bytes, kind: Kind = TURNS) -> bool:
    """Do the bytes after the last newline hold an acknowledged record whose newline is gone?

    That is the one tail refused rather than cut: it begins with a complete record
    line (base64, one space, 64 hex digits) that verifies, and the byte where its
    newline belongs is there and is not NUL. A commit returns only once its newline
    is synced, so that record was acknowledged and its newline overwritten later:
    cutting it would delete an acknowledged turn silently.
    """
    found = leading_record(tail, kind)
    return found is not None and len(tail) > found[1] and tail[found[1]] != 0


def leading_record(tail: bytes, kind: Kind = TURNS) -> tuple[Record | FactRecord, int] | None:
    """The record that ``tail`` begins with and its line's length, if that line verifies."""
    end = tail.find(b" ") + 1 + 64
    record = _decoded(tail[:end], kind) if end != 64 and len(tail) >= end else None
    return None if record is None else (record, end)


def describe_tail(tail: bytes, kind: Kind = TURNS, offset: int = 0) -> str:
    """What a torn tail at byte ``offset`` holds (the bytes after the last newline, or a
    ``torn_append``), told in sizes, and what opening does."""
    if torn_append(tail, offset):
        nuls = len(tail) - len(tail.lstrip(b"\0"))
        return (f"an append of {_bytes(len(tail))} whose newline reached the disk but whose "
                f"first {_bytes(nuls)} are NUL, never acknowledged (cut on open)")
    if overwritten_newline(tail, kind):
        return ("a verified record whose newline was overwritten: it was acknowledged, "
                "so the journal refuses to open rather than cut it")
    written = tail.rstrip(b"\0")
    if not written:
        return f"{_bytes(len(tail))} of NUL, never acknowledged (cut on open)"
    if _verifies(written, kind):
        what = "a whole record without its newline"
    elif tail.startswith(_LINE_START[:len(written)]):
        what = f"the first {_bytes(len(written))} of a record"
    else:
        what = f"{_bytes(len(written))} that no append writes (stale data a crash exposed?)"
    inside, after = written.count(0), len(tail) - len(written)
    if inside:
        what += f" with {_bytes(inside)} of NUL inside"
    if after:
        what += f", then {_bytes(after)} of NUL"
    return f"{what}, never acknowledged (cut on open)"


def _bytes(count: int) -> str:
    return f"{count} byte{'' if count == 1 else 's'}"


def _verifies(line: bytes, kind: Kind = TURNS) -> bool:
    """Is ``line`` (without a newline) a record line that decodes and checks out?"""
    return _decoded(line, kind) is not None


def _decoded(line: bytes, kind: Kind = TURNS) -> Record | FactRecord | None:
    try:
        return decode_record(line, kind)
    except ValueError:
        return None


def examine(data: bytes, kind: Kind = TURNS) -> list[LineStatus]:
    """Every line of a journal file (or, with ``FACTS``, a facts file): ``scan`` as a list.

    It holds one status per line, so its size grows with the count of lines; what
    stops at the first problem (``Journal``) or shows the lines one by one
    (``inspect``) iterates ``scan`` instead.
    """
    return list(scan(data, kind))


def scan(data: bytes, kind: Kind = TURNS) -> Iterator[LineStatus]:
    """Each line of a journal or facts file, in order, with its record or problem.

    Bytes after the last newline were never acknowledged: they are a torn tail
    (problem ``"torn tail"``, ``torn``; ``unterminated`` when they hold a whole record
    without its newline), unless ``overwritten_newline`` says they hold an
    acknowledged record, which is a problem. The file's last line is a torn tail too
    when its first pages are NUL (``torn_append``). Duplicate ids are problems.

    A corrupt line repeated byte for byte is one status for the whole run (``lines``):
    the same bytes have the same problem (a repeated duplicate is a duplicate again), so
    the copies are counted, not decoded, and a million of them cost about what one does.
    The file's last line is never part of a run: it may be a torn tail.
    """
    # Checked now, not at the first line: scan's lines come lazily.
    check_type(data, "data", bytes, "bytes")
    check_type(kind, "kind", Kind, "a Kind (TURNS, FACTS, SUMMARIES)")
    return _scan(data, kind)


def _scan(data: bytes, kind: Kind) -> Iterator[LineStatus]:
    seen: set[str] = set()
    offset = 0
    number = 0
    while offset < len(data):
        number += 1
        end = data.find(b"\n", offset)
        if end == -1:
            # Never acknowledged (a commit returns once its newline is synced): cut on
            # open, whatever it holds, except a verified record with its newline overwritten.
            tail = data[offset:]
            if overwritten_newline(tail, kind):
                yield LineStatus(number, offset, len(tail), None,
                                 "a verified record whose newline was overwritten")
            else:
                yield LineStatus(number, offset, len(tail), None, "torn tail", torn=True,
                                 unterminated=_verifies(tail.rstrip(b"\0"), kind))
            return
        if end + 1 == len(data) and torn_append(data[offset:], offset):
            yield LineStatus(number, offset, end + 1 - offset, None, "torn tail", torn=True)
            return
        record, problem = None, None
        try:
            record = decode_record(data[offset:end], kind)
        except ValueError as error:
            problem = str(error)
        if record is not None and record.id in seen:
            record, problem = None, "duplicate id"
        if record is not None:
            seen.add(record.id)
            yield LineStatus(number, offset, end + 1 - offset, record, problem)
            offset = end + 1
            continue
        copies = _copies(data, offset, end + 1 - offset)
        yield LineStatus(number, offset, copies * (end + 1 - offset), None, problem,
                         lines=copies)
        number += copies - 1
        offset += copies * (end + 1 - offset)


_RUN_BLOCK = 1 << 16  # the most bytes of copies compared at once: memory stays flat


def _copies(data: bytes, offset: int, size: int) -> int:
    """How many times the ``size`` bytes at ``offset`` occur back to back from there (1 or
    more), the file's last line left out. Blocks of copies double up to ``_RUN_BLOCK`` bytes
    and halve again at the run's end: a few compares in C per block, not one per line."""
    line = data[offset:offset + size]
    count, position = 1, offset + size
    block, copies = line, 1
    while True:
        if data.startswith(block, position) and position + len(block) < len(data):
            count, position = count + copies, position + len(block)
            if len(block) * 2 <= _RUN_BLOCK:
                block, copies = block * 2, copies * 2
        elif copies > 1:
            copies //= 2
            block = block[:copies * size]
        else:
            return count


PAGE_BYTES = 4096  # the unit in which an append's pages reach the disk, or do not


def torn_append(last_line: bytes, offset: int) -> bool:
    """Is the file's last line (newline included, at byte ``offset``) an append whose
    first pages never landed?

    The pages of one append can reach the disk out of order: its newline's page can
    land, and its first ones not: they read back as NUL. A record line never holds NUL,
    so a last line whose NULs run from its start to its newline, or to a page boundary
    of the file, is that torn append, never acknowledged (its commit had not returned).
    Any other NUL-led line (one byte zeroed, say) is damage, and refused. Only the last
    line: one crash tears one append, and every earlier line was synced before the next.
    """
    if last_line[:1] != b"\0" or not last_line.endswith(b"\n"):
        return False
    nuls = len(last_line) - len(last_line.lstrip(b"\0"))
    return nuls == len(last_line) - 1 or (offset + nuls) % PAGE_BYTES == 0
