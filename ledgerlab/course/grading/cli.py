"""``python -m ledgerlab.course.grading``: build the assignment, hand it out, collect, grade.

    python -m ledgerlab.course.grading assignment build/assignment
    python -m ledgerlab.course.grading assignment build/assignment --roster names.txt --secret-file S
    python -m ledgerlab.course.grading handout build/assignment --out build/handout --wheel W
    python -m ledgerlab.course.grading collect EXPORT.zip --autograder A --out build/submissions
    python -m ledgerlab.course.grading grade SUBMISSIONS --out build/grades.csv
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ledgerlab.console import printable

from .. import paths
from . import gradebook, roster, sandbox
from .collect import CollectError, collect, moodle_lateness
from .editions import AssignmentError, build_assignment, check_destination
from .graded import Graded
from .handout import HandoutError, hand_out, install_command
from .judge import MAX_JOBS, grade
from .manifest import MAX_TIMEOUT, ManifestError
from .reports import OutputError

# What --help says first: the package's summary line.
DESCRIPTION = "The graded edition: a student notebook without solutions, and an autograder."

UNSAFE_HELP = ("grade without the bubblewrap sandbox (where bwrap cannot run: macOS, no user "
               "namespaces). Gives up: the read-only view of the system and of the installed "
               "package (a submission can change ledgerlab for every later one), the private "
               "home and /tmp, the network cut, and the PID namespace (a process a submission "
               "starts can outlive grading). Answers are still judged here, outside the "
               "kernel, so printed or forged verdicts still earn nothing.")


def whole_number(least: int, most: int):
    """An argparse type: a whole number from ``least`` to ``most``; anything else (0 or
    less, a sign, a fraction, 20 digits) is argparse's error, exit 2, naming the argument."""
    def parse(text: str) -> int:
        if not re.fullmatch(r"[0-9]{1,12}", text) or not least <= int(text) <= most:
            raise argparse.ArgumentTypeError(f"must be a whole number from {least:,} to "
                                             f"{most:,}")
        return int(text)
    return parse


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


def canvas_assignment(text: str) -> str:
    """An argparse type: the Canvas gradebook's column for ``--canvas-assignment``."""
    try:
        return gradebook.canvas_column(text)
    except gradebook.GradebookError as error:
        raise argparse.ArgumentTypeError(str(error).replace("canvas_assignment ", "", 1)) from None


def _say_canvas_column(column: str) -> None:
    """What Canvas's import of the gradebook will do with its column."""
    assignment = gradebook.canvas_id(column)
    if assignment:
        print(f"grades-canvas.csv: Canvas's import fills assignment {assignment} (its column "
              f"is {column!r})")
    else:
        print(f"grades-canvas.csv: its column {column!r} names no assignment id, so Canvas's "
              f"import makes a NEW assignment of that name; to fill yours, grade again with "
              f"--canvas-assignment ID (make grade CANVAS_ASSIGNMENT=ID), the number after "
              f"/assignments/ in its address")


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
    grading.add_argument("--cell-timeout", type=whole_number(1, MAX_TIMEOUT), metavar="SECONDS",
                         help=f"how long one cell may run, from 1 to {MAX_TIMEOUT:,} seconds "
                         f"(default: the assignment's; make assignment sets {sandbox.CELL_TIMEOUT})")
    grading.add_argument("--jobs", type=whole_number(1, MAX_JOBS), default=1, metavar="N",
                         help=f"submissions graded at once, from 1 to {MAX_JOBS} (default 1)")
    grading.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE_HELP)
    grading.add_argument("--canvas-assignment", metavar="ID", type=canvas_assignment,
                         help="Canvas's id of the assignment the grades go to (the number "
                         "after /assignments/ in its address), or its column as Canvas's "
                         "gradebook export heads it, 'Title (ID)': the Canvas gradebook's "
                         "column is then 'Title (ID)', and Canvas's import fills that "
                         "assignment. Without it the column is "
                         f"'{gradebook.ASSIGNMENT_TITLE}' and the import makes a new assignment")
    handing = commands.add_parser("handout", help="one zip archive per student of a built "
                                  "assignment, with the install command (course extra) in it")
    handing.add_argument("build", type=Path, help="the assignment folder make assignment built")
    handing.add_argument("--out", type=Path, default=Path("build/handout"))
    handing.add_argument("--wheel", type=Path, help="the package's wheel, put in each archive "
                         "(pip wheel --no-deps . builds it); without it the archive installs "
                         "ledgerlab[course] from the package index")
    collecting = commands.add_parser("collect", help="match a Canvas or Moodle download of "
                                     "submissions to the roster, as <file name>.ipynb each")
    collecting.add_argument("export", type=Path, help="the platform's download: a zip or its "
                            "unzipped folder")
    collecting.add_argument("--autograder", type=Path, required=True)
    collecting.add_argument("--out", type=Path, default=Path("build/submissions"))
    collecting.add_argument("--moodle-worksheet", type=Path, metavar="CSV",
                            help="Moodle's grading worksheet (the assignment's \"Download "
                            "grading worksheet\"): its Status column says which of Moodle's "
                            "files were late, which their names do not (read in English)")
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
                            sandboxed=not args.unsafe_no_sandbox, progress=progress,
                            canvas_assignment=args.canvas_assignment)
        except (OutputError, ManifestError, roster.RosterError, gradebook.GradebookError) as error:
            print(f"grade: {error} (nothing was graded or written)", file=sys.stderr)
            return 2
        except FileNotFoundError as error:
            parser.error(str(error))
        out = printable(str(args.out))
        stem = printable(args.out.stem)
        print(f"wrote {out} ({len(results)} submissions), {stem}-feedback/ (each student's "
              f"feedback in Markdown, and in HTML to paste), {stem}-summary.md "
              f"and {stem}-written.md (the answers in words, for reading)")
        if args.autograder and roster.read_students(args.autograder) is not None:
            _say_canvas_column(args.canvas_assignment or gradebook.ASSIGNMENT_TITLE)
    elif args.command == "handout":
        try:
            archives = hand_out(args.build, args.out, args.wheel)
        except (HandoutError, roster.RosterError) as error:
            print(f"handout: {error}", file=sys.stderr)
            return 2
        print(f"wrote {len(archives)} archives in {printable(str(args.out))}; each README.txt "
              f"says: {install_command(args.wheel)}")
    elif args.command == "collect":
        try:
            students = roster.read_students(args.autograder)
            if students is None:
                raise CollectError("the assignment was built without a roster: there is no "
                                   "one to match the files to")
            moodle_late = (moodle_lateness(args.moodle_worksheet) if args.moodle_worksheet
                           else None)
            collected = collect(args.export, students, args.out, moodle_late)
        except (CollectError, roster.RosterError) as error:
            print(f"collect: {error}", file=sys.stderr)
            return 2
        missing = sorted(set(students) - set(collected.files) - set(collected.unreadable))
        print(f"collected {len(collected.files)} of {len(students)} students' notebooks in "
              f"{printable(str(args.out))}")
        late = sorted(file for file, found in collected.files.items() if found.late)
        if late:
            print(f"{len(late)} handed in late, as the platform marked them: {', '.join(late)}")
        moodle = [found for found in collected.files.values() if found.platform == "moodle"]
        if moodle and not args.moodle_worksheet:
            print("Moodle's file names do not say which were late: give its grading worksheet "
                  "(--moodle-worksheet, make collect MOODLE_WORKSHEET=) to read its Status column")
        elif any(found.late is None for found in moodle):
            print(f"{sum(found.late is None for found in moodle)} of Moodle's files have no "
                  f"English Status in the worksheet: whether they were late is not known")
        for path, why in collected.unmatched:
            print(f"not collected: {path}: {why}")
        if collected.unreadable:
            print(f"{len(collected.unreadable)} students' files cannot be read (ask them for "
                  f"their notebook again): {', '.join(sorted(collected.unreadable))}")
        if missing:
            print(f"{len(missing)} students handed nothing in: {', '.join(missing)}")
    return 0
