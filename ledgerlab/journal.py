"""The journal: a durable, append-only ledger of confirmed turns.

One line per turn, byte-compatible with the Java reference::

    base64(payload) SP sha256_hex(payload) LF

where ``payload`` is ``{"id":...,"question":...,"answer":...}`` serialized like a
request (the gson encoder). The contract:

- one writer: the file itself is locked (flock on POSIX); a second Journal on
  the same file, in this process or another, raises JournalLocked. Where the OS
  has no working flock (Pyodide: no ``fcntl.flock`` in 0.27, one that locks nothing
  in 314 and later), the lock guards only this process: a registry of the files
  this process's Journals hold. Another process can then open the same file and
  overwrite acknowledged turns;
- every commit is fsynced before it returns;
- a commit is acknowledged once its newline is synced, so nothing after the last
  newline ever was: on open it is cut, whatever it holds (part of a record, a
  whole record without its newline, NULs after or inside it, stale bytes a crash
  exposed), and the cut is synced. One exception refuses instead: a verified
  record line followed by a byte that is not NUL where its newline belongs (an
  acknowledged record whose newline was overwritten). Any complete line that is
  not a valid record, or repeats an id, refuses to open (JournalCorrupt) and
  changes nothing;
- commit is idempotent by id; the same id with another question is TurnConflict;
- the file never grows past ``max_bytes`` (JournalFull, file unchanged); a file
  already over it is refused on open unless ``max_bytes=None`` (no cap: deleting
  from an oversized journal must stay possible, and it never grows the file);
- ``forget`` and ``retain`` delete turns for real: one crash-safe rewrite (temp
  file, fsync, rename, fsync the directory), then the old bytes are overwritten.

Pinned facts live beside the turns in ``<path>.facts`` (so the turn file stays
one the Java reference reads): the same line format with the payload
``{"id":...,"text":...,"origin":...}``, the same checks, recovery, cap and lock
(the turn file's lock is taken first; the facts file is locked too). A fact's
origin is a stored turn, and deletion follows it: ``forget`` and ``retain``
rewrite the facts file before the turn file, so a kill between the two leaves
the turn with none of its facts (repeating the deletion completes it), and on
open any fact whose origin is gone is deleted.

The journal stores turns and facts; it knows nothing of requests or budgets.
Error messages carry offsets, sizes and hashes, never conversation text.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import io
import json
import os
import stat
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

try:
    import portalocker
except (ImportError, AttributeError):  # no fcntl.flock or LOCK_EX (Pyodide 0.27): no OS lock
    portalocker = None
if sys.platform == "emscripten":  # Pyodide 314 has fcntl.flock, but it locks nothing
    portalocker = None

from .wire import ENCODERS, Fact, InvalidText, Turn, check_id, check_int, check_text, id_tag

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
RECORD_KEYS = ["id", "question", "answer"]
FACT_KEYS = ["id", "text", "origin"]
FACTS_SUFFIX = ".facts"
_HEX_DIGITS = frozenset(b"0123456789abcdef")
# Every record line starts with the base64 of '{"id":"'.
_LINE_START = base64.b64encode(b'{"id":"')[:9]


class JournalError(Exception):
    """The journal cannot do what was asked; the message says what state it left."""


class JournalLocked(JournalError):
    """Another Journal (in this process or another) already holds the file."""


class JournalCorrupt(JournalError):
    """A line is neither a valid record nor a torn tail: the journal refuses to open."""


class JournalFull(JournalError):
    """The file is, or a commit would make it, larger than the cap."""


class TurnConflict(JournalError):
    """The id is already stored with a different question."""


class TurnNotFound(JournalError, KeyError):
    """No turn is stored under that id; nothing changed."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class OriginNotFound(TurnNotFound):
    """A fact's origin is not a stored turn: it cannot be pinned; nothing changed."""


class FactConflict(JournalError):
    """The fact id is already pinned with another text or origin."""


class FactNotFound(JournalError, KeyError):
    """No fact is pinned under that id; nothing changed."""

    __str__ = TurnNotFound.__str__  # not a TurnNotFound: no turn was asked for


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

    def __repr__(self) -> str:
        return f"FactRecord({self.fact!r}, sha256={self.sha256[:12]})"


@dataclass(frozen=True)
class _Kind:
    """What the records of one file hold: their payload keys, and how to build one."""

    name: str  # in messages
    items: str
    keys: list[str]
    build: Callable[[list[str], str], Record | FactRecord]  # (values, digest) -> record


def _turn_record(values: list[str], digest: str) -> Record:
    turn_id, question, answer = values
    turn = Turn(question, answer)
    return Record(check_id(turn_id), turn, digest)


def _fact_record(values: list[str], digest: str) -> FactRecord:
    fact = Fact(*values)
    return FactRecord(fact.id, fact, digest)


TURNS = _Kind("journal", "turns", RECORD_KEYS, _turn_record)
FACTS = _Kind("facts file", "facts", FACT_KEYS, _fact_record)


@dataclass(frozen=True)
class LineStatus:
    """What one line of a journal file holds: a record, or the problem with it."""

    number: int
    offset: int
    length: int
    record: Record | FactRecord | None
    problem: str | None
    torn: bool = False  # bytes after the last newline that a cut-short append explains
    unterminated: bool = False  # a torn tail holding a whole record but not its newline


class _Pairs(list):
    """A JSON object's key/value pairs, told apart from a JSON array."""


def encode_record(turn_id: str, question: str, answer: str) -> bytes:
    """The journal line for one turn, newline included."""
    return _encode_line({"id": turn_id, "question": question, "answer": answer})


def encode_fact(fact: Fact) -> bytes:
    """The facts file's line for one fact: the journal's format, keys id, text, origin."""
    return _encode_line({"id": fact.id, "text": fact.text, "origin": fact.origin})


def _encode_line(payload: dict[str, str]) -> bytes:
    encoded = ENCODERS["gson"].dumps(payload)
    digest = hashlib.sha256(encoded).hexdigest()
    return base64.b64encode(encoded) + b" " + digest.encode("ascii") + b"\n"


def decode_record(line: bytes, kind: _Kind = TURNS) -> Record | FactRecord:
    """Decode one complete line (without its newline); ValueError says what is wrong."""
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
        pairs = json.loads(payload.decode("utf-8"), object_pairs_hook=_Pairs)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("payload is not UTF-8 JSON") from None
    except RecursionError:  # a checksum-valid payload can still be hostile
        raise ValueError("payload JSON is nested too deeply") from None
    if type(pairs) is not _Pairs or [key for key, _ in pairs] != kind.keys:
        raise ValueError(f"payload is not an {{{', '.join(kind.keys)}}} object")
    try:
        return kind.build([value for _, value in pairs], digest.decode("ascii"))
    except InvalidText as error:
        raise ValueError(f"payload field is invalid: {error}") from None


def overwritten_newline(tail: bytes, kind: _Kind = TURNS) -> bool:
    """Do the bytes after the last newline hold an acknowledged record whose newline is gone?

    That is the one tail refused rather than cut: it begins with a complete record
    line (base64, one space, 64 hex digits) that verifies, and the byte where its
    newline belongs is there and is not NUL. A commit returns only once its newline
    is synced, so that record was acknowledged and its newline overwritten later:
    cutting it would delete an acknowledged turn silently.
    """
    found = _leading_record(tail, kind)
    return found is not None and len(tail) > found[1] and tail[found[1]] != 0


def _leading_record(tail: bytes, kind: _Kind = TURNS) -> tuple[Record | FactRecord, int] | None:
    """The record that ``tail`` begins with and its line's length, if that line verifies."""
    end = tail.find(b" ") + 1 + 64
    record = _decoded(tail[:end], kind) if end != 64 and len(tail) >= end else None
    return None if record is None else (record, end)


def describe_tail(tail: bytes, kind: _Kind = TURNS) -> str:
    """What the bytes after the last newline hold, told in sizes, and what opening does."""
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


def _verifies(line: bytes, kind: _Kind = TURNS) -> bool:
    """Is ``line`` (without a newline) a record line that decodes and checks out?"""
    return _decoded(line, kind) is not None


def examine(data: bytes, kind: _Kind = TURNS) -> list[LineStatus]:
    """Every line of a journal file (or, with ``FACTS``, a facts file) with its record or problem.

    Bytes after the last newline were never acknowledged: they are a torn tail
    (problem ``"torn tail"``, ``torn``; ``unterminated`` when they hold a whole record
    without its newline), unless ``overwritten_newline`` says they hold an
    acknowledged record, which is a problem. Duplicate ids are problems too.
    """
    statuses = []
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
                statuses.append(LineStatus(number, offset, len(tail), None,
                                           "a verified record whose newline was overwritten"))
            else:
                statuses.append(LineStatus(number, offset, len(tail), None, "torn tail",
                                           torn=True,
                                           unterminated=_verifies(tail.rstrip(b"\0"), kind)))
            break
        record, problem = None, None
        try:
            record = decode_record(data[offset:end], kind)
        except ValueError as error:
            problem = str(error)
        if record is not None and record.id in seen:
            record, problem = None, "duplicate id"
        if record is not None:
            seen.add(record.id)
        statuses.append(LineStatus(number, offset, end + 1 - offset, record, problem))
        offset = end + 1
    return statuses


def fsync_directory(path: str) -> None:
    """Make a file's creation or rename durable (POSIX; Windows has no directory fsync)."""
    if os.name == "nt":
        return
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _Store:
    """One locked file of records (the turns, or the facts) and how many bytes it holds."""

    def __init__(self, path: str, kind: _Kind, temp: str) -> None:
        self.path, self.kind, self.temp = path, kind, temp
        self.file: _JournalFile | None = None  # the facts file's is None until a first pin
        self.size = 0

    @property
    def where(self) -> str:
        """How messages name a line's file: the turn journal's as they always have."""
        return "" if self.kind is TURNS else "the facts file's "


class Journal:
    """The append-only ledger of one conversation, and the facts pinned from its turns.

    Use it as a context manager. The turns are in the file at ``path``, exactly in
    the reference's format; the facts beside it in ``<path>.facts`` (created by the
    first ``pin``), in the same line format with payload ``{"id","text","origin"}``.
    The turn file's lock is taken first and guards both; the facts file is locked too.
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 max_bytes: int | None = DEFAULT_MAX_BYTES, create: bool = True) -> None:
        # The real path: a rewrite must replace the file itself, not a symlink to it,
        # and must not follow a later chdir.
        self.path = os.path.realpath(os.fspath(path))
        self.max_bytes = None if max_bytes is None else check_int(max_bytes, "max_bytes",
                                                                  minimum=1)
        self._mutex = threading.Lock()  # flock does not stop threads sharing one handle
        self._turns: dict[str, Turn] = {}
        self._facts: dict[str, Fact] = {}
        self._turn_store = _Store(self.path, TURNS, _rewrite_path(self.path))
        self._fact_store = _Store(self.path + FACTS_SUFFIX, FACTS,
                                  _rewrite_path(self.path, FACTS_REWRITE_SUFFIX))
        if not create and not os.path.isfile(self.path):
            raise JournalError(f"no journal at {os.fspath(path)!r}")
        self._turn_store.file = _open_locked(self.path)
        try:
            records, data = self._load(self._turn_store)
            self._turns = {record.id: record.turn for record in records}
            _clear_leftover(self._turn_store.temp, data)
            self._open_facts()
        except BaseException:
            self._close_file()
            raise

    def _open_facts(self) -> None:
        """Load the facts file, if there is one, and delete every fact whose origin is gone."""
        store = self._fact_store
        records, data = [], b""
        if os.path.lexists(store.path):
            store.file = _open_locked(store.path, create=False)
            records, data = self._load(store)
        self._facts = {record.id: record.fact for record in records}
        _clear_leftover(store.temp, data)
        # forget and retain rewrite the facts before the turns, so a kill between the
        # two leaves no such fact; a turn file cut or replaced under its facts can.
        # Either way its origin is gone: finish the deletion.
        self._drop_facts(lambda fact: fact.origin in self._turns)

    def _load(self, store: _Store) -> tuple[list, bytes]:
        """Read and check every line of one file, cut a torn tail; return its records and bytes."""
        fd = store.file.fileno()
        try:
            size = os.fstat(fd).st_size
            if self.max_bytes is not None and size > self.max_bytes:
                raise JournalFull(f"{store.kind.name} is {size} bytes, over its cap of "
                                  f"{self.max_bytes} bytes")
            os.lseek(fd, 0, os.SEEK_SET)
            data = store.file.readall()
            lines = examine(data, store.kind)
        except OSError as error:
            raise JournalError(f"cannot read {store.kind.name} {store.path!r}: "
                               f"{error.strerror}; nothing changed") from None
        except MemoryError:
            raise _too_large(size) from None
        records = []
        good = 0
        for line in lines:
            if line.torn:
                break
            if line.problem is not None:
                raise JournalCorrupt(f"{store.where}line {line.number} at byte offset "
                                     f"{line.offset} is corrupt: {line.problem}")
            records.append(line.record)
            good = line.offset + line.length
        if good < len(data):
            # A torn write, never acknowledged: cut it off, and make the cut durable.
            try:
                os.ftruncate(fd, good)
                os.fsync(fd)
            except OSError as error:
                raise JournalError(
                    f"cannot cut the {len(data) - good}-byte torn tail of {store.path!r}: "
                    f"{error.strerror}; the journal is not open, the tail may remain") from None
        store.size = good
        return records, data[:good]

    def commit(self, turn_id: str, question: str, answer: str) -> str:
        """Store a confirmed turn durably and return the stored answer.

        Idempotent by id: committing an id again with the same question writes
        nothing and returns the answer stored first.
        """
        check_id(turn_id)
        turn = Turn(question, answer)  # validates both texts
        with self._mutex:
            self._check_open()
            stored = self._turns.get(turn_id)
            if stored is not None:
                if stored.question != question:
                    raise TurnConflict(f"{id_tag(turn_id)} is already stored with another question")
                return stored.answer
            line = encode_record(turn_id, question, answer)
            self._check_room(self._turn_store, line)
            self._append(self._turn_store, line, "commit")
            self._turns[turn_id] = turn
            return answer

    def pin(self, fact_id: str, text: str, *, origin: str) -> Fact:
        """Store a fact durably, with the id of the stored turn it came from; return it.

        The journal's guarantees hold for facts too (checksummed lines, fsync before
        returning, torn tails cut, corruption refused, one writer). ``origin`` must be
        a stored turn (else OriginNotFound); forgetting that turn, or retain dropping
        it, deletes the fact. Idempotent by id: the same text and origin return the
        stored fact and write nothing; another text or origin is FactConflict.
        """
        fact = Fact(fact_id, text, origin)  # validates all three
        with self._mutex:
            self._check_open()
            stored = self._facts.get(fact_id)
            if stored is not None:
                if stored != fact:
                    field = "text" if stored.text != text else "origin"
                    raise FactConflict(f"{id_tag(fact_id)} is already pinned with another "
                                       f"{field}; nothing changed")
                return stored
            if origin not in self._turns:
                raise OriginNotFound(f"origin {id_tag(origin)} of fact {id_tag(fact_id)} is "
                                     f"not a stored turn; nothing changed")
            store = self._fact_store
            line = encode_fact(fact)
            self._check_room(store, line)
            if store.file is None:  # the first pin: a new file, never one that appeared since
                store.file = _open_locked(store.path, exclusive=True)
            self._append(store, line, "pin")
            self._facts[fact_id] = fact
            return fact

    def _check_room(self, store: _Store, line: bytes) -> None:
        if self.max_bytes is not None and store.size + len(line) > self.max_bytes:
            raise JournalFull(
                f"a {len(line)}-byte record would grow the {store.kind.name} from "
                f"{store.size} bytes past its cap of {self.max_bytes} bytes; file unchanged")

    def _append(self, store: _Store, line: bytes, action: str) -> None:
        fd = store.file.fileno()
        try:
            os.lseek(fd, store.size, os.SEEK_SET)
            _write_all(fd, line)
            os.fsync(fd)
        except OSError as error:
            self._fail(action, error)
        store.size += len(line)

    def _fail(self, action: str, error: OSError) -> NoReturn:
        # After a failed write or fsync the data may already be lost: never
        # retry and acknowledge. Close, so that reopening re-reads the file.
        self._close_file()
        raise JournalError(
            f"{action} not acknowledged: {error.strerror or error}; the journal is closed, "
            f"reopen it to see what it holds"
        ) from error

    def forget(self, turn_id: str) -> None:
        """Delete one turn and every fact whose origin it is: their text leaves the files.

        The other lines stay byte-identical. The facts go first: a kill between the
        two rewrites leaves the turn with none of its facts, and forgetting it again
        completes the deletion.
        """
        check_text(turn_id, "id")
        with self._mutex:
            self._check_open()
            if turn_id not in self._turns:
                raise TurnNotFound(f"{id_tag(turn_id)} is not in the journal; nothing changed")
            self._drop_facts(lambda fact: fact.origin != turn_id)
            self._drop_turns(lambda record: record.id != turn_id)

    def retain(self, *, last: int) -> int:
        """Keep only the newest ``last`` turns and their facts; return how many turns were deleted."""
        check_int(last, "last", minimum=0)
        with self._mutex:
            self._check_open()
            doomed = set(list(self._turns)[:max(0, len(self._turns) - last)])
            if doomed:
                self._drop_facts(lambda fact: fact.origin not in doomed)  # first, as in forget
                self._drop_turns(lambda record: record.id not in doomed)
            return len(doomed)

    def unpin(self, fact_id: str) -> None:
        """Delete one fact for real, as ``forget`` deletes a turn."""
        check_text(fact_id, "id")
        with self._mutex:
            self._check_open()
            if fact_id not in self._facts:
                raise FactNotFound(f"{id_tag(fact_id)} is not pinned; nothing changed")
            self._drop_facts(lambda fact: fact.id != fact_id)

    def _drop_turns(self, keep: Callable[[Record], bool]) -> None:
        kept = self._rewrite(self._turn_store, keep)
        self._turns = {record.id: record.turn for record in kept}

    def _drop_facts(self, keep: Callable[[Fact], bool]) -> None:
        """Rewrite the facts file without the facts ``keep`` refuses, if there are any."""
        if all(keep(fact) for fact in self._facts.values()):
            return
        kept = self._rewrite(self._fact_store, lambda record: keep(record.fact))
        self._facts = {record.id: record.fact for record in kept}

    def _rewrite(self, store: _Store, keep: Callable) -> list:
        """Replace one file with the lines ``keep`` accepts, crash-safely; return their records.

        A kill at any point leaves either the old file or the new one under the
        path. The new file is locked before it takes the name, so the lock still
        guards the path; the old bytes are overwritten only once the new file is
        durably in place, so a crash cannot destroy the only copy.
        """
        old, kind = store.file, store.kind
        links = os.fstat(old.fileno()).st_nlink
        if links != 1 or not _same_file(old.fileno(), store.path):
            raise JournalError(
                f"{kind.name} has {links} names or was moved; deleting through one name "
                f"would leave the text under the others: nothing changed")
        try:
            os.lseek(old.fileno(), 0, os.SEEK_SET)
            data = old.readall()
            kept = [line for line in examine(data, kind) if keep(line.record)]
            new_data = b"".join(data[line.offset:line.offset + line.length] for line in kept)
        except OSError as error:
            self._fail("rewrite", error)
        except MemoryError:
            raise _too_large(store.size) from None
        if not _clear_leftover(store.temp, data):
            raise JournalError(
                f"cannot rewrite: {store.temp!r} exists and is not a leftover of this "
                f"{kind.name} (another journal, or held open); nothing changed")
        new = _open_locked(store.temp, exclusive=True)  # never takes a name that exists
        try:
            _write_all(new.fileno(), new_data)
            os.fsync(new.fileno())
            os.replace(store.temp, store.path)
            fsync_directory(store.path)
        except OSError as error:
            new.close()
            self._fail("rewrite", error)
        if portalocker is None:
            try:
                new = _reopened(new, store.path)
            except OSError as error:
                new.close()
                self._fail("reopening after the rewrite", error)
        store.file = new
        store.size = len(new_data)
        try:  # the old inode has no name now; destroy its bytes, then let it go
            os.lseek(old.fileno(), 0, os.SEEK_SET)
            _write_all(old.fileno(), b"\0" * len(data))
            os.fsync(old.fileno())
        except OSError as error:
            raise JournalError(
                f"the {kind.name} no longer holds the deleted {kind.items}, but the old "
                f"file's bytes could not be overwritten: {error.strerror or error}") from error
        finally:
            old.close()
        return [line.record for line in kept]

    def history(self) -> list[Turn]:
        """The stored turns in commit order (a copy)."""
        with self._mutex:
            self._check_open()
            return list(self._turns.values())

    def facts(self) -> list[Fact]:
        """The pinned facts in pin order (a copy)."""
        with self._mutex:
            self._check_open()
            return list(self._facts.values())

    def find(self, turn_id: str) -> Turn | None:
        """The turn stored under ``turn_id``, or None."""
        check_text(turn_id, "id")
        with self._mutex:
            self._check_open()
            return self._turns.get(turn_id)

    @property
    def size(self) -> int:
        """Bytes of the journal file (the turns; the facts file is apart)."""
        return self._turn_store.size

    def __len__(self) -> int:
        return len(self._turns)

    def close(self) -> None:
        """Release the locks and the files. Safe to call twice."""
        with self._mutex:
            self._close_file()

    def _close_file(self) -> None:
        for store in (self._fact_store, self._turn_store):
            if store.file is not None:
                store.file.close()  # releases its locks
                store.file = None

    def _check_open(self) -> None:
        if self._turn_store.file is None:
            raise JournalError("journal is closed")

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self._turn_store.file is not None else "closed"
        facts = f", facts={len(self._facts)}" if self._facts else ""
        return (f"Journal({self.path!r}, turns={len(self._turns)}{facts}, "
                f"bytes={self.size}, {state})")


REWRITE_SUFFIX = ".ledgerlab-rewrite"
# The facts file's rewrite has a name of its own: ".<name>.facts.ledgerlab-rewrite" would
# be the turn rewrite's name for a journal named "<name>.facts".
FACTS_REWRITE_SUFFIX = ".ledgerlab-facts-rewrite"


# --- Salvage: a way forward for a journal that refuses to open ------------------------------


@dataclass(frozen=True)
class LostLine:
    """A line ``salvage`` could not keep: where it was, and why; its id only as a tag."""

    number: int
    offset: int
    length: int
    problem: str
    id_tag: str | None  # where the payload still names an id


@dataclass(frozen=True)
class Salvaged:
    """What ``salvage`` copied, and every line it could not keep."""

    kept: int  # records written to the new journal, in order
    lost: tuple[LostLine, ...]  # lines holding bytes other than NUL that were not copied
    size: int  # bytes of the new journal
    facts_kept: int = 0  # fact records written to the new journal's facts file
    # the facts file's damaged lines, and the facts whose origin turn was not salvaged
    facts_lost: tuple[LostLine, ...] = ()


def salvage(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> Salvaged:
    """Copy every record of ``source`` that verifies, in order, into a new journal.

    ``source`` is only read, never written or locked: it may be a journal that refuses
    to open. Damaged lines and repeated ids are skipped (the first record of an id
    wins); a verified record at the start of the bytes after the last newline is kept
    too. ``destination`` must not exist: it appears whole or not at all (written under
    a hidden name, synced, then linked into place, which never replaces a file).

    The facts file beside ``source``, if there is one, is salvaged by the same rule
    into ``destination``'s facts file, keeping only the facts whose origin turn was
    salvaged (a fact never outlives its turn). The turn file is written first.
    """
    source, destination = os.fspath(source), os.fspath(destination)
    facts_source, facts_destination = source + FACTS_SUFFIX, destination + FACTS_SUFFIX
    data = _read_for_salvage(source, TURNS)[0]
    for path in (destination, facts_destination):
        if os.path.lexists(path):
            raise JournalError(f"{path!r} exists: salvage writes a new file, never over one")
    kept, lost, seen = _verified(data, examine(data), TURNS)
    facts: tuple[list[bytes], list[LostLine]] | None = None
    if os.path.lexists(facts_source):
        facts_data, facts_lines = _read_for_salvage(facts_source, FACTS)
        facts_kept, facts_lost, _ = _verified(facts_data, facts_lines, FACTS, origins=seen)
        facts = facts_kept, facts_lost
    new_data = b"".join(kept)
    _publish(destination, new_data)
    if facts is None:
        return Salvaged(len(kept), tuple(lost), len(new_data))
    _publish(facts_destination, b"".join(facts[0]))
    return Salvaged(len(kept), tuple(lost), len(new_data), len(facts[0]), tuple(facts[1]))


def _read_for_salvage(path: str, kind: _Kind) -> tuple[bytes, list[LineStatus]]:
    """A journal or facts file's bytes and lines, read without opening it as a Journal."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0)
                     | getattr(os, "O_NOFOLLOW", 0))
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise JournalError(f"cannot salvage {path!r}: not a regular file")
            data = file.read()
        return data, examine(data, kind)
    except OSError as error:
        raise JournalError(f"cannot read {path!r}: {error.strerror}") from None
    except MemoryError:
        raise _too_large(os.stat(path).st_size) from None


def _verified(data: bytes, lines: list[LineStatus], kind: _Kind,
              origins: set[str] | None = None) -> tuple[list[bytes], list[LostLine], set[str]]:
    """The lines to keep, the lines lost, and the ids kept. With ``origins``, a fact whose
    origin is not in it is lost too."""
    kept, lost, seen = [], [], set()
    for line in lines:
        raw = data[line.offset:line.offset + line.length]
        found = ((line.record, len(raw)) if line.record is not None else
                 None if raw.endswith(b"\n") else _leading_record(raw, kind))  # a torn tail
        if found is not None and found[0].id not in seen:
            record, end = found
            if origins is not None and record.fact.origin not in origins:
                lost.append(LostLine(line.number, line.offset, end,
                                     "its origin turn was not salvaged", id_tag(record.id)))
            else:
                kept.append(raw[:end].rstrip(b"\n") + b"\n")
                seen.add(record.id)
            raw = raw[end:]
        if raw.strip(b"\0"):
            lost.append(LostLine(line.number, line.offset, line.length,
                                 line.problem or "", _readable_id(raw)))
    return kept, lost, seen


def _decoded(line: bytes, kind: _Kind = TURNS) -> Record | FactRecord | None:
    try:
        return decode_record(line, kind)
    except ValueError:
        return None


def _readable_id(raw: bytes) -> str | None:
    """The id a damaged line's payload still names, as a tag, or None."""
    try:
        payload = json.loads(base64.b64decode(raw.split(b" ")[0] + b"==="))
    except (ValueError, RecursionError, binascii.Error):
        return None
    turn_id = payload.get("id") if isinstance(payload, dict) else None
    return id_tag(turn_id) if isinstance(turn_id, str) else None


def _publish(destination: str, data: bytes) -> None:
    """Write ``data`` as a new file at ``destination``, whole or not at all."""
    folder, name = os.path.split(os.path.abspath(destination))
    temp = os.path.join(folder, f".{name}.ledgerlab-salvage")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o600)
    except OSError as error:
        raise JournalError(f"cannot write {temp!r}: {error.strerror}; nothing written") from None
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        _link_new(temp, destination)
    except OSError as error:
        raise JournalError(f"cannot write {destination!r}: {error.strerror}; "
                           f"nothing written") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    try:
        fsync_directory(destination)
    except OSError as error:
        raise JournalError(f"{destination!r} is written, but its directory could not be "
                           f"synced: {error.strerror}") from None


def _link_new(temp: str, destination: str) -> None:
    """Give ``temp``'s file the name ``destination``, failing if that name is taken."""
    if hasattr(os, "link"):
        os.link(temp, destination)  # fails if the name was taken meanwhile: never replaces
        return
    # Pyodide has no os.link: claim the name (O_EXCL), then rename onto that claim, which
    # is ours, so nothing else is replaced. A failed rename takes the empty claim back.
    os.close(os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        os.replace(temp, destination)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(destination)
        raise


def _too_large(size: int) -> JournalError:
    return JournalError(f"the journal's {size} bytes do not fit in this process's memory "
                        f"(it reads the whole file); nothing changed")


def _rewrite_path(path: str, suffix: str = REWRITE_SUFFIX) -> str:
    """Where a rewrite writes the new file: a hidden name only a rewrite creates (O_EXCL).

    Not ``<path>.rewrite``, which is a name a user chooses for another journal or a
    backup: this one says whose it is, and it is removed only when provably a leftover.
    """
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}{suffix}")


def _clear_leftover(path: str, journal: bytes) -> bool:
    """Remove a rewrite file that a killed forget or retain left; True if the name is free.

    Only when it is provably ours and abandoned: we can lock it (no live Journal
    holds it) and every line in it is a line of ``journal`` (a rewrite writes
    only kept lines). Anything else under that name is someone's file: left alone.
    """
    if not os.path.lexists(path):
        return True
    try:
        handle = _open_locked(path, create=False)
    except JournalError:  # held by a live Journal, not a regular file, unreadable
        return False
    try:
        if not _lines_within(handle.readall(), journal):
            return False
        os.unlink(path)  # under its lock, so no Journal has it open
        fsync_directory(path)
    except OSError:
        pass  # unreadable, or the unlink not yet durable: what the name holds now decides
    finally:
        handle.close()
    return not os.path.lexists(path)


def _lines_within(data: bytes, journal: bytes) -> bool:
    """Is every line of ``data`` (the last one perhaps cut short) a line of ``journal``?"""
    data = data.rstrip(b"\0")  # a power loss mid-rewrite can leave zeros, as in a journal
    lines = set(journal.splitlines(keepends=True))
    *complete, last = data.split(b"\n")
    return (all(line + b"\n" in lines for line in complete)
            and (not last or any(line.startswith(last) for line in lines)))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _JournalFile(io.FileIO):
    """An open, locked journal file: closing it releases both of its locks."""

    key: tuple[int, int] | None = None  # (st_dev, st_ino) in this process's registry

    def close(self) -> None:
        try:
            super().close()  # closing the descriptor releases its flock
        finally:
            if self.key is not None:
                with _HELD_LOCK:
                    _HELD.discard(self.key)
                self.key = None


# The files this process's Journals hold. flock already refuses a second open of
# the same file; without flock (Pyodide), this registry is the whole lock.
_HELD: set[tuple[int, int]] = set()
_HELD_LOCK = threading.Lock()


def _lock(handle: _JournalFile, path: str) -> bool:
    """Lock an open journal file against every other Journal; False if one holds it."""
    opened = os.fstat(handle.fileno())
    key = (opened.st_dev, opened.st_ino)
    with _HELD_LOCK:
        if key in _HELD:
            return False
        _HELD.add(key)
    handle.key = key
    if portalocker is None:
        return True  # no OS lock here: the registry guards this process only
    try:
        portalocker.lock(handle,
                         portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked:
        return False
    except portalocker.LockException as error:  # e.g. ENOLCK on an NFS mount without locks
        cause = error.__cause__ if isinstance(error.__cause__, OSError) else None
        reason = (cause.strerror if cause is not None and cause.strerror
                  else type(error).__name__)
        raise JournalError(f"cannot lock journal {path!r}: {reason} (a file system "
                           f"without locks, such as NFS mounted nolock?); nothing was "
                           f"written") from None
    return True


_OPEN_FLAGS = (os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_NOFOLLOW", 0))


def _reopened(handle: _JournalFile, path: str) -> _JournalFile:
    """``handle``'s file opened again under ``path``, the registry's hold moved to it.

    Only without an OS lock: Emscripten's file system answers fstat by the name a
    descriptor was opened with, so a renamed file's descriptor stops answering.
    """
    again = _JournalFile(os.open(path, _OPEN_FLAGS), "r+")
    again.key, handle.key = handle.key, None
    handle.close()
    return again


def _open_locked(path: str, *, create: bool = True, exclusive: bool = False) -> _JournalFile:
    """Open (creating owner-only if missing and ``create``) and lock the journal file.

    ``exclusive`` creates a new file or fails. A rewrite by another Journal may
    rename a new file over the path between our open and our lock: then the
    lock we got guards a file with no name, so check and try again.
    """
    flags = _OPEN_FLAGS
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise JournalError(f"cannot open journal {path!r}: not a regular file")
    for _ in range(3):
        created = False
        try:
            if create:
                try:
                    fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
                    created = True
                except FileExistsError:
                    if exclusive:
                        raise
                    fd = os.open(path, flags)
            else:
                fd = os.open(path, flags)
        except OSError as error:
            raise JournalError(f"cannot open journal {path!r}: {error.strerror}") from None
        handle = _JournalFile(fd, "r+")
        try:
            if not _lock(handle, path):
                raise JournalLocked(f"journal {path!r} is already open in another Journal")
            if _same_file(handle.fileno(), path):
                break
        except JournalLocked:
            handle.close()  # another Journal holds it, even one that raced us to create it
            raise
        except BaseException:
            handle.close()
            if created:  # we could not lock it, and wrote nothing: take back the empty file
                with contextlib.suppress(OSError):
                    os.unlink(path)
            raise
        handle.close()
    else:
        raise JournalLocked(f"journal {path!r} keeps being replaced by another Journal")
    if created:
        try:
            fsync_directory(path)
        except OSError as error:
            # Not durable, so not created: take the empty file back while we hold it.
            with contextlib.suppress(OSError):
                os.unlink(path)
            handle.close()
            state = "the empty file remains" if os.path.lexists(path) else "nothing was created"
            raise JournalError(f"cannot create journal {path!r}: syncing its directory "
                               f"failed ({error.strerror}); {state}") from None
    return handle


def _same_file(fd: int, path: str) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)
