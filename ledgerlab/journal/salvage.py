"""Salvage: a way forward for a journal that refuses to open.

It copies what verifies into a new journal and lists what it could not keep. The
damaged journal is only read, never written or locked.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from ..checks import id_tag
from .arguments import check_path
from .errors import JournalError, too_large
from .files import (
    FACTS_SUFFIX,
    SALVAGE_SUFFIX,
    SUMMARIES_SUFFIX,
    JournalFile,
    fsync_directory,
    journal_lines_cut_short,
    link_new,
    open_locked,
    rewrite_path,
    why_not,
    write_all,
)
from .records import FACTS, TURNS, Kind, LineStatus, leading_record, scan
from .summaries import SUMMARIES, SummaryRecord

# The new facts file's hidden name has a suffix of its own, as its rewrite's has: with the
# turn file's suffix it would be the hidden name of the turn file of a journal "<NEW>.facts".
FACTS_SALVAGE_SUFFIX = ".ledgerlab-facts-salvage"
SUMMARIES_SALVAGE_SUFFIX = ".ledgerlab-summaries-salvage"
# Each file derived from the turns: its suffix, its kind, its hidden suffix in a salvage.
_DERIVED = ((FACTS_SUFFIX, FACTS, FACTS_SALVAGE_SUFFIX),
            (SUMMARIES_SUFFIX, SUMMARIES, SUMMARIES_SALVAGE_SUFFIX))
# Linux: a new file with no name until it is linked, so a killed salvage leaves no copy.
_TMPFILE = getattr(os, "O_TMPFILE", 0)
_ID_START = base64.b64encode(b'{"id":')  # how every record line, and fact line, starts
# O_NONBLOCK: opening a FIFO to read it would wait for a writer forever; this way it
# opens at once, and fstat refuses it as it refuses a directory or a device.
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))


@dataclass(frozen=True)
class LostLine:
    """A line ``salvage`` could not keep: where it was, and why; its id only as a tag.

    Consecutive lines lost for the same reason that name no id, and copies of one lost
    line, are one LostLine with ``lines`` > 1 (``number`` is the first, ``length`` all
    their bytes): a file of four million empty lines is one entry, not four million.
    """

    number: int
    offset: int
    length: int
    problem: str
    id_tag: str | None  # where the payload still names an id
    lines: int = 1


@dataclass(frozen=True)
class Salvaged:
    """What ``salvage`` copied, and every line it could not keep."""

    kept: int  # records written to the new journal, in order
    lost: tuple[LostLine, ...]  # lines holding bytes other than NUL that were not copied
    size: int  # bytes of the new journal
    facts_kept: int = 0  # fact records written to the new journal's facts file
    # the facts file's damaged lines, and the facts whose origin turn was not salvaged
    facts_lost: tuple[LostLine, ...] = ()
    facts_file: str | None = None  # the facts file salvaged (beside the real source), if any
    summaries_kept: int = 0  # summaries written to the new journal's summaries file
    # the summaries file's damaged lines, and the summaries covering a turn not salvaged
    summaries_lost: tuple[LostLine, ...] = ()
    summaries_file: str | None = None  # the summaries file salvaged, if any


def salvage(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> Salvaged:
    """Copy every record of ``source`` that verifies, in order, into a new journal.

    ``source`` is only read, never written or locked: it may be a journal that refuses
    to open. A symlink is followed, and the facts file is the one beside the file it
    names, as ``Journal`` names it; anything but a regular file is refused. Damaged
    lines and repeated ids are skipped (the first record of an id wins); a verified
    record at the start of the bytes after the last newline is kept too.

    The facts and summaries files beside ``source``, if there are any, are salvaged by
    the same rule into ``destination``'s, keeping only the facts whose origin turn was
    salvaged and the summaries every turn of which was (nothing derived outlives a
    turn it came from); the others are lost, by id tag.

    ``destination`` and the files beside it must not exist (but for those a killed
    salvage left, which are removed). They all appear, whole, or none of them, and they
    never replace a file (``_publish``).
    """
    source = os.path.realpath(check_path(source, "source"))  # the file Journal(source) opens
    destination = os.path.abspath(check_path(destination, "destination"))
    data = _read_for_salvage(source)
    if os.path.lexists(destination):
        raise JournalError(f"{destination!r} exists: salvage writes a new file, never over one")
    # The hidden names: rewrite_path also refuses a name too long for the files beside
    # it, before anything is written (no Journal could open the copy).
    kept, lost, seen = _verified(data, scan(data, TURNS), TURNS)
    files = [(destination, b"".join(kept), rewrite_path(destination, SALVAGE_SUFFIX))]
    derived = {}
    clear_salvage_name(destination, files[0][2], published=False)  # a killed one's copy
    for suffix, kind, hidden_suffix in _DERIVED:
        path, hidden = destination + suffix, rewrite_path(destination, hidden_suffix)
        if os.path.lexists(source + suffix):
            found = _read_for_salvage(source + suffix)
            items, gone, _ = _verified(found, scan(found, kind), kind, origins=seen)
            derived[kind.name] = (len(items), tuple(gone), source + suffix)
            # A derived file takes its name before the turn file, whose name publishes
            # them all: until then it keeps its hidden name too, so a kill between the
            # names leaves a file that Journal and the next salvage know was never
            # published, and remove (``clear_salvage_name``), never a journal without it.
            files.insert(-1, (path, b"".join(items), hidden))
        clear_salvage_name(path, hidden, published=False)
        if os.path.lexists(path):
            raise JournalError(f"{path!r} exists: salvage writes a new file, never over one")
    _publish(files)
    nothing = (0, (), None)
    return Salvaged(len(kept), tuple(lost), len(files[-1][1]),
                    *derived.get(FACTS.name, nothing), *derived.get(SUMMARIES.name, nothing))


def clear_salvage_name(path: str, hidden: str, *, published: bool) -> None:
    """Remove what a killed salvage left at ``hidden``, the hidden name of the file it
    writes to ``path``, and the file it gave ``path`` but never published.

    Until the turn file has its name, which publishes them all, salvage keeps a hidden
    name beside each derived file it has named (the facts, the summaries), locked: a
    second name of the file, where it wrote it under that name, or a marker holding only
    the file's device and inode numbers, where it wrote it with no name (``_MARKER``). So
    at ``hidden``, if no live salvage holds it (its lock), these go:

    - a second name of ``path``'s file, or a marker naming it: the hidden name, and if
      the turn file did not take its name (``published`` False), ``path`` too;
    - a marker, or a file of journal lines, alone (either perhaps cut short): a salvage
      killed before it named ``path``, or while it wrote the file; never someone's text.

    Anything else is someone's file, and is left alone (salvage then refuses the name).
    """
    try:
        if not stat.S_ISREG(os.lstat(hidden).st_mode):
            return
        handle = open_locked(hidden, create=False)
    except (FileNotFoundError, JournalError):  # none, or a live salvage holds it
        return
    try:
        opened = os.fstat(handle.fileno())
        try:
            named = os.lstat(path)
        except FileNotFoundError:
            named = None
        # The file unpublished at ``path``, if any: the hidden name's own (a second name),
        # or the one its marker names.
        if named is not None and (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino):
            if opened.st_nlink != 2:
                return  # a third name somewhere: not what a salvage leaves
            ours = (opened.st_dev, opened.st_ino)
        else:
            data = handle.readall()
            marked = _MARKER_LINE.fullmatch(data)
            cut = data.rstrip(b"\0")  # a power loss can leave zeros
            if not (marked or _MARKER.startswith(cut) or _MARKER_CUT.fullmatch(cut)
                    or journal_lines_cut_short(data)):
                return  # someone's file
            ours = tuple(map(int, marked.groups())) if marked else None
        if (not published and named is not None and stat.S_ISREG(named.st_mode)
                and (named.st_dev, named.st_ino) == ours and named.st_nlink <= 2):
            os.unlink(path)  # named, never published: no file at all
        os.unlink(hidden)  # under its lock, so no salvage is using it
        fsync_directory(hidden)
    except OSError:
        pass  # what the names hold now decides
    finally:
        handle.close()


# What a derived file written with no name keeps at its hidden name while it is named and
# unpublished: the file's device and inode numbers, never its text.
_MARKER = b"ledgerlab salvage, not yet published: "
_MARKER_LINE = re.compile(re.escape(_MARKER) + rb"([0-9]+) ([0-9]+)\n")
_MARKER_CUT = re.compile(re.escape(_MARKER) + rb"[0-9 ]*")  # cut short: named nothing yet


def _read_for_salvage(path: str) -> bytes:
    """A journal or facts file's bytes, read without opening it as a Journal."""
    try:
        fd = os.open(path, _READ_FLAGS)
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise JournalError(f"cannot salvage {path!r}: not a regular file; "
                                   f"nothing written")
            return file.read()
    except OSError as error:
        raise JournalError(f"cannot read {path!r}: {why_not(path, error)}; nothing "
                           f"written") from None
    except MemoryError:
        raise too_large(os.stat(path).st_size) from None


def _publish(files: list[tuple[str, bytes, str]]) -> None:
    """Write each ``(path, data, hidden name)`` as a new file: all of them, or none.

    Every file is written and synced before any takes its name; then they take their
    names in the order given, the directory synced after each. The last name publishes
    them all: until it is taken, each earlier file keeps its hidden name as well, locked,
    which marks it unpublished (``clear_salvage_name``), so a crash leaves all of them or
    what Journal and the next salvage read as none. A name taken meanwhile is never
    replaced. Any failure takes back what this call created. (The caller removed what a
    killed salvage left first.)

    A file is written with no name where the OS allows (``_Unnamed``: its hidden name is
    a marker, so a killed salvage leaves no copy under a hidden name), else under its
    hidden name (``_Hidden``: a killed salvage leaves it, holding the copy, until the next
    salvage to the same destination, or opening it, removes it).
    """
    pending: list[_Unnamed | _Hidden] = []
    named: list[str] = []
    path = files[0][0]
    folder = None
    try:
        folder = _open_folder(path)
        for path, data, hidden in files:
            pending.append(_new_file(folder, data, hidden))
        for (path, _, hidden), new in zip(files, pending):
            if new is not pending[-1]:
                new.hold(hidden)  # unpublished until the last file has its name
            new.link(path)
            named.append(path)
            fsync_directory(path)
        for new in pending:
            new.discard()  # published: the hidden names go
        fsync_directory(path)
    except (OSError, JournalError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise JournalError(f"cannot write {path!r}: {reason}; {_take_back(named)}") from None
    finally:
        for new in pending:
            new.discard()
        if folder is not None:
            os.close(folder)


def _open_folder(path: str) -> int | None:
    """The destination's folder, open, where files can be made in it with no name; else None."""
    if not (_TMPFILE and hasattr(os, "link") and os.path.isdir("/proc/self/fd")):
        return None
    return os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def _new_file(folder: int | None, data: bytes, hidden: str) -> _Unnamed | _Hidden:
    """``data`` in a new synced file that does not have its name yet."""
    if folder is not None:
        try:
            return _Unnamed(folder, data)
        except OSError as error:
            if error.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise  # this file system has O_TMPFILE, and the write failed
    _check_free(hidden)
    return _Hidden(hidden, data)


def _check_free(hidden: str) -> None:
    """Refuse a hidden name that is taken: ``clear_salvage_name`` already removed ours."""
    if os.path.lexists(hidden):
        raise JournalError(f"{hidden!r} exists and is not provably a killed salvage's "
                           f"leftover (a salvage running now, or someone's file)")


class _Unnamed:
    """A new file with no name (O_TMPFILE) until ``link``: a killed process leaves nothing."""

    def __init__(self, folder: int, data: bytes) -> None:
        self.folder = folder
        self.fd = os.open(".", _TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600, dir_fd=folder)
        self.name = f"/proc/self/fd/{self.fd}"  # the name linkat follows to this file
        try:
            named, opened = os.stat(self.name), os.fstat(self.fd)
            if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
                # a /proc of another process namespace: write under the hidden name instead
                raise OSError(errno.EINVAL, "/proc/self/fd does not name this process's files")
            write_all(self.fd, data)
            os.fsync(self.fd)
        except BaseException:
            os.close(self.fd)
            raise
        self.held: _Hidden | None = None  # its hidden name, while it has one

    def hold(self, hidden: str) -> None:
        """Put a marker naming this file (its device and inode numbers, not its text) at its
        hidden name, locked until ``discard``: the file stays unnamed until ``link``, and
        a kill between the two leaves no copy of it."""
        _check_free(hidden)
        opened = os.fstat(self.fd)
        # (Its name is synced when it is created: it lasts before the file has its own.)
        self.held = _Hidden(hidden, _MARKER + b"%d %d\n" % (opened.st_dev, opened.st_ino))

    def link(self, path: str) -> None:
        # A dir_fd makes os.link call linkat with AT_SYMLINK_FOLLOW, the way open(2)
        # gives an O_TMPFILE file a name. It fails if the name is taken: never replaces.
        os.link(self.name, os.path.basename(path), dst_dir_fd=self.folder)

    def discard(self) -> None:
        if self.held is not None:
            self.held.discard()
            self.held = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _Hidden:
    """A new file under a hidden name beside its destination, locked until discarded."""

    def __init__(self, hidden: str, data: bytes | None = None) -> None:
        """A new file at ``hidden`` holding ``data``; without data, lock the one there."""
        self.hidden = hidden
        # The lock says: live.
        self.handle: JournalFile = open_locked(hidden, create=data is not None,
                                               exclusive=data is not None)
        if data is None:
            return
        try:
            write_all(self.handle.fileno(), data)
            os.fsync(self.handle.fileno())
        except BaseException:
            self.discard()
            raise

    def hold(self, hidden: str) -> None:
        """It has its hidden name, locked, until ``discard``."""

    def link(self, path: str) -> None:
        link_new(self.hidden, path)

    def discard(self) -> None:
        if not self.handle.closed:
            with contextlib.suppress(OSError):
                os.unlink(self.hidden)  # under its lock: no other salvage is using it
            self.handle.close()


def _take_back(named: list[str]) -> str:
    """Remove the files this salvage named, the turn file first; say what is left."""
    left = []
    for path in reversed(named):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError:
            left.append(repr(path))
    if named:
        with contextlib.suppress(OSError):
            fsync_directory(named[0])
    return f"{' and '.join(left)} may remain" if left else "nothing written"


def _verified(data: bytes, lines: Iterable[LineStatus], kind: Kind,
              origins: set[str] | None = None) -> tuple[list[bytes], list[LostLine], set[str]]:
    """The lines to keep, the lines lost, and the ids kept. With ``origins``, a fact whose
    origin is not in it, or a summary covering a turn not in it, is lost too."""
    kept, lost, seen = [], [], set()
    for line in lines:
        raw = data[line.offset:line.offset + line.length]
        found = ((line.record, len(raw)) if line.record is not None else
                 None if raw.endswith(b"\n") else leading_record(raw, kind))  # a torn tail
        if found is not None and found[0].id not in seen:
            record, end = found
            if origins is not None and not origins.issuperset(_origins(record)):
                why = ("a turn it covers was not salvaged" if kind is SUMMARIES else
                       "its origin turn was not salvaged")
                _lose(lost, line.number, line.offset, end, why, id_tag(record.id))
            else:
                kept.append(raw[:end].rstrip(b"\n") + b"\n")
                seen.add(record.id)
            raw = raw[end:]
        if raw.strip(b"\0"):
            # A run of copies (``line.lines``) is lost as one entry; its first line names
            # the id, if any.
            _lose(lost, line.number, line.offset, line.length, line.problem or "",
                  _readable_id(raw[:len(raw) // line.lines]), line.lines)
    return kept, [LostLine(*entry) for entry in lost], seen


def _origins(record) -> tuple[str, ...]:
    """The turns a derived record came from."""
    return record.summary.covers if isinstance(record, SummaryRecord) else (record.fact.origin,)


def _lose(lost: list[tuple], number: int, offset: int, length: int, problem: str,
          tag: str | None, lines: int = 1) -> None:
    """Add ``lines`` lost lines to ``lost`` (LostLine's fields), into the entry before them
    if both are one run of lines that name no id."""
    if lost:
        last = lost[-1]
        if (tag is None and last[4] is None and last[3] == problem
                and last[1] + last[2] == offset):
            lost[-1] = (last[0], last[1], last[2] + length, problem, None, last[5] + lines)
            return
    lost.append((number, offset, length, problem, tag, lines))


def _readable_id(raw: bytes) -> str | None:
    """The id a damaged line's payload still names, as a tag, or None."""
    if not raw.startswith(_ID_START):  # no payload of ours: a quick no for a line of junk
        return None
    try:
        payload = json.loads(base64.b64decode(raw.split(b" ")[0] + b"==="))
    except (ValueError, RecursionError, binascii.Error):
        return None
    turn_id = payload.get("id") if isinstance(payload, dict) else None
    return id_tag(turn_id) if isinstance(turn_id, str) else None
