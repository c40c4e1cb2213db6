"""The ``ledgerlab`` command. Output shows counts, sizes and hashes, never conversation text."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__, article
from .journal import Journal, JournalError, LineStatus, examine, id_tag


def cmd_table(args: argparse.Namespace) -> int:
    rows = article.boundary_table()
    rejected = article.boundary_rejection()
    if args.json:
        print(json.dumps({"rows": rows, "rejected": rejected}, indent=2))
        return 0
    print(f"{'budget':>6}  {'retained':>8}  {'dropped':>7}  {'bytes':>5}")
    for row in rows:
        print(f"{row['budget']:>6}  {row['retained']:>8}  {row['dropped']:>7}  {row['bytes']:>5}")
    print(f"{rejected['budget']:>6}  rejected: the mandatory input needs "
          f"{rejected['mandatory_bytes']} bytes")
    return 0


def cmd_scenario(args: argparse.Namespace) -> int:
    report = article.write_evidence(args.out, __version__)
    for key, value in report.items():
        print(f"{key:<40} {json.dumps(value)}")
    print(f"wrote {article.LOG_NAME}, {article.REPORT_NAME}, {article.MANIFEST_NAME} "
          f"to {shown(args.out)}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    problems = article.audit_evidence(args.dir, __version__)
    for problem in problems:
        print(f"FAIL {problem}")
    if problems:
        print(f"audit failed: {len(problems)} problem(s) in {shown(args.dir)}", file=sys.stderr)
        return 1
    print("audit passed: manifest hashes, every log line's checksum and the report's invariants")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    path = Path(args.log)
    if not path.is_file():
        raise JournalError(f"no journal file at {args.log!r}")
    data = path.read_bytes()
    lines = examine(data)
    print(f"{'line':>5}  {'offset':>8}  {'bytes':>6}  {'question':>8}  {'answer':>8}  "
          f"{'sha256':<12}  status")
    for line in lines:
        if line.record is not None:
            turn = line.record.turn
            sizes = f"{len(turn.question.encode()):>8}  {len(turn.answer.encode()):>8}"
            status, digest = "ok", line.record.sha256[:12]
        else:
            sizes, digest = f"{'-':>8}  {'-':>8}", "-"
            status = torn_status(line, data) if line.torn else line.problem
        print(f"{line.number:>5}  {line.offset:>8}  {line.length:>6}  {sizes}  {digest:<12}  {status}")
    turns = sum(1 for line in lines if line.record is not None)
    corrupt = sum(1 for line in lines if line.problem is not None and not line.torn)
    torn = sum(line.length for line in lines if line.torn)
    print(f"{turns} turns, {len(data)} bytes, {corrupt} corrupt lines, {torn} torn-tail bytes")
    if corrupt:
        print(f"{shown(args.log)}: corrupt; a Journal refuses to open it", file=sys.stderr)
        return 1
    return 0


def torn_status(line: LineStatus, data: bytes) -> str:
    """What ``inspect`` says of a torn tail: what the cut-short append had written."""
    tail = data[line.offset:]
    written = len(tail.rstrip(b"\0"))
    if line.unterminated:
        what = "torn tail: a whole record without its newline, never acknowledged"
    elif written:
        what = f"torn tail: the first {written} bytes of a record"
    else:
        return f"torn tail: {len(tail)} NUL bytes (cut on open)"
    zeros = len(tail) - written
    return what + (f", then {zeros} NUL bytes" if zeros else "") + " (cut on open)"


# Deleting never grows a file, so forget and retain open a journal whatever its size:
# the cap guards growth, and refusing to shrink an oversized journal would defeat it.
def cmd_forget(args: argparse.Namespace) -> int:
    with Journal(args.log, create=False, max_bytes=None) as journal:
        turns, size = len(journal), journal.size
        journal.forget(args.id)
        print(f"forgot {id_tag(args.id)}: {turns} -> {len(journal)} turns, "
              f"{size} -> {journal.size} bytes; its text is gone from {shown(args.log)}")
    return 0


def cmd_retain(args: argparse.Namespace) -> int:
    with Journal(args.log, create=False, max_bytes=None) as journal:
        turns, size = len(journal), journal.size
        deleted = journal.retain(last=args.last)
        print(f"deleted {deleted} of {turns} turns, kept the newest {len(journal)}: "
              f"{size} -> {journal.size} bytes")
    return 0


def shown(path: str) -> str:
    """A path as text that stdout can always print: bytes it cannot encode become escapes.

    A path need not be valid UTF-8, nor fit stdout's encoding; printing it must
    never turn a finished deletion into a reported failure.
    """
    encoding = sys.stdout.encoding or "utf-8"
    # Decode as the file system does (bytes that are not text become \xNN), then escape
    # whatever stdout's encoding cannot print.
    text = os.fsencode(path).decode(sys.getfilesystemencoding(), "backslashreplace")
    return text.encode(encoding, "backslashreplace").decode(encoding)


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
    )
    parser.add_argument("--version", action="version", version=f"ledgerlab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    table = commands.add_parser("table", help="the article's boundary table",
                                description="The boundary table for the article's fixture, "
                                "and the rejected 139-byte budget.")
    table.add_argument("--json", action="store_true", help="print JSON instead of a table")
    table.set_defaults(run=cmd_table)

    scenario = commands.add_parser("scenario", help="run the projection scenario",
                                   description="Run the projection scenario into a new "
                                   "directory: conversation.log, projection.json, manifest.json.")
    scenario.add_argument("--out", required=True, metavar="DIR",
                          help="a directory that must not exist yet")
    scenario.set_defaults(run=cmd_scenario)

    audit = commands.add_parser("audit", help="re-verify a scenario directory",
                                description="Re-verify the manifest hashes, every log line's "
                                "checksum and the report's invariants. Exit 1 on any mismatch.")
    audit.add_argument("dir", metavar="DIR")
    audit.set_defaults(run=cmd_audit)

    inspect = commands.add_parser("inspect", help="sizes and checksums of a journal",
                                  description="Turns, bytes per turn, sizes and checksum "
                                  "status of a journal file, read-only, without its text.")
    inspect.add_argument("log", metavar="LOG")
    inspect.set_defaults(run=cmd_inspect)

    forget = commands.add_parser("forget", help="delete one turn from a journal",
                                 description="Delete one turn for real: its text leaves the "
                                 "file; the other turns stay byte-identical.")
    forget.add_argument("log", metavar="LOG")
    forget.add_argument("id", metavar="ID", help="the id the turn was committed under")
    forget.set_defaults(run=cmd_forget)

    retain = commands.add_parser("retain", help="keep only the newest turns",
                                 description="Delete all but the newest N turns, for real.")
    retain.add_argument("log", metavar="LOG")
    retain.add_argument("--last", type=count, required=True, metavar="N",
                        help="how many of the newest turns to keep")
    retain.set_defaults(run=cmd_retain)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (JournalError, OSError, ValueError, TypeError) as error:
        print(f"ledgerlab {args.command}: {type(error).__name__}: {_describe(error)}",
              file=sys.stderr)
        return 2


def _describe(error: Exception) -> str:
    # OSError's str() is fine (paths, not conversation text); ours never hold text.
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    return str(error)
