"""The journal: a durable, append-only ledger of confirmed turns, and the facts pinned from them.

The line format is in ``records``, the files and their lock in ``files``. The contract:

- one writer: the file itself is locked (flock on POSIX); a second Journal on
  the same file, in this process or another, raises JournalLocked. Where the OS
  has no working flock (Pyodide: no ``fcntl.flock`` in 0.27, one that locks nothing
  in 314 and later), the lock guards only this process: a registry of the files
  this process's Journals hold. Another process can then open the same file and
  overwrite acknowledged turns. A Journal belongs to the process that opened it: in a
  forked child, which shares its lock, every method that reads or writes raises
  JournalForked and changes nothing (``close`` there closes only the child's copies
  of the descriptors, which leaves the opener's lock held);
- every commit is fsynced before it returns, and first checks that the file still has
  its name (else JournalMoved, nothing written: a turn written to a removed or
  renamed file would be missing when the journal is reopened);
- a commit is acknowledged once its newline is synced, so nothing after the last
  newline ever was: on open it is cut, whatever it holds (part of a record, a
  whole record without its newline, NULs after or inside it, stale bytes a crash
  exposed), and the cut is synced. One exception refuses instead: a verified
  record line followed by a byte that is not NUL where its newline belongs (an
  acknowledged record whose newline was overwritten). The file's last line is cut
  too when its first byte is NUL: one append whose newline's page reached the disk
  and whose first page did not (a record line never begins with NUL). Any other
  complete line that is not a valid record, or repeats an id, refuses to open
  (JournalCorrupt) and changes nothing;
- one commit is one line holding the whole turn (its question's parts, its tool rounds,
  its answer), so a tool call is never on disk without its results;
- commit is idempotent by id; the same id with another question or other tool rounds
  is TurnConflict;
- the file never grows past ``max_bytes`` (JournalFull, file unchanged); a file
  already over it is refused on open unless ``max_bytes=None`` (no cap: deleting
  from an oversized journal must stay possible, and it never grows the file);
- ``forget`` and ``retain`` delete turns for real: one crash-safe rewrite (a new
  file at a fresh hidden name, fsync, a hidden second name for the old file, rename,
  fsync the directory), then the old bytes are overwritten; if a kill comes first,
  the next open overwrites them.

Pinned facts live beside the turns in ``<path>.facts`` (so the turn file stays
one the Java reference reads): the same line format with the payload
``{"id":...,"text":...,"origin":...}``, the same checks, recovery, cap and lock
(the turn file's lock is taken first; the facts file is locked too). A fact's
origin is a stored turn, and deletion follows it: ``forget`` and ``retain``
rewrite the facts file before the turn file, so a kill between the two leaves
the turn with none of its facts (repeating the deletion completes it), and on
open any fact whose origin is gone is deleted (see ``Journal`` for what opening
writes). A facts file without its turn file is damage, not a new journal: opening
refuses (JournalCorrupt) and creates nothing.

The journal stores turns and facts; it knows nothing of requests or budgets.
Error messages carry offsets, sizes and hashes, never conversation text.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import NoReturn

from ..checks import check_id, check_int, check_text, id_tag
from ..turns import Fact, Turn
from .errors import (
    FactConflict,
    FactNotFound,
    JournalCorrupt,
    JournalError,
    JournalForked,
    JournalFull,
    JournalMoved,
    OriginNotFound,
    TurnConflict,
    TurnNotFound,
    too_large,
)
from .files import (
    FACTS_REWRITE_SUFFIX,
    FACTS_SUFFIX,
    JournalFile,
    clear_leftover,
    destroy,
    open_locked,
    replace,
    rewrite_path,
    same_file,
    write_all,
)
from .records import FACTS, TURNS, Kind, Record, encode_fact, encode_turn, scan

DEFAULT_MAX_BYTES = 4 * 1024 * 1024


class _Store:
    """One locked file of records (the turns, or the facts) and how many bytes it holds."""

    def __init__(self, path: str, kind: Kind, temp: str) -> None:
        self.path, self.kind, self.temp = path, kind, temp
        self.file: JournalFile | None = None  # the facts file's is None until a first pin
        self.size = 0

    @property
    def where(self) -> str:
        """How messages name a line's file: the turn journal's as they always have."""
        return "" if self.kind is TURNS else "the facts file's "


class Journal:
    """The append-only ledger of one conversation, and the facts pinned from its turns.

    Use it as a context manager. The turns are in the file at ``path``, in the
    reference's format (a turn with tool rounds or a question of parts adds ``parts``
    and ``steps`` to its payload, keys the reference ignores); the facts beside it in ``<path>.facts`` (created by the
    first ``pin``), in the same line format with payload ``{"id","text","origin"}``.
    The turn file's lock is taken first and guards both; the facts file is locked too.

    Opening reads both files whole and can write to them, in this order:

    1. a torn tail of the turn file is cut, and the cut synced (``_load``);
    2. a leftover of a killed rewrite of the turn file is removed, if provably one;
    3. the same two for the facts file;
    4. every fact whose origin is not a stored turn is deleted: the facts file is
       rewritten, crash-safely, as ``forget`` rewrites it (``_delete_orphan_facts``).

    Nothing else is written on open; a file that does not check out refuses to open
    and is left unchanged.
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 max_bytes: int | None = DEFAULT_MAX_BYTES, create: bool = True) -> None:
        # The real path: a rewrite must replace the file itself, not a symlink to it,
        # and must not follow a later chdir.
        self.path = os.path.realpath(os.fspath(path))
        self.max_bytes = None if max_bytes is None else check_int(max_bytes, "max_bytes",
                                                                  minimum=1)
        self._mutex = threading.Lock()  # flock does not stop threads sharing one handle
        self._pid = os.getpid()  # a child forked from this process shares the lock: refused
        self._turns: dict[str, Turn] = {}
        self._facts: dict[str, Fact] = {}
        self._turn_store = _Store(self.path, TURNS, rewrite_path(self.path))
        self._fact_store = _Store(self.path + FACTS_SUFFIX, FACTS,
                                  rewrite_path(self.path, FACTS_REWRITE_SUFFIX))
        if os.path.lexists(self._fact_store.path) and not os.path.lexists(self.path):
            raise JournalCorrupt(
                f"{self._fact_store.path!r} exists but its journal {self.path!r} does not: a "
                f"facts file without its turn file is damage, not a new journal; nothing "
                f"created")
        if not create and not os.path.isfile(self.path):
            raise JournalError(f"no journal at {os.fspath(path)!r}")
        self._turn_store.file = open_locked(self.path)
        try:
            records, data = self._load(self._turn_store)
            self._turns = {record.id: record.turn for record in records}
            clear_leftover(self._turn_store.temp, data)
            self._open_facts()
            self._delete_orphan_facts()
        except BaseException:
            self._close_file()
            raise

    def _open_facts(self) -> None:
        """Load the facts file, if there is one (cutting its torn tail), and clear its leftover."""
        store = self._fact_store
        records, data = [], b""
        if os.path.lexists(store.path):
            store.file = open_locked(store.path, create=False)
            records, data = self._load(store)
        self._facts = {record.id: record.fact for record in records}
        clear_leftover(store.temp, data)

    def _delete_orphan_facts(self) -> None:
        """The one step of opening that rewrites a file: delete the facts whose origin is gone.

        forget and retain rewrite the facts before the turns, so a kill between the
        two leaves no such fact; a turn file cut or replaced under its facts can.
        Either way its origin is gone, and a fact never outlives its turn: finish the
        deletion. Without such a fact nothing is written.
        """
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
            records = []
            good = 0
            # One line at a time: the first problem refuses before the rest is looked at,
            # so a file of a million bad lines costs no more than one.
            for line in scan(data, store.kind):
                if line.torn:
                    break
                if line.problem is not None:
                    raise JournalCorrupt(f"{store.where}line {line.number} at byte offset "
                                         f"{line.offset} is corrupt: {line.problem}")
                records.append(line.record)
                good = line.offset + line.length
        except OSError as error:
            raise JournalError(f"cannot read {store.kind.name} {store.path!r}: "
                               f"{error.strerror}; nothing changed") from None
        except MemoryError:
            raise too_large(size) from None
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

    def commit(self, turn_id: str, question: str | tuple, answer: str, *,
               steps: tuple = ()) -> str:
        """Store a confirmed turn durably and return the stored answer.

        ``question`` is a str or a tuple of parts (str and Image); ``steps`` the tool
        rounds before the answer, as ``Turn`` takes them. The whole turn is one line,
        written and synced at once: a call is never on disk without its results.

        Idempotent by id: committing an id again with the same question and steps
        writes nothing and returns the answer stored first; another question or other
        steps is TurnConflict.
        """
        check_id(turn_id)
        turn = Turn(question, answer, steps)  # validates the texts, parts and rounds
        with self._in_use():
            stored = self._turns.get(turn_id)
            if stored is not None:
                if stored.question != turn.question:
                    raise TurnConflict(f"{id_tag(turn_id)} is already stored with another "
                                       f"question; nothing written")
                if stored.steps != turn.steps:
                    raise TurnConflict(f"{id_tag(turn_id)} is already stored with other tool "
                                       f"rounds; nothing written")
                return stored.answer
            line = encode_turn(turn_id, turn)
            self._check_room(self._turn_store, line)
            self._check_named(self._turn_store, "commit")
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
        with self._in_use():
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
            self._check_named(self._turn_store, "pin")  # else its origin is gone on reopen
            if store.file is None:  # the first pin: a new file, never one that appeared since
                store.file = open_locked(store.path, exclusive=True)
            else:
                self._check_named(store, "pin")
            self._append(store, line, "pin")
            self._facts[fact_id] = fact
            return fact

    def _check_room(self, store: _Store, line: bytes) -> None:
        if self.max_bytes is not None and store.size + len(line) > self.max_bytes:
            raise JournalFull(
                f"a {len(line)}-byte record would grow the {store.kind.name} from "
                f"{store.size} bytes past its cap of {self.max_bytes} bytes; file unchanged")

    def _check_named(self, store: _Store, action: str) -> None:
        """Refuse to write to a file that lost its name: reopening the name would not see it.

        Checked before writing, so a refusal writes nothing. A rename after the check
        is not caught; one before it (a user moving the file, a salvage put in its
        place) is.
        """
        try:
            named = same_file(store.file.fileno(), store.path)
        except OSError as error:
            raise JournalError(f"{action} not acknowledged: cannot check that {store.path!r} "
                               f"is still the {store.kind.name}: {error.strerror}; nothing "
                               f"written") from None
        if not named:
            raise JournalMoved(
                f"{action} not acknowledged: the {store.kind.name} {store.path!r} was removed, "
                f"renamed or replaced since this Journal opened it; nothing written (open "
                f"the journal where it is now)")

    def _append(self, store: _Store, line: bytes, action: str) -> None:
        fd = store.file.fileno()
        try:
            os.lseek(fd, store.size, os.SEEK_SET)
            write_all(fd, line)
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
        with self._in_use():
            if turn_id not in self._turns:
                raise TurnNotFound(f"{id_tag(turn_id)} is not in the journal; nothing changed")
            self._drop_facts(lambda fact: fact.origin != turn_id)
            self._drop_turns(lambda record: record.id != turn_id)

    def retain(self, *, last: int) -> int:
        """Keep only the newest ``last`` turns and their facts; return how many turns were deleted."""
        check_int(last, "last", minimum=0)
        with self._in_use():
            doomed = set(list(self._turns)[:max(0, len(self._turns) - last)])
            if doomed:
                self._drop_facts(lambda fact: fact.origin not in doomed)  # first, as in forget
                self._drop_turns(lambda record: record.id not in doomed)
            return len(doomed)

    def unpin(self, fact_id: str) -> None:
        """Delete one fact for real, as ``forget`` deletes a turn."""
        check_text(fact_id, "id")
        with self._in_use():
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
        durably in place, so a crash cannot destroy the only copy. Until then the old
        file keeps a hidden name, so an open after a kill overwrites them instead
        (``files.replace``, ``files.clear_leftover``).
        """
        old, kind = store.file, store.kind
        links = os.fstat(old.fileno()).st_nlink
        if links != 1 or not same_file(old.fileno(), store.path):
            raise JournalError(
                f"{kind.name} has {links} names or was moved; deleting through one name "
                f"would leave the text under the others: nothing changed")
        try:
            os.lseek(old.fileno(), 0, os.SEEK_SET)
            data = old.readall()
            kept = [line for line in scan(data, kind) if keep(line.record)]
            new_data = b"".join(data[line.offset:line.offset + line.length] for line in kept)
        except OSError as error:
            self._fail("rewrite", error)
        except MemoryError:
            raise too_large(store.size) from None
        try:
            new, old_name = replace(old, store.path, store.temp, new_data)
        except OSError as error:
            self._fail("rewrite", error)
        store.file = new
        store.size = len(new_data)
        try:  # the old file is only under a hidden name now: destroy its bytes, then let it go
            destroy(old, len(data), old_name)
        except OSError as error:
            raise JournalError(
                f"the {kind.name} no longer holds the deleted {kind.items}, but the old "
                f"file's bytes could not be overwritten: {error.strerror or error}") from error
        return [line.record for line in kept]

    def history(self) -> list[Turn]:
        """The stored turns in commit order (a copy)."""
        with self._in_use():
            return list(self._turns.values())

    def ids(self) -> tuple[str, ...]:
        """The stored turns' ids in commit order, oldest first: what ``forget``, ``find``
        and ``pin(origin=...)`` take. ``ids()[i]`` is the id of ``history()[i]``."""
        with self._in_use():
            return tuple(self._turns)

    def facts(self) -> list[Fact]:
        """The pinned facts in pin order (a copy)."""
        with self._in_use():
            return list(self._facts.values())

    def find(self, turn_id: str) -> Turn | None:
        """The turn stored under ``turn_id``, or None."""
        check_text(turn_id, "id")
        with self._in_use():
            return self._turns.get(turn_id)

    @property
    def size(self) -> int:
        """Bytes of the journal file (the turns; the facts file is apart)."""
        return self._turn_store.size

    def __len__(self) -> int:
        return len(self._turns)

    def close(self) -> None:
        """Release the locks and the files. Safe to call twice.

        In a process forked from the one that opened it, only that process's copies of
        the descriptors are closed, as its exit would: a flock belongs to the open file
        description, which the opener's descriptors still hold, so its lock stays held.
        The mutex is not taken there: a thread of the opener may have held it at the fork.
        """
        if os.getpid() != self._pid:
            self._close_file()
            return
        with self._mutex:
            self._close_file()

    def _close_file(self) -> None:
        for store in (self._fact_store, self._turn_store):
            if store.file is not None:
                store.file.close()  # releases its locks
                store.file = None

    @contextlib.contextmanager
    def _in_use(self) -> Iterator[None]:
        """Hold the mutex over an open Journal, in the process that opened it.

        A forked child shares the opener's descriptors and so its lock: both could
        commit, each at the size it last saw, and overwrite the other's acknowledged
        turns. The child is refused before anything (the mutex too: a thread of the
        opener may have held it at the fork, and the copy would never be released).
        """
        if os.getpid() != self._pid:
            raise JournalForked(
                f"this Journal was opened by process {self._pid}, and process {os.getpid()} "
                f"is a fork of it: it shares that process's lock, so it may not use it; "
                f"nothing changed (open the journal anew once the opener has closed it)")
        with self._mutex:
            if self._turn_store.file is None:
                raise JournalError("journal is closed")
            yield

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "open" if self._turn_store.file is not None else "closed"
        facts = f", facts={len(self._facts)}" if self._facts else ""
        return (f"Journal({self.path!r}, turns={len(self._turns)}{facts}, "
                f"bytes={self.size}, {state})")
