"""``python -m ledgerlab.course.grading``: build the assignment, grade, write 11-solutions.

    python -m ledgerlab.course.grading assignment build/assignment
    python -m ledgerlab.course.grading assignment build/assignment --roster names.txt --secret-file S
    python -m ledgerlab.course.grading grade SUBMISSIONS --out build/grades.csv
    python -m ledgerlab.course.grading solutions notebooks/11-solutions.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ledgerlab import printable

from .. import paths
from . import roster, sandbox
from .editions import (SOLUTIONS_NOTEBOOK, AssignmentError, build_assignment, check_destination,
                       write_solutions)
from .judge import Graded, grade
from .reports import OutputError

# What --help says first: the package's summary line.
DESCRIPTION = "The graded edition: a student notebook without solutions, and an autograder."

UNSAFE_HELP = ("grade without the bubblewrap sandbox (where bwrap cannot run: macOS, no user "
               "namespaces). Gives up: the read-only view of the system and of the installed "
               "package (a submission can change ledgerlab for every later one), the private "
               "home and /tmp, the network cut, and the PID namespace (a process a submission "
               "starts can outlive grading). Answers are still judged here, outside the "
               "kernel, so printed or forged verdicts still earn nothing.")


def _keys(out: Path) -> dict[str, str]:
    """file name -> key of the assignment built in ``out``, if one with a roster is there."""
    try:
        return roster.read_keys(out / "autograder") or {}
    except roster.RosterError:
        return {}


def _say_rekeyed(before: dict[str, str], after: dict[str, str]) -> None:
    """Name the students whose variant a rebuild changed: their handed-out notebooks are on
    the old one, so they need the new ones."""
    changed = sorted(file for file in before.keys() & after.keys() if before[file] != after[file])
    if changed:
        print(f"{len(changed)} students have a new variant (a name spelt anew, or another "
              f"secret): hand out their new notebooks: {', '.join(changed)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledgerlab.course.grading",
                                     description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    assignment = commands.add_parser("assignment", help="build student/, solutions/, autograder/")
    assignment.add_argument("out", type=Path)
    assignment.add_argument("--roster", type=Path, help="one student name per line: each gets "
                            "exercises on a variant of their own, in students/<file name>/")
    assignment.add_argument("--secret-file", type=Path, help="the teacher's secret the variants "
                            "are derived from (made, mode 0600, if it does not exist); keep it "
                            "to rebuild the same variants")
    grading = commands.add_parser("grade", help="grade every .ipynb in a folder")
    grading.add_argument("submissions", type=Path)
    grading.add_argument("--out", type=Path, default=Path("build/grades.csv"))
    grading.add_argument("--autograder", type=Path)
    grading.add_argument("--cell-timeout", type=int)
    grading.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    grading.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE_HELP)
    solutions = commands.add_parser("solutions", help="regenerate and execute the solutions notebook")
    solutions.add_argument("path", type=Path, nargs="?")
    args = parser.parse_args(argv)

    if args.command == "assignment":
        if bool(args.roster) != bool(args.secret_file):
            parser.error("--roster and --secret-file go together")
        try:
            if args.roster:
                check_destination(args.out)  # before a secret is made
                made = not args.secret_file.exists()
                names = roster.read_roster(args.roster)
                secret = roster.read_secret(args.secret_file, create=True)
                if made:
                    print(f"made a new secret in {args.secret_file}: keep it (and private) to "
                          f"rebuild the same variants")
                elif roster.readable_by_others(args.secret_file):
                    print(f"warning: other users can read {args.secret_file} "
                          f"(chmod 600 it): with it, anyone can make every student's key")
                before = _keys(args.out)
                out = build_assignment(args.out, names=names, secret=secret)
                _say_rekeyed(before, _keys(out))
            else:
                out = build_assignment(args.out)
        except (AssignmentError, roster.RosterError, paths.CheckoutMissing) as error:
            print(f"assignment: {error}", file=sys.stderr)
            return 2
        students = (f"{out}/students ({len(names)} students, a variant each)" if args.roster
                    else f"{out}/student")
        print(f"wrote {students}, {out}/solutions and {out}/autograder")
    elif args.command == "grade":
        if not args.submissions.is_dir():
            parser.error(f"{args.submissions} is not a folder")
        if not args.unsafe_no_sandbox:
            try:
                sandbox.check_bwrap()
            except sandbox.SandboxUnavailable as error:
                print(f"grade: {error}. Grading runs every submission in a bubblewrap sandbox; "
                      f"--unsafe-no-sandbox grades without one (see its help for what that "
                      f"gives up).", file=sys.stderr)
                return 2

        def progress(result: Graded, score: int, most: int) -> None:
            note = f"; {result.note}" if result.note else ""
            print(f"{printable(result.submission)}: {score}/{most} "
                  f"({result.seconds:.1f} s{note})", flush=True)

        try:
            results = grade(args.submissions, args.out, args.autograder,
                            cell_timeout=args.cell_timeout, jobs=args.jobs,
                            sandboxed=not args.unsafe_no_sandbox, progress=progress)
        except (OutputError, roster.RosterError) as error:
            print(f"grade: {error} (nothing was graded or written)", file=sys.stderr)
            return 2
        except FileNotFoundError as error:
            parser.error(str(error))
        out = printable(str(args.out))
        stem = printable(args.out.stem)
        print(f"wrote {out} ({len(results)} submissions), {stem}-feedback/, {stem}-summary.md "
              f"and {stem}-written.md (the answers in words, for reading)")
    else:
        try:
            path = args.path or paths.notebooks() / SOLUTIONS_NOTEBOOK
            write_solutions(path)
        except paths.CheckoutMissing as error:
            print(f"solutions: {error}", file=sys.stderr)
            return 2
        print(f"wrote {path}")
    return 0
