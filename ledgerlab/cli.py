"""The ``ledgerlab`` command: inspect, forget, retain and salvage a journal; prefix, where two
request bodies part.

Output shows counts, sizes, hashes and ids, never conversation text (nor a tool's
name, its arguments or results, nor an image). The article's
``table``, ``scenario`` and ``audit`` are course material: ``ledgerlab-course`` runs
them (``ledgerlab.course.cli``), with the output helpers and the runner defined here.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from . import __version__
from .console import escaped, run_command, say, shown
from .dialects import DIALECTS
from .memory import Summary
from .prompt_cache import first_difference
from .steps import ToolCall, ToolResult, content_bytes
from .journal.files import SYMLINK_REFUSED
from .journal import (
    FACTS,
    FACTS_SUFFIX,
    SUMMARIES,
    SUMMARIES_SUFFIX,
    TURNS,
    Journal,
    JournalError,
    describe_tail,
    id_tag,
    salvage,
    scan,
)


def cmd_inspect(args: argparse.Namespace) -> int:
    path = Path(args.log)
    if not path.is_file():
        raise JournalError(f"no journal file at {args.log!r}")
    # The facts and summaries files Journal opens: beside the journal's real path.
    facts_path = Path(os.path.realpath(args.log) + FACTS_SUFFIX)
    summaries_path = Path(os.path.realpath(args.log) + SUMMARIES_SUFFIX)
    has_facts, has_summaries = _facts_file(facts_path), _facts_file(summaries_path)
    data = _read(path, TURNS)
    if args.ids:
        return _inspect_ids(args.log, data, [
            (_read(derived, kind), kind) for derived, kind, present in
            ((facts_path, FACTS, has_facts), (summaries_path, SUMMARIES, has_summaries))
            if present])
    records, corrupt, torn = _show_lines(
        data, TURNS, f"{'question':>8}  {'answer':>8}", f"{'-':>8}  {'-':>8}",
        lambda record: (f"{len(record.turn.text.encode()):>8}  "
                        f"{len(record.turn.answer.encode()):>8}"), _rich_status)
    say(f"{len(records)} turns, {len(data)} bytes, {corrupt} corrupt lines, "
        f"{torn} torn-tail bytes")
    rich = [record.turn for record in records if not record.turn.plain]
    if rich:
        say(f"{len(rich)} of them with tool rounds or images: {_contents(rich)}")
    if has_facts:
        corrupt += _inspect_facts(facts_path, {record.id for record in records})
    if has_summaries:
        corrupt += _inspect_summaries(summaries_path, {record.id for record in records})
    return _refused(args.log) if corrupt else 0


def _rich_status(record) -> str:
    """A plain turn's status is ``ok``; a richer one's says what else its line holds."""
    return "ok" if record.turn.plain else f"ok; {_contents([record.turn])}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _contents(turns: list) -> str:
    """The tool rounds, calls and images of ``turns``, in counts and bytes, never text:
    ``2 rounds, 3 calls (24 bytes of arguments, 96 bytes of results), 1 image (5012 bytes)``."""
    shown = []
    steps = [step for turn in turns for step in turn.steps]
    if steps:
        calls = [step for step in steps if isinstance(step, ToolCall)]
        arguments = sum(len(call.arguments.encode()) for call in calls)
        results = sum(content_bytes(step.content) for step in steps
                      if isinstance(step, ToolResult))
        shown.append(f"{_plural(sum(len(turn.rounds) for turn in turns), 'round')}, "
                     f"{_plural(len(calls), 'call')} ({_plural(arguments, 'byte')} of "
                     f"arguments, {_plural(results, 'byte')} of results)")
    images = [image for turn in turns for image in turn.images]
    if images:
        shown.append(f"{_plural(len(images), 'image')} "
                     f"({_plural(sum(len(image.data) for image in images), 'byte')})")
    return ", ".join(shown) or "text parts only"


def _facts_file(path: Path) -> bool:
    """Is there a facts (or summaries) file? Anything but a regular file there is refused,
    as Journal refuses it (it opens the file without following a link)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        why = SYMLINK_REFUSED if stat.S_ISLNK(mode) else "not a regular file"
        raise JournalError(f"cannot open journal {str(path)!r}: {why}")
    return True


def _inspect_ids(log: str, data: bytes, derived: list[tuple[bytes, object]]) -> int:
    """The turns' ids, one per line in commit order (what ``forget`` takes), escaped;
    exit 1, as plain ``inspect``, when any file holds a line a Journal refuses."""
    corrupt = False
    for line in scan(data, TURNS):
        if line.record is not None:
            say(escaped(line.record.id))
        corrupt = corrupt or (line.problem is not None and not line.torn)
    corrupt = corrupt or any(line.problem is not None and not line.torn
                             for items, kind in derived for line in scan(items, kind))
    return _refused(log) if corrupt else 0


def _refused(log: str) -> int:
    print(f"{shown(log)}: corrupt; a Journal refuses to open it", file=sys.stderr)
    return 1


def _inspect_facts(path: Path, turn_ids: set[str]) -> int:
    """Show the facts file line by line: text sizes and origins as id tags, never text."""
    data = _read(path, FACTS)
    say()
    records, corrupt, torn = _show_lines(
        data, FACTS, f"{'text':>6}  {'origin':<15}", f"{'-':>6}  {'-':<15}",
        lambda record: f"{len(record.fact.text.encode()):>6}  {id_tag(record.fact.origin):<15}")
    origins = [record.fact.origin for record in records]
    orphans = sum(1 for origin in origins if origin not in turn_ids)
    say(f"{len(records)} facts from {len(set(origins))} turns, {len(data)} bytes, {corrupt} "
        f"corrupt lines, {torn} torn-tail bytes, {orphans} whose origin is not a stored turn "
        f"(deleted on open)")
    return corrupt


def _inspect_summaries(path: Path, turn_ids: set[str]) -> int:
    """Show the summaries file line by line: text sizes, and the turns each covers, counted
    and as id tags, never text."""
    data = _read(path, SUMMARIES)
    say()
    records, corrupt, torn = _show_lines(
        data, SUMMARIES, f"{'text':>6}  {'covers':<15}", f"{'-':>6}  {'-':<15}",
        lambda record: (f"{len(_memory_text(record.summary).encode()):>6}  "
                        f"{_covers(record.summary.covers):<15}"))
    covered = {turn_id for record in records for turn_id in record.summary.covers}
    orphans = sum(1 for record in records if not turn_ids.issuperset(record.summary.covers))
    say(f"{len(records)} summaries covering {len(covered)} turns, {len(data)} bytes, "
        f"{corrupt} corrupt lines, {torn} torn-tail bytes, {orphans} covering a turn that "
        f"is not stored (deleted on open)")
    return corrupt


def _memory_text(summary) -> str:
    """What a summaries file's line holds of its own: a summary's text, a compaction's
    item (shown by size only)."""
    return summary.text if isinstance(summary, Summary) else summary.item


def _covers(covers: tuple[str, ...]) -> str:
    """The turns a summary covers: how many, and their id tags (the first three)."""
    tags = ", ".join(id_tag(turn_id) for turn_id in covers[:3])
    return f"{_plural(len(covers), 'turn')}: {tags}{', ...' if len(covers) > 3 else ''}"


def _read(path: Path, kind) -> bytes:
    try:
        return path.read_bytes()
    except MemoryError:
        raise JournalError(f"the {kind.name}'s {path.stat().st_size} bytes do not fit in this "
                           f"process's memory (inspect reads the whole file)") from None


def _show_lines(data: bytes, kind, columns: str, blank: str,
                sizes, status=lambda record: "ok") -> tuple[list, int, int]:
    """One row per line (sizes of the record and its status, or its problem); return the
    records, the count of corrupt lines and the torn-tail bytes.

    Consecutive lines with the same problem share one row, which says how many there
    are: a file of a million empty lines is one row, not a million. The lines are read
    one at a time (``scan``), so memory grows with the records, never with the lines.
    """
    say(f"{'line':>5}  {'offset':>8}  {'bytes':>6}  {columns}  {'sha256':<12}  status")
    records, corrupt, torn = [], 0, 0
    run: list = []  # the first corrupt line of a run, its last line's number, the run's bytes

    def show_run() -> None:
        if run:
            first, last, length = run
            first_length = first.length // first.lines  # a status can be a run of copies
            more = last - first.number
            status = first.problem + (f"; so are the next {more} lines, to line {last} "
                                      f"({length - first_length} bytes)" if more else "")
            say(f"{first.number:>5}  {first.offset:>8}  {first_length:>6}  {blank}  "
                f"{'-':<12}  {status}")
            run.clear()

    for line in scan(data, kind):
        if line.problem is not None and not line.torn:
            corrupt += line.lines
            last = line.number + line.lines - 1
            if run and run[0].problem == line.problem:
                run[1:] = [last, run[2] + line.length]
                continue
            show_run()
            run[:] = [line, last, line.length]
            continue
        show_run()
        if line.record is not None:
            records.append(line.record)
            middle, shown, digest = sizes(line.record), status(line.record), line.record.sha256[:12]
        else:
            torn += line.length
            middle, digest = blank, "-"
            shown = f"torn tail: {describe_tail(data[line.offset:], kind, line.offset)}"
        say(f"{line.number:>5}  {line.offset:>8}  {line.length:>6}  {middle}  {digest:<12}  "
            f"{shown}")
    show_run()
    return records, corrupt, torn


# Deleting never grows a file, so forget and retain open a journal whatever its size:
# the cap guards growth, and refusing to shrink an oversized journal would defeat it.
def cmd_forget(args: argparse.Namespace) -> int:
    with Journal(args.log, create=False, max_bytes=None) as journal:
        turns, size, derived = len(journal), journal.size, _derived(journal)
        journal.forget(args.id)
        say(f"forgot {id_tag(args.id)}: {turns} -> {len(journal)} turns, "
            f"{size} -> {journal.size} bytes, {_derived_deleted(journal, derived)}; "
            f"its text is gone from {shown(args.log)}")
    return 0


def cmd_retain(args: argparse.Namespace) -> int:
    with Journal(args.log, create=False, max_bytes=None) as journal:
        turns, size, derived = len(journal), journal.size, _derived(journal)
        deleted = journal.retain(last=args.last)
        say(f"deleted {deleted} of {turns} turns, kept the newest {len(journal)}: "
            f"{size} -> {journal.size} bytes, {_derived_deleted(journal, derived)}")
    return 0


def _derived(journal: Journal) -> tuple[int, int]:
    return len(journal.facts()), len(journal.summaries())


def _derived_deleted(journal: Journal, before: tuple[int, int]) -> str:
    """How many pinned facts and summaries went with the deleted turns."""
    facts, summaries = before
    return (f"{facts - len(journal.facts())} of {facts} facts deleted, "
            f"{summaries - len(journal.summaries())} of {summaries} summaries deleted")


def cmd_salvage(args: argparse.Namespace) -> int:
    result = salvage(args.log, args.out)
    for where, lost in (("", result.lost), ("facts file ", result.facts_lost),
                        ("summaries file ", result.summaries_lost)):
        for line in lost:
            named = f", {line.id_tag}" if line.id_tag else ""
            # One entry stands for a run of lines lost for the same reason (4 MiB of newlines).
            span = (f"lines {line.number}-{line.number + line.lines - 1}" if line.lines > 1
                    else f"line {line.number}")
            say(f"lost {where}{span} at byte offset {line.offset} ({line.length} "
                f"bytes{named}): {line.problem}")
    say(f"salvaged {result.kept} records ({result.size} bytes) into {shown(args.out)}; "
        f"lost {sum(line.lines for line in result.lost)} lines; {shown(args.log)} is unchanged")
    for kept, lost, present, items, suffix in (
            (result.facts_kept, result.facts_lost, result.facts_file, "facts", FACTS_SUFFIX),
            (result.summaries_kept, result.summaries_lost, result.summaries_file, "summaries",
             SUMMARIES_SUFFIX)):
        if present is not None:
            say(f"salvaged {kept} {items} into {shown(os.fspath(args.out) + suffix)}; lost "
                f"{sum(line.lines for line in lost)} lines of the {items} file, which is "
                f"unchanged")
    return 1 if result.lost or result.facts_lost or result.summaries_lost else 0


def file_path(text: str) -> str:
    """An argparse type: a path, never empty (the OS would read "" as the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path: give the path of a file")
    return text


def cmd_prefix(args: argparse.Namespace) -> int:
    first, second = Path(args.first).read_bytes(), Path(args.second).read_bytes()
    difference = first_difference(first, second, args.dialect)
    if difference is None:
        say(f"A and B are the same {len(first)} bytes")
        return 0
    offset = difference.offset
    say(f"A: {len(first)} bytes, B: {len(second)} bytes; the first {offset} bytes are the "
        f"same ({_share(offset, len(first))} of A, {_share(offset, len(second))} of B)")
    say(f"first difference at byte {offset}:")
    for name, part in zip("AB", difference.parts):
        where = ("past its end" if part is None else
                 f"{part.name} (bytes {part.start}-{part.end}, {part.size} bytes)")
        say(f"  {name}: {where}")
    return 1


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0%"


def count(text: str) -> int:
    """An argparse type: a whole number, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number of 0 or more, got {text!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ledgerlab",
        description="Keep the durable ledger of a conversation apart from the request "
        "projected from it.",
        epilog="table, scenario, audit: see `ledgerlab-course --help`",
    )
    parser.add_argument("--version", action="version", version=f"ledgerlab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    inspect = commands.add_parser("inspect", help="sizes and checksums of a journal",
                                  description="Turns, bytes per turn, sizes and checksum "
                                  "status of a journal file (for a turn with tool rounds or "
                                  "images: its rounds, calls and images, counted and sized), "
                                  "of its facts file (LOG.facts: text sizes, origins as id "
                                  "tags) and of its summaries file (LOG.summaries: text sizes, "
                                  "the turns each covers, counted and as id tags), read-only, "
                                  "without text. --ids lists the turns' ids instead.")
    inspect.add_argument("log", type=file_path, metavar="LOG")
    inspect.add_argument("--ids", action="store_true",
                         help="print only the turns' ids, one per line in commit order (what "
                         "forget takes), never their text")
    inspect.set_defaults(run=cmd_inspect)

    forget = commands.add_parser("forget", help="delete one turn from a journal",
                                 description="Delete one turn, the facts pinned from it and "
                                 "the summaries that cover it, for real: their text leaves the "
                                 "files; the other turns stay byte-identical.")
    forget.add_argument("log", type=file_path, metavar="LOG")
    forget.add_argument("id", metavar="ID", help="the id the turn was committed under "
                        "(`ledgerlab inspect LOG --ids` lists them)")
    forget.set_defaults(run=cmd_forget)

    retain = commands.add_parser("retain", help="keep only the newest turns",
                                 description="Delete all but the newest N turns, and the "
                                 "facts and summaries derived from them, for real.")
    retain.add_argument("log", type=file_path, metavar="LOG")
    retain.add_argument("--last", type=count, required=True, metavar="N",
                        help="how many of the newest turns to keep")
    retain.set_defaults(run=cmd_retain)

    rescue = commands.add_parser("salvage", help="copy what verifies into a new journal",
                                 description="Copy every record that verifies, in order, into "
                                 "a new journal (skipping damaged lines and repeated ids) and "
                                 "list what could not be kept, by line, offset and id tag. "
                                 "LOG is only read. Exit 1 if anything was lost.")
    rescue.add_argument("log", type=file_path, metavar="LOG")
    rescue.add_argument("--out", type=file_path, required=True, metavar="NEW",
                        help="the new journal: a path that must not exist yet")
    rescue.set_defaults(run=cmd_salvage)

    prefix = commands.add_parser("prefix", help="where two request bodies part",
                                 description="The first byte where two request bodies (files "
                                 "of the bytes sent) differ, and which part of each holds it: "
                                 "system, tools, a memory section, turn k, the question. A "
                                 "provider caches a request's prefix, so the part named is "
                                 "where the cache stops reading. Offsets, part names and "
                                 "sizes only, never the text. Exit 0 if they are the same, "
                                 "1 if they differ.")
    prefix.add_argument("first", type=file_path, metavar="A", help="a request body, as sent")
    prefix.add_argument("second", type=file_path, metavar="B", help="the next request body")
    prefix.add_argument("--dialect", choices=DIALECTS, default=None,
                        help="the bodies' dialect (default: told from the body)")
    prefix.set_defaults(run=cmd_prefix)
    return parser


# Commands that change files before they print: their exit status is the change's, whatever
# printing does (a deletion that happened must not be reported as a failure).
CHANGES = frozenset({"forget", "retain", "salvage"})
# The article's commands, now the course's: each is refused with a pointer to its new name.
MOVED = frozenset({"table", "scenario", "audit"})


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in MOVED:
        print(f"ledgerlab {argv[0]}: moved to the course: run `ledgerlab-course {argv[0]}`",
              file=sys.stderr)
        return 2
    return run_command(build_parser(), argv, CHANGES)
