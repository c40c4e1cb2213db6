"""The journal: a durable, append-only ledger of confirmed turns, and what is derived from
them (pinned facts, summaries).

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

Summaries (``ledgerlab.memory.Summary``) live in ``<path>.summaries`` under the same
rules, with the payload ``{"id","text","covers"}``: a summary covers one or more stored
turns (``add_summary`` takes a stored summary's id there too, for the turns it covers), and
is deleted with any of them (forget and retain rewrite it before the turn
file, as the facts). A provider's compaction item (``ledgerlab.memory.Compaction``) is a
summary too, payload ``{"id","covers","dialect","item"}``, under the same rules. A journal
without summaries has no summaries file.

The journal stores turns and what is derived from them; it knows nothing of requests
or budgets.
Error messages carry offsets, sizes and hashes, never conversation text.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import NoReturn

from ..checks import check_int, id_tag
from ..memory import Compaction, Derived, Summary
from ..turns import Fact, Turn
from .arguments import check_name, check_path, check_type, turn_to_commit
from .errors import (
    FactConflict,
    FactNotFound,
    JournalCorrupt,
    JournalError,
    JournalForked,
    OriginNotFound,
    SummaryConflict,
    SummaryNotFound,
    TurnConflict,
    TurnNotFound,
)
from .files import (
    FACTS_REWRITE_SUFFIX,
    FACTS_SUFFIX,
    SALVAGE_SUFFIX,
    SUMMARIES_REWRITE_SUFFIX,
    SUMMARIES_SUFFIX,
    clear_leftover,
    open_locked,
    rewrite_path,
)
from .records import FACTS, TURNS, Record, encode_fact, encode_turn
from .salvage import FACTS_SALVAGE_SUFFIX, SUMMARIES_SALVAGE_SUFFIX, clear_salvage_name
from .store import Store
from .summaries import SUMMARIES, encode_summary

DEFAULT_MAX_BYTES = 4 * 1024 * 1024


def _plural(count: int, noun: str, nouns: str = "") -> str:
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


class Journal:
    """The append-only ledger of one conversation, and the facts and summaries derived
    from its turns.

    Use it as a context manager. The turns are in the file at ``path``, in the
    reference's format (a turn with tool rounds or a question of parts adds ``parts``
    and ``steps`` to its payload, keys the reference ignores); the facts beside it in
    ``<path>.facts`` (created by the first ``pin``), in the same line format with payload
    ``{"id","text","origin"}``; the summaries in ``<path>.summaries`` (created by the
    first ``add_summary``), payload ``{"id","text","covers"}``. The turn file's lock is
    taken first and guards all three; each derived file is locked too.

    Opening reads the files whole and can write to them, in this order:

    1. a torn tail of the turn file is cut, and the cut synced (``Store.load``);
    2. a leftover of a killed rewrite of the turn file is removed, if provably one;
    3. the same two for the facts file, then the summaries file;
    4. every fact whose origin is not a stored turn, and every summary covering a turn
       that is not stored, is deleted: its file is rewritten, crash-safely, as ``forget``
       rewrites it (``_delete_orphans``).

    Nothing else is written on open; a file that does not check out refuses to open
    and is left unchanged.
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 max_bytes: int | None = DEFAULT_MAX_BYTES, create: bool = True) -> None:
        # The real path: a rewrite must replace the file itself, not a symlink to it,
        # and must not follow a later chdir.
        self.path = os.path.realpath(check_path(path, "path"))
        self.max_bytes = None if max_bytes is None else check_int(max_bytes, "max_bytes",
                                                                  minimum=1)
        check_type(create, "create", bool, "a bool")
        self._mutex = threading.Lock()  # flock does not stop threads sharing one handle
        self._pid = os.getpid()  # a child forked from this process shares the lock: refused
        self._turns: dict[str, Turn] = {}
        self._facts: dict[str, Fact] = {}
        self._summaries: dict[str, Summary] = {}
        self._turn_store = Store(self.path, TURNS, rewrite_path(self.path), self._fail)
        self._fact_store = Store(self.path + FACTS_SUFFIX, FACTS,
                                 rewrite_path(self.path, FACTS_REWRITE_SUFFIX), self._fail)
        self._summary_store = Store(self.path + SUMMARIES_SUFFIX, SUMMARIES,
                                    rewrite_path(self.path, SUMMARIES_REWRITE_SUFFIX), self._fail)
        # Each derived file, the name of the dict that holds its items, and its salvage's
        # hidden suffix; the turn file's lock guards them all.
        self._derived = ((self._fact_store, "_facts", FACTS_SALVAGE_SUFFIX),
                         (self._summary_store, "_summaries", SUMMARIES_SALVAGE_SUFFIX))
        self._clear_salvage_names()
        for store, _, _ in self._derived:
            if os.path.lexists(store.path) and not os.path.lexists(self.path):
                raise JournalCorrupt(
                    f"{store.path!r} exists but its journal {self.path!r} does not: a "
                    f"{store.kind.name} without its turn file is damage, not a new journal; "
                    f"nothing created")
        if not create and not os.path.isfile(self.path):
            raise JournalError(f"no journal at {os.fspath(path)!r}")
        self._turn_store.file = open_locked(self.path)
        try:
            records, data = self._turn_store.load(self.max_bytes)
            self._turns = {record.id: record.turn for record in records}
            clear_leftover(self._turn_store.temp, data)
            for store, held, _ in self._derived:
                self._open_derived(store, held)
            self._delete_orphans()
        except BaseException:
            self._close_file()
            raise

    def _clear_salvage_names(self) -> None:
        """Remove what a salvage killed while writing this journal left
        (``salvage.clear_salvage_name``).

        Published (the turn file has its name): the hidden names go, or a rewrite would
        refuse a file of two names. Not published: a derived file alone is then no file
        at all (that salvage wrote nothing), where any other derived file alone is damage;
        and a copy a salvage was writing under a hidden name goes too, so no text outlives
        a killed salvage.
        """
        published = os.path.lexists(self.path)
        names = [(store.path, suffix) for store, _, suffix in self._derived]
        for path, suffix in [(self.path, SALVAGE_SUFFIX)] + names:
            clear_salvage_name(path, rewrite_path(self.path, suffix), published=published)

    def _open_derived(self, store: Store, held: str) -> None:
        """Load a derived file, if there is one (cutting its torn tail), and clear its leftover."""
        records, data = [], b""
        if os.path.lexists(store.path):
            store.file = open_locked(store.path, create=False)
            records, data = store.load(self.max_bytes)
        setattr(self, held, {record.id: record.item for record in records})
        clear_leftover(store.temp, data)

    def _delete_orphans(self) -> None:
        """The one step of opening that rewrites a file: delete the facts whose origin is
        gone, and the summaries that cover a turn that is gone.

        forget and retain rewrite the derived files before the turns, so a kill between
        the rewrites leaves no such item; a turn file cut or replaced under them can.
        Either way a turn it came from is gone, and nothing derived outlives its turn:
        finish the deletion. Without such an item nothing is written.
        """
        self._drop(self._fact_store, "_facts", lambda fact: fact.origin in self._turns)
        self._drop(self._summary_store, "_summaries",
                   lambda summary: all(turn_id in self._turns for turn_id in summary.covers))

    def commit(self, turn_id: str, question: str | tuple | Turn, answer: str | None = None, *,
               steps: tuple = ()) -> str:
        """Store a confirmed turn durably and return the stored answer.

        ``commit(turn_id, turn)`` stores a ``Turn``, ``commit(turn_id, question, answer,
        steps=...)`` its pieces, as ``Turn`` takes them. A Turn that carries an id (read
        from a journal) must carry ``turn_id``, else TurnIdMismatch; ``history`` and
        ``find`` return the turn with ``turn_id`` as its id. The whole turn is one line,
        written and synced at once: a call is never on disk without its results.

        Idempotent by id: committing an id again with the same question and steps
        writes nothing and returns the answer stored first; another question or other
        steps is TurnConflict.
        """
        turn = turn_to_commit(turn_id, question, answer, steps)
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
            self._turn_store.check_room(line, self.max_bytes)
            self._turn_store.check_named("commit")
            self._turn_store.append(line, "commit")
            self._turns[turn_id] = turn
            return turn.answer

    def pin(self, fact_id: str, text: str, *, origin: str) -> Fact:
        """Store a fact durably, with the id of the stored turn it came from; return it.

        The journal's guarantees hold for facts too (checksummed lines, fsync before
        returning, torn tails cut, corruption refused, one writer). ``origin`` must be
        a stored turn (else OriginNotFound); forgetting that turn, or retain dropping
        it, deletes the fact. Idempotent by id: the same text and origin return the
        stored fact and write nothing; another text or origin is FactConflict.
        """
        fact = Fact(check_name(fact_id, "fact_id"), check_name(text, "text"),
                    check_name(origin, "origin"))
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
            self._append_derived(self._fact_store, encode_fact(fact), "pin")
            self._facts[fact_id] = fact
            return fact

    def add_summary(self, summary_id: str, text: str, *, covers) -> Summary:
        """Store a summary durably, with the ids of the stored turns it covers; return it.

        ``text`` is what the application wrote about those turns (the library never
        calls a model); ``covers`` one or more ids of stored turns or of stored summaries
        (else TurnNotFound). A summary named stands for the turns it covers: a rolling
        summary, written from the last one and the turns since, covers ``[last_summary_id,
        newest_turn_id]``, and is stored covering every turn they cover (the Summary
        returned lists them), so forgetting any turn of the chain, however deep, deletes
        it, as retain dropping one does: its text may carry that turn's. The journal's
        guarantees hold (checksummed lines, fsync before returning, torn tails cut,
        corruption refused, one writer). Idempotent by id: the same text and covers return
        the stored summary and write nothing; another text or other covers is
        SummaryConflict.
        """
        # covers is checked by Summary (a TypeError naming it).
        return self._add_memory(Summary(check_name(summary_id, "summary_id"),
                                        check_name(text, "text"), covers), "add_summary")

    def add_compaction(self, compaction_id: str, item, *, dialect: str,
                       covers) -> Compaction:
        """Store a provider's compaction item durably, with the ids of the stored turns it
        stands for; return it (a ``Compaction``). ``item`` is the provider's object (a dict
        or its JSON text), kept exactly. Stored, deleted with any turn it covers, and
        idempotent by id, as ``add_summary`` (SummaryConflict for another item, dialect or
        covers; an id is a summary's or a compaction's, not both); ``summaries()`` lists it
        in the order added."""
        check_name(compaction_id, "compaction_id")
        check_name(dialect, "dialect")
        return self._add_memory(Compaction(compaction_id, item, dialect, covers),
                                "add_compaction")

    def _add_memory(self, memory: Summary | Compaction, action: str) -> Summary | Compaction:
        """Store a summary or a compaction item, unless the same is stored under its id."""
        with self._in_use():
            memory = replace(memory, covers=self._covered_turns(memory))
            stored = self._summaries.get(memory.id)
            if stored is not None:
                if stored != memory:
                    field = next((name for name in ("text", "item", "dialect", "covers")
                                  if getattr(stored, name, None) != getattr(memory, name, None)),
                                 "kind")
                    raise SummaryConflict(f"{id_tag(memory.id)} is already stored with "
                                          f"another {field}; nothing changed")
                return stored
            self._append_derived(self._summary_store, encode_summary(memory), action)
            self._summaries[memory.id] = memory
            return memory

    def _covered_turns(self, summary: Summary | Compaction) -> tuple[str, ...]:
        """The stored turns ``summary.covers`` (a summary's or a compaction's) names: each turn id itself, each stored
        summary's id the turns that summary covers (in order, none twice). Stored summaries
        cover turns only, so one step reaches the bottom of any chain. TurnNotFound for an
        id that is neither."""
        turns: dict[str, None] = {}  # an ordered set
        missing = []
        for cover in summary.covers:
            named = self._summaries.get(cover)
            if cover not in self._turns and named is None:
                missing.append(cover)
            if cover in self._turns:
                turns[cover] = None
            if named is not None:  # an id both a turn's and a summary's stands for both
                turns.update(dict.fromkeys(named.covers))
        if missing:  # (nor a stored summary: "turn" is what is meant almost always)
            what = "summary" if isinstance(summary, Summary) else "compaction"
            raise TurnNotFound(f"{what} {id_tag(summary.id)} covers {len(missing)} "
                               f"{'turn' if len(missing) == 1 else 'turns'} not stored "
                               f"(first {id_tag(missing[0])}); nothing changed")
        return tuple(turns)

    def _append_derived(self, store: Store, line: bytes, action: str) -> None:
        """Append one record to a derived file (created by its first record), durably."""
        store.check_room(line, self.max_bytes)
        self._turn_store.check_named(action)  # else its turns are gone on reopen
        if store.file is None:  # the first record: a new file, never one that appeared since
            store.file = open_locked(store.path, exclusive=True)
        else:
            store.check_named(action)
        store.append(line, action)

    def _fail(self, action: str, error: OSError, state: str) -> NoReturn:
        # After a failed write or fsync the data may already be lost: never
        # retry and acknowledge. Close, so that reopening re-reads the file.
        self._close_file()
        raise JournalError(
            f"{action} not acknowledged: {error.strerror or error}; {state}the journal is "
            f"closed, reopen it to see what it holds"
        ) from error

    def forget(self, turn_id: str) -> None:
        """Delete one turn, every fact whose origin it is and every summary that covers it:
        their text leaves the files (``derived_from`` lists them beforehand).

        The other lines stay byte-identical. Everything that can refuse is checked
        before anything is written. The derived items go first: a kill between the
        rewrites leaves the turn with none of its facts and summaries, or some of them
        gone, and forgetting it again completes the deletion.
        """
        check_name(turn_id, "turn_id")
        with self._in_use():
            if turn_id not in self._turns:
                raise TurnNotFound(f"{id_tag(turn_id)} is not in the journal; nothing changed")
            self._delete_turns({turn_id})

    def retain(self, *, last: int) -> int:
        """Keep only the newest ``last`` turns, and the facts and summaries derived only from
        them; return how many turns were deleted."""
        check_int(last, "last", minimum=0)
        with self._in_use():
            doomed = set(list(self._turns)[:max(0, len(self._turns) - last)])
            if doomed:
                self._delete_turns(doomed)
            return len(doomed)

    def unpin(self, fact_id: str) -> None:
        """Delete one fact for real, as ``forget`` deletes a turn."""
        check_name(fact_id, "fact_id")
        with self._in_use():
            if fact_id not in self._facts:
                raise FactNotFound(f"{id_tag(fact_id)} is not pinned; nothing changed")
            self._fact_store.check_rewritable()
            self._drop(self._fact_store, "_facts", lambda fact: fact.id != fact_id)

    def drop_summary(self, summary_id: str) -> None:
        """Delete one summary for real, as ``forget`` deletes a turn; the turns it covers stay."""
        check_name(summary_id, "summary_id")
        with self._in_use():
            if summary_id not in self._summaries:
                raise SummaryNotFound(f"{id_tag(summary_id)} is not a stored summary; nothing "
                                      f"changed")
            self._summary_store.check_rewritable()
            self._drop(self._summary_store, "_summaries",
                       lambda summary: summary.id != summary_id)

    def derived_from(self, turn_id: str) -> Derived:
        """The facts pinned from the stored turn ``turn_id`` and the summaries that cover it:
        what ``forget(turn_id)`` would delete with it (TurnNotFound if it is not stored)."""
        check_name(turn_id, "turn_id")
        with self._in_use():
            if turn_id not in self._turns:
                raise TurnNotFound(f"{id_tag(turn_id)} is not in the journal")
            return self._derived_from({turn_id})

    def _derived_from(self, turn_ids: set[str]) -> Derived:
        return Derived(
            tuple(fact for fact in self._facts.values() if fact.origin in turn_ids),
            tuple(summary for summary in self._summaries.values()
                  if not turn_ids.isdisjoint(summary.covers)))

    def _delete_turns(self, doomed: set[str]) -> None:
        """Delete the turns ``doomed`` names, and first the facts and summaries derived
        from them.

        Every file to rewrite is checked before any is, so a refusal changes nothing; an
        error once derived items are gone says how many.
        """
        facts, summaries = self._derived_from(doomed)
        for store, items in ((self._fact_store, facts), (self._summary_store, summaries),
                             (self._turn_store, doomed)):
            if items:
                store.check_rewritable()
        self._drop(self._fact_store, "_facts", lambda fact: fact.origin not in doomed)
        try:
            self._drop(self._summary_store, "_summaries",
                       lambda summary: doomed.isdisjoint(summary.covers))
            self._drop_turns(lambda record: record.id not in doomed)
        except JournalError as error:
            gone = [_plural(len(items), *nouns) for items, nouns, held in
                    ((facts, ("fact",), "_facts"),
                     (summaries, ("summary", "summaries"), "_summaries"))
                    if items and not any(item.id in getattr(self, held) for item in items)]
            if not gone:
                raise
            raise JournalError(f"{' and '.join(gone)} derived from the "
                               f"{_plural(len(doomed), 'turn')} deleted; deleting the rest "
                               f"then failed: {error}") from error

    def _drop_turns(self, keep: Callable[[Record], bool]) -> None:
        self._turn_store.rewrite(keep, lambda kept: setattr(
            self, "_turns", {record.id: record.turn for record in kept}))

    def _drop(self, store: Store, held: str, keep: Callable) -> None:
        """Rewrite a derived file without the items ``keep`` refuses, if there are any
        (``held`` names the dict of its items)."""
        if all(keep(item) for item in getattr(self, held).values()):
            return
        store.rewrite(lambda record: keep(record.item), lambda kept: setattr(
            self, held, {record.id: record.item for record in kept}))

    def history(self) -> list[Turn]:
        """The stored turns in commit order (a copy), each with its id (``Turn.id``)."""
        with self._in_use():
            return list(self._turns.values())

    def ids(self) -> tuple[str, ...]:
        """The stored turns' ids in commit order, oldest first: what ``forget``, ``find``
        and ``pin(origin=...)`` take. ``ids()[i]`` is the id of ``history()[i]``."""
        with self._in_use():
            return tuple(self._turns)

    def summaries(self) -> list[Summary | Compaction]:
        """The stored summaries and compaction items in the order they were added (a copy):
        what ``select(..., summaries=)`` takes."""
        with self._in_use():
            return list(self._summaries.values())

    def facts(self) -> list[Fact]:
        """The pinned facts in pin order (a copy)."""
        with self._in_use():
            return list(self._facts.values())

    def find(self, turn_id: str) -> Turn | None:
        """The turn stored under ``turn_id`` (its ``id``), or None."""
        check_name(turn_id, "turn_id")
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
        for store in (self._summary_store, self._fact_store, self._turn_store):
            store.close()

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
        facts += f", summaries={len(self._summaries)}" if self._summaries else ""
        return (f"Journal({self.path!r}, turns={len(self._turns)}{facts}, "
                f"bytes={self.size}, {state})")
