"""The ``ledgerlab-course`` command: the article's table, scenario and audit.

Course material, so a course command: the ``ledgerlab`` command is the library's
(inspect, forget, retain, salvage). What these print, and their exit statuses, are
what ``ledgerlab table|scenario|audit`` printed before they moved here: they run through
the library's ``run_command`` and print with its ``say``, so an error, or a closed or broken
stdout, is handled alike.
"""

from __future__ import annotations

import argparse
import json
import sys

from ledgerlab import __version__
from ledgerlab import run_command, say, shown

from . import scenario


def cmd_table(args: argparse.Namespace) -> int:
    rows = scenario.boundary_table()
    rejected = scenario.boundary_rejection()
    if args.json:
        say(json.dumps({"rows": rows, "rejected": rejected}, indent=2))
        return 0
    say(f"{'budget':>6}  {'retained':>8}  {'dropped':>7}  {'bytes':>5}")
    for row in rows:
        say(f"{row['budget']:>6}  {row['retained']:>8}  {row['dropped']:>7}  {row['bytes']:>5}")
    say(f"{rejected['budget']:>6}  rejected: the mandatory input needs "
        f"{rejected['mandatory_bytes']} bytes")
    return 0


def cmd_scenario(args: argparse.Namespace) -> int:
    report = scenario.write_evidence(args.out, __version__)
    for key, value in report.items():
        say(f"{key:<40} {json.dumps(value)}")
    say(f"wrote {scenario.LOG_NAME}, {scenario.REPORT_NAME}, {scenario.MANIFEST_NAME} "
        f"to {shown(args.out)}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    problems = scenario.audit_evidence(args.dir, __version__)
    for problem in problems:
        say(f"FAIL {problem}")
    if problems:
        print(f"audit failed: {len(problems)} problem(s) in {shown(args.dir)}", file=sys.stderr)
        return 1
    say("audit passed: manifest hashes, every log line's checksum and the report's invariants")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ledgerlab-course",
        description="The article's boundary table, and its projection scenario with the "
        "evidence it leaves and an audit of it.",
    )
    parser.add_argument("--version", action="version", version=f"ledgerlab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    table = commands.add_parser("table", help="the article's boundary table",
                                description="The boundary table for the article's fixture, "
                                "and the rejected 139-byte budget.")
    table.add_argument("--json", action="store_true", help="print JSON instead of a table")
    table.set_defaults(run=cmd_table)

    run = commands.add_parser("scenario", help="run the projection scenario",
                              description="Run the projection scenario into a new "
                              "directory: conversation.log, projection.json, manifest.json.")
    run.add_argument("--out", required=True, metavar="DIR",
                     help="a directory that must not exist yet")
    run.set_defaults(run=cmd_scenario)

    audit = commands.add_parser("audit", help="re-verify a scenario directory",
                                description="Re-verify the manifest hashes, every log line's "
                                "checksum and the report's invariants. Exit 1 on any mismatch.")
    audit.add_argument("dir", metavar="DIR")
    audit.set_defaults(run=cmd_audit)
    return parser


# The command that writes files before it prints: its exit status is the writing's,
# whatever printing does.
CHANGES = frozenset({"scenario"})


def main(argv: list[str] | None = None) -> int:
    # The library CLI's runner: errors are one line, "ledgerlab COMMAND: ...", as before.
    return run_command(build_parser(), argv, CHANGES)
