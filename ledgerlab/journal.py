"""The journal: a durable, append-only ledger of confirmed turns.

One line per turn, byte-compatible with the Java reference::

    base64(payload) SP sha256_hex(payload) LF

where ``payload`` is ``{"id":...,"question":...,"answer":...}`` serialized like a
request (the gson encoder). The contract:

- one writer: the file itself is locked (flock on POSIX); a second Journal on
  the same file, in this process or another, raises JournalLocked. Where the OS
  has no flock (Pyodide, a stubbed ``fcntl``), the lock guards only this process:
  a registry of the files this process's Journals hold, nothing more;
- every commit is fsynced before it returns;
- on open, the bytes after the last newline (NUL padding stripped) are a torn
  tail if a cut-short append could have written them: any prefix of a record
  line, the whole line without its newline included (its fsync never returned,
  so it was never acknowledged). A torn tail is cut and the cut is synced; any
  other bad line refuses to open (JournalCorrupt) and changes nothing;
- commit is idempotent by id; the same id with another question is TurnConflict;
- the file never grows past ``max_bytes`` (JournalFull, file unchanged); a file
  already over it is refused on open unless ``max_bytes=None`` (no cap: deleting
  from an oversized journal must stay possible, and it never grows the file);
- ``forget`` and ``retain`` delete turns for real: one crash-safe rewrite (temp
  file, fsync, rename, fsync the directory), then the old bytes are overwritten.

The journal stores turns; it knows nothing of requests or budgets. Error
messages carry offsets, sizes and hashes, never conversation text.
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
import threading
from dataclasses import dataclass
from typing import NoReturn

try:
    import portalocker
except (ImportError, AttributeError):  # no fcntl.flock or LOCK_EX (Pyodide): in-process lock only
    portalocker = None

from .wire import ENCODERS, InvalidText, Turn, check_int, check_text

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
RECORD_KEYS = ["id", "question", "answer"]
_HEX_DIGITS = frozenset(b"0123456789abcdef")
_BASE64_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
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
    torn: bool = False  # bytes after the last newline that a cut-short append explains
    unterminated: bool = False  # a torn tail holding a whole record but not its newline


class _Pairs(list):
    """A JSON object's key/value pairs, told apart from a JSON array."""


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
        pairs = json.loads(payload.decode("utf-8"), object_pairs_hook=_Pairs)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError("payload is not UTF-8 JSON") from None
    except RecursionError:  # a checksum-valid payload can still be hostile
        raise ValueError("payload JSON is nested too deeply") from None
    if type(pairs) is not _Pairs or [key for key, _ in pairs] != RECORD_KEYS:
        raise ValueError("payload is not an {id, question, answer} object")
    turn_id, question, answer = (value for _, value in pairs)
    try:
        turn = Turn(question, answer)
        check_id(turn_id)
    except InvalidText as error:
        raise ValueError(f"payload field is invalid: {error}") from None
    return Record(turn_id, turn, digest.decode("ascii"))


def is_torn_tail(tail: bytes) -> bool:
    """Could a cut-short append of one record have left these bytes after the last newline?

    Yes for any prefix of a record line, the whole line without its newline
    included, followed perhaps by the NUL bytes a power loss leaves. No for
    anything an append cannot write: a final newline replaced by another byte,
    a checksum (or a prefix of one) that is not the payload's, base64 that no
    canonical encoding starts with. Cutting those would lose data silently.
    """
    written = tail.rstrip(b"\0")
    if written[:len(_LINE_START)] != _LINE_START[:len(written)]:
        return False
    encoded, space, digest = written.partition(b" ")
    if not _is_base64_prefix(encoded, complete=bool(space)):
        return False
    if not space:
        return True
    # The payload is whole: the digest must begin the one its append was writing.
    expected = hashlib.sha256(base64.b64decode(encoded)).hexdigest().encode("ascii")
    if not expected.startswith(digest):
        return False
    try:
        decode_record(encoded + b" " + expected)
    except ValueError:
        return False
    return True


def _is_base64_prefix(encoded: bytes, *, complete: bool) -> bool:
    """Is ``encoded`` the start of a canonical base64 text (all of it, if ``complete``)?"""
    body = encoded.rstrip(b"=")
    if not _BASE64_ALPHABET.issuperset(body):
        return False  # a stray byte, or '=' before the end
    padding = len(encoded) - len(body)
    if not padding and not complete:
        return True  # more groups may follow
    rest = len(body) % 4
    needed = (4 - rest) % 4
    if rest == 1 or padding > needed or (complete and padding != needed):
        return False
    # The last group's unused bits must be zero ("YR==" is not canonical, "YQ==" is).
    group = body[len(body) - rest:] + b"=" * needed
    return not rest or base64.b64encode(base64.b64decode(group)) == group


def examine(data: bytes) -> list[LineStatus]:
    """Every line of a journal file with its record or its problem.

    Bytes after the last newline are a torn tail (problem ``"torn tail"``) when a
    cut-short append could have left them, ``unterminated`` when they hold a whole
    record without its newline; otherwise the final line is corrupt. Duplicate
    ids are problems too.
    """
    statuses = []
    seen: set[str] = set()
    offset = 0
    number = 0
    while offset < len(data):
        number += 1
        end = data.find(b"\n", offset)
        if end == -1:
            tail = data[offset:]
            if is_torn_tail(tail):
                whole = len(tail.rstrip(b"\0").partition(b" ")[2]) == 64
                statuses.append(LineStatus(number, offset, len(tail), None, "torn tail",
                                           torn=True, unterminated=whole))
            else:
                statuses.append(LineStatus(number, offset, len(tail), None,
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

    def __init__(self, path: str | os.PathLike[str], *,
                 max_bytes: int | None = DEFAULT_MAX_BYTES, create: bool = True) -> None:
        # The real path: a rewrite must replace the file itself, not a symlink to it,
        # and must not follow a later chdir.
        self.path = os.path.realpath(os.fspath(path))
        self.max_bytes = None if max_bytes is None else check_int(max_bytes, "max_bytes",
                                                                  minimum=1)
        self._mutex = threading.Lock()  # flock does not stop threads sharing one handle
        self._turns: dict[str, Turn] = {}
        self._size = 0
        if not create and not os.path.isfile(self.path):
            raise JournalError(f"no journal at {os.fspath(path)!r}")
        self._file = _open_locked(self.path)
        try:
            data = self._load()
            _clear_leftover(_rewrite_path(self.path), data)
        except BaseException:
            self._close_file()
            raise

    def _load(self) -> bytes:
        """Read and check every line, cut a torn tail; return the bytes kept."""
        fd = self._file.fileno()
        try:
            size = os.fstat(fd).st_size
            if self.max_bytes is not None and size > self.max_bytes:
                raise JournalFull(
                    f"journal is {size} bytes, over its cap of {self.max_bytes} bytes")
            os.lseek(fd, 0, os.SEEK_SET)
            data = self._file.readall()
        except OSError as error:
            raise JournalError(f"cannot read journal {self.path!r}: {error.strerror}; "
                               f"nothing changed") from None
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
            # A torn write, never acknowledged: cut it off, and make the cut durable.
            try:
                os.ftruncate(fd, good)
                os.fsync(fd)
            except OSError as error:
                raise JournalError(
                    f"cannot cut the {len(data) - good}-byte torn tail of {self.path!r}: "
                    f"{error.strerror}; the journal is not open, the tail may remain") from None
        self._size = good
        return data[:good]

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
            if self.max_bytes is not None and self._size + len(line) > self.max_bytes:
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
        except OSError as error:
            self._fail("rewrite", error)
        if not _clear_leftover(temp, data):
            raise JournalError(
                f"cannot rewrite: {temp!r} exists and is not a leftover of this journal "
                f"(another journal, or held open); nothing changed")
        new = _open_locked(temp, exclusive=True)  # never takes a name that exists
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
            self._file.close()  # releases its locks
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


def _lock(handle: _JournalFile) -> bool:
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
    return True


def _open_locked(path: str, *, create: bool = True, exclusive: bool = False) -> _JournalFile:
    """Open (creating owner-only if missing and ``create``) and lock the journal file.

    ``exclusive`` creates a new file or fails. A rewrite by another Journal may
    rename a new file over the path between our open and our lock: then the
    lock we got guards a file with no name, so check and try again.
    """
    flags = (os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_NOFOLLOW", 0))
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
            if not _lock(handle):
                raise JournalLocked(f"journal {path!r} is already open in another Journal")
            if _same_file(handle.fileno(), path):
                break
        except BaseException:
            handle.close()
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
