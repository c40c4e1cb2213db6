"""The journal: a durable, append-only ledger of confirmed turns.

One line per turn, byte-compatible with the Java reference::

    base64(payload) SP sha256_hex(payload) LF

where ``payload`` is ``{"id":...,"question":...,"answer":...}`` serialized like a
request (the gson encoder). The contract:

- one writer: the file itself is locked (flock on POSIX); a second Journal on
  the same file, in this process or another, raises JournalLocked;
- every commit is fsynced before it returns;
- on open, a torn final line (a prefix of a record, then perhaps NUL padding)
  is cut and the cut is synced; a whole record missing only its newline is kept
  and the newline restored; any other bad line refuses to open (JournalCorrupt);
- commit is idempotent by id; the same id with another question is TurnConflict;
- the file never grows past ``max_bytes`` (JournalFull, file unchanged);
- ``forget`` and ``retain`` delete turns for real: one crash-safe rewrite (temp
  file, fsync, rename, fsync the directory), then the old bytes are overwritten.

The journal stores turns; it knows nothing of requests or budgets. Error
messages carry offsets, sizes and hashes, never conversation text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import stat
import threading
from dataclasses import dataclass
from typing import NoReturn

import portalocker

from .wire import ENCODERS, InvalidText, Turn, check_int, check_text

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
RECORD_KEYS = ["id", "question", "answer"]
_HEX_DIGITS = frozenset(b"0123456789abcdef")
# What a write cut short can leave: a prefix of a record line (every line starts
# with the base64 of '{"id":"'), then possibly NUL bytes from a power loss.
_LINE_START = base64.b64encode(b'{"id":"')[:9]
_LINE_PREFIX = re.compile(rb"[A-Za-z0-9+/=]*(?: [0-9a-f]{0,64})?")
_LINE_WITHOUT_NEWLINE = re.compile(rb"[A-Za-z0-9+/=]* [0-9a-f]{64}")


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


@dataclass(frozen=True)
class Record:
    """One decoded journal line."""

    id: str
    turn: Turn
    sha256: str  # the line's checksum of its payload

    def __repr__(self) -> str:  # ids may be private too
        return f"Record({id_tag(self.id)}, {self.turn!r}, sha256={self.sha256[:12]})"


@dataclass(frozen=True)
class LineStatus:
    """What one line of a journal file holds: a record, or the problem with it."""

    number: int
    offset: int
    length: int
    record: Record | None
    problem: str | None
    torn: bool = False  # an incomplete final line that a cut-short write explains
    unterminated: bool = False  # a valid final record whose newline is missing


def id_tag(turn_id: str) -> str:
    """A short stable name for an id that does not reveal it."""
    return "id#" + hashlib.sha256(turn_id.encode("utf-8")).hexdigest()[:12]


def check_id(turn_id: object) -> str:
    """An id is a non-empty str that UTF-8 can encode."""
    check_text(turn_id, "id")
    if not turn_id:
        raise InvalidText("id must not be empty")
    return turn_id


def encode_record(turn_id: str, question: str, answer: str) -> bytes:
    """The journal line for one turn, newline included."""
    payload = ENCODERS["gson"].dumps({"id": turn_id, "question": question, "answer": answer})
    digest = hashlib.sha256(payload).hexdigest()
    return base64.b64encode(payload) + b" " + digest.encode("ascii") + b"\n"


def decode_record(line: bytes) -> Record:
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
        pairs = json.loads(payload.decode("utf-8"), object_pairs_hook=lambda p: p)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("payload is not UTF-8 JSON") from None
    if not isinstance(pairs, list) or [key for key, _ in pairs] != RECORD_KEYS:
        raise ValueError("payload is not an {id, question, answer} object")
    turn_id, question, answer = (value for _, value in pairs)
    try:
        turn = Turn(question, answer)
        check_id(turn_id)
    except InvalidText as error:
        raise ValueError(f"payload field is invalid: {error}") from None
    return Record(turn_id, turn, digest.decode("ascii"))


def is_torn_tail(tail: bytes) -> bool:
    """Could a cut-short append have left these bytes after the last newline?

    Anything else (a changed final newline, a file that is not a journal) is
    corruption, not a torn write: cutting it would lose data silently.
    """
    written = tail.rstrip(b"\0")
    if len(written) < len(tail) and _LINE_WITHOUT_NEWLINE.fullmatch(written):
        return False  # a NUL where the newline belongs: a changed byte, not a short write
    return (written[:len(_LINE_START)] == _LINE_START[:len(written)]
            and _LINE_PREFIX.fullmatch(written) is not None)


def examine(data: bytes) -> list[LineStatus]:
    """Every line of a journal file with its record or its problem.

    A final line without a newline is a valid record whose newline is missing
    (kept: its checksum proves it whole), a torn tail when a cut-short write could
    have left it, and corrupt otherwise. Duplicate ids are problems too.
    """
    statuses = []
    seen: set[str] = set()
    offset = 0
    number = 0
    while offset < len(data):
        number += 1
        end = data.find(b"\n", offset)
        if end == -1:
            length = len(data) - offset
            try:
                record = decode_record(data[offset:])
            except ValueError:
                record = None
            if record is not None and record.id not in seen:
                statuses.append(LineStatus(number, offset, length, record, None,
                                           unterminated=True))
            elif is_torn_tail(data[offset:]):
                statuses.append(LineStatus(number, offset, length, None, "torn tail", torn=True))
            else:
                statuses.append(LineStatus(number, offset, length, None,
                                           "incomplete final line is not a torn record"))
            break
        record, problem = None, None
        try:
            record = decode_record(data[offset:end])
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


class Journal:
    """The append-only ledger of one conversation. Use it as a context manager."""

    def __init__(self, path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
                 create: bool = True) -> None:
        # The real path: a rewrite must replace the file itself, not a symlink to it,
        # and must not follow a later chdir.
        self.path = os.path.realpath(os.fspath(path))
        self.max_bytes = check_int(max_bytes, "max_bytes", minimum=1)
        self._mutex = threading.Lock()  # flock does not stop threads sharing one handle
        self._turns: dict[str, Turn] = {}
        self._size = 0
        if not create and not os.path.isfile(self.path):
            raise JournalError(f"no journal at {os.fspath(path)!r}")
        self._file = _open_locked(self.path)
        try:
            self._load()
            _remove_stale(_rewrite_path(self.path))
        except BaseException:
            self._file.close()
            self._file = None
            raise

    def _load(self) -> None:
        fd = self._file.fileno()
        size = os.fstat(fd).st_size
        if size > self.max_bytes:
            raise JournalFull(f"journal is {size} bytes, over its cap of {self.max_bytes} bytes")
        os.lseek(fd, 0, os.SEEK_SET)
        data = self._file.readall()
        good = 0
        for line in examine(data):
            if line.torn:
                break
            if line.problem is not None:
                raise JournalCorrupt(
                    f"line {line.number} at byte offset {line.offset} is corrupt: {line.problem}"
                )
            self._turns[line.record.id] = line.record.turn
            good = line.offset + line.length
        if good < len(data):
            # A torn write: cut it off, and make the cut durable before going on.
            os.ftruncate(fd, good)
            os.fsync(fd)
        elif data and not data.endswith(b"\n"):
            # A whole record without its newline: restore the newline durably.
            os.lseek(fd, good, os.SEEK_SET)
            _write_all(fd, b"\n")
            os.fsync(fd)
            good += 1
        self._size = good

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
            if self._size + len(line) > self.max_bytes:
                raise JournalFull(
                    f"a {len(line)}-byte record would grow the journal from {self._size} bytes "
                    f"past its cap of {self.max_bytes} bytes; file unchanged"
                )
            self._append(line)
            self._turns[turn_id] = turn
            self._size += len(line)
            return answer

    def _append(self, line: bytes) -> None:
        fd = self._file.fileno()
        try:
            os.lseek(fd, self._size, os.SEEK_SET)
            _write_all(fd, line)
            os.fsync(fd)
        except OSError as error:
            self._fail("commit", error)

    def _fail(self, action: str, error: OSError) -> NoReturn:
        # After a failed write or fsync the data may already be lost: never
        # retry and acknowledge. Close, so that reopening re-reads the file.
        self._close_file()
        raise JournalError(
            f"{action} not acknowledged: {error.strerror or error}; the journal is closed, "
            f"reopen it to see what it holds"
        ) from error

    def forget(self, turn_id: str) -> None:
        """Delete one turn: its text leaves the file; the other lines stay byte-identical."""
        check_text(turn_id, "id")
        with self._mutex:
            self._check_open()
            if turn_id not in self._turns:
                raise TurnNotFound(f"{id_tag(turn_id)} is not in the journal; nothing changed")
            self._rewrite(lambda record: record.id != turn_id)

    def retain(self, *, last: int) -> int:
        """Keep only the newest ``last`` turns; return how many were deleted."""
        check_int(last, "last", minimum=0)
        with self._mutex:
            self._check_open()
            doomed = set(list(self._turns)[:max(0, len(self._turns) - last)])
            if doomed:
                self._rewrite(lambda record: record.id not in doomed)
            return len(doomed)

    def _rewrite(self, keep) -> None:
        """Replace the file with the lines ``keep`` accepts, crash-safely.

        A kill at any point leaves either the old file or the new one under the
        path. The new file is locked before it takes the name, so the lock still
        guards the path; the old bytes are overwritten only once the new file is
        durably in place, so a crash cannot destroy the only copy.
        """
        old = self._file
        temp = _rewrite_path(self.path)
        links = os.fstat(old.fileno()).st_nlink
        if links != 1 or not _same_file(old.fileno(), self.path):
            raise JournalError(
                f"journal has {links} names or was moved; deleting through one name would "
                f"leave the text under the others: nothing changed")
        try:
            os.lseek(old.fileno(), 0, os.SEEK_SET)
            data = old.readall()
            kept = [line for line in examine(data) if keep(line.record)]
            new_data = b"".join(data[line.offset:line.offset + line.length] for line in kept)
            _remove_stale(temp)
            new = _open_locked(temp, exclusive=True)
        except OSError as error:
            self._fail("rewrite", error)
        try:
            _write_all(new.fileno(), new_data)
            os.fsync(new.fileno())
            os.replace(temp, self.path)
            fsync_directory(self.path)
        except OSError as error:
            new.close()
            self._fail("rewrite", error)
        self._file = new
        self._turns = {line.record.id: line.record.turn for line in kept}
        self._size = len(new_data)
        try:  # the old inode has no name now; destroy its bytes, then let it go
            os.lseek(old.fileno(), 0, os.SEEK_SET)
            _write_all(old.fileno(), b"\0" * len(data))
            os.fsync(old.fileno())
        except OSError as error:
            raise JournalError(
                f"the journal no longer holds the deleted turns, but the old file's bytes "
                f"could not be overwritten: {error.strerror or error}") from error
        finally:
            old.close()

    def history(self) -> list[Turn]:
        """The stored turns in commit order (a copy)."""
        with self._mutex:
            self._check_open()
            return list(self._turns.values())

    def find(self, turn_id: str) -> Turn | None:
        """The turn stored under ``turn_id``, or None."""
        check_text(turn_id, "id")
        with self._mutex:
            self._check_open()
            return self._turns.get(turn_id)

    @property
    def size(self) -> int:
        """Bytes of the journal file."""
        return self._size

    def __len__(self) -> int:
        return len(self._turns)

    def close(self) -> None:
        """Release the lock and the file. Safe to call twice."""
        with self._mutex:
            self._close_file()

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()  # closing the handle releases its flock
            self._file = None

    def _check_open(self) -> None:
        if self._file is None:
            raise JournalError("journal is closed")

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self._file is not None else "closed"
        return f"Journal({self.path!r}, turns={len(self._turns)}, bytes={self._size}, {state})"


def _rewrite_path(path: str) -> str:
    return path + ".rewrite"


def _remove_stale(path: str) -> None:
    """Remove what a rewrite cut short left behind (it holds only kept turns)."""
    if os.path.lexists(path):
        os.unlink(path)
        fsync_directory(path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _open_locked(path: str, *, exclusive: bool = False):
    """Open (creating owner-only if missing) and lock the journal file.

    ``exclusive`` creates a new file or fails. A rewrite by another Journal may
    rename a new file over the path between our open and our lock: then the
    lock we got guards a file with no name, so check and try again.
    """
    flags = os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise JournalError(f"cannot open journal {path!r}: not a regular file")
    for _ in range(3):
        try:
            try:
                fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
                created = True
            except FileExistsError:
                if exclusive:
                    raise
                fd = os.open(path, flags)
                created = False
        except OSError as error:
            raise JournalError(f"cannot open journal {path!r}: {error.strerror}") from None
        handle = os.fdopen(fd, "r+b", buffering=0)
        try:
            portalocker.lock(handle,
                             portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
            if _same_file(handle.fileno(), path):
                break
        except portalocker.AlreadyLocked:
            handle.close()
            raise JournalLocked(f"journal {path!r} is already open in another Journal") from None
        except BaseException:
            handle.close()
            raise
        handle.close()
    else:
        raise JournalLocked(f"journal {path!r} keeps being replaced by another Journal")
    if created:
        fsync_directory(path)
    return handle


def _same_file(fd: int, path: str) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)
