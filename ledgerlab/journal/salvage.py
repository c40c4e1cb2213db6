"""Salvage: a way forward for a journal that refuses to open.

It copies what verifies into a new journal and lists what it could not keep. The
damaged journal is only read, never written or locked.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import stat
from dataclasses import dataclass

from ..wire import id_tag
from .errors import JournalError, too_large
from .files import FACTS_SUFFIX, publish
from .records import FACTS, TURNS, Kind, LineStatus, examine, leading_record


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
    publish(destination, new_data)
    if facts is None:
        return Salvaged(len(kept), tuple(lost), len(new_data))
    publish(facts_destination, b"".join(facts[0]))
    return Salvaged(len(kept), tuple(lost), len(new_data), len(facts[0]), tuple(facts[1]))


def _read_for_salvage(path: str, kind: Kind) -> tuple[bytes, list[LineStatus]]:
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
        raise too_large(os.stat(path).st_size) from None


def _verified(data: bytes, lines: list[LineStatus], kind: Kind,
              origins: set[str] | None = None) -> tuple[list[bytes], list[LostLine], set[str]]:
    """The lines to keep, the lines lost, and the ids kept. With ``origins``, a fact whose
    origin is not in it is lost too."""
    kept, lost, seen = [], [], set()
    for line in lines:
        raw = data[line.offset:line.offset + line.length]
        found = ((line.record, len(raw)) if line.record is not None else
                 None if raw.endswith(b"\n") else leading_record(raw, kind))  # a torn tail
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


def _readable_id(raw: bytes) -> str | None:
    """The id a damaged line's payload still names, as a tag, or None."""
    try:
        payload = json.loads(base64.b64decode(raw.split(b" ")[0] + b"==="))
    except (ValueError, RecursionError, binascii.Error):
        return None
    turn_id = payload.get("id") if isinstance(payload, dict) else None
    return id_tag(turn_id) if isinstance(turn_id, str) else None
