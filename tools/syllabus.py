"""Write the course's titles, minutes and tables from its manifest, ``ledgerlab/course/syllabus.py``.

What it writes: the README's table of notebooks and its total; in each notebook, the title
line, the stated minutes, every link to another notebook and the closing Previous/Next line;
``00-contents``' table, its total and the method of the minutes; and the two-session plan of
``teacher/TEACHING.md`` (each row one notebook at its minutes, each session's length) and its
method sentence. It also prints each notebook's measured minutes beside the stated ones: a
stated time out of tolerance is changed in the manifest by hand, then this is run again.
``tests/course/test_syllabus.py`` fails while a copy differs.

    python tools/syllabus.py            # write every copy, print the measure
    python tools/syllabus.py --check    # change nothing; exit 1 if a copy would change

Then ``python tools/run_notebooks.py`` the notebooks it changed and rebuild ``learner/``
(``make notebooks`` does both).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import nbformat

from ledgerlab.course import syllabus

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
README = ROOT / "README.md"
GUIDE = ROOT / "teacher" / "TEACHING.md"

TIME = re.compile(r"(\*\*Time:\*\* about )\d+( minutes)")
TOTAL = re.compile(r"(The whole course takes about )[\w ]+?(?=(?: at a learner's pace)?\.)")
METHOD = re.compile(re.escape("Each notebook's minutes are measured") + r".*?syllabus\.py`\)\.", re.DOTALL)
# A link to a course notebook whose text names it: [05 · The ledger](../learner/05-the-ledger.ipynb#x)
LINK = re.compile(r"\[(\d\d) · [^]]+\]\(((?:[\w./-]*/)?)(\d\d-[\w-]+\.ipynb)((?:#[^)]*)?)\)")
NAVIGATION = re.compile(r"^(?:Previous|Next): .*$", re.MULTILINE)
TABLE = re.compile(r"^\| notebook \|.*\n(?:^\|.*\n?)+", re.MULTILINE)
SESSION = re.compile(r"^### Session (\d) \((\d+) minutes\)(.*)\n\n((?:\|.*\n)+)", re.MULTILINE)
SESSION_ROW = re.compile(r"^\| (\d+)–(\d+) \| (\d\d) \|", re.MULTILINE)


def relinked(text: str) -> str:
    """Every link to a course notebook named by the manifest's heading for it."""
    def named(match):
        number, folder, file, anchor = match.groups()
        lesson = syllabus.lesson(int(number))
        if file != lesson.file:
            raise ValueError(f"a link to {file} names notebook {number}, which is {lesson.file}")
        return f"[{lesson.heading}]({folder}{file}{anchor})"
    return LINK.sub(named, text)


def common(text: str) -> str:
    """What every copy shares: the links, the total and the method."""
    text = TOTAL.sub(lambda match: match.group(1) + syllabus.course_length(), relinked(text))
    return METHOD.sub(lambda _: syllabus.METHOD, text)


def notebook_markdown(lesson: syllabus.Lesson, cells: list[str]) -> list[str]:
    """A notebook's markdown cells as the manifest writes them."""
    cells = [common(cell) for cell in cells]
    first = cells[0].split("\n", 1)
    cells[0] = TIME.sub(lambda match: f"{match.group(1)}{lesson.minutes}{match.group(2)}",
                        "\n".join([f"# {lesson.heading}", *first[1:]]), count=1)
    cells[-1] = NAVIGATION.sub(lambda _: syllabus.navigation(lesson.number), cells[-1])
    if lesson.number == 0:
        cells = [TABLE.sub(syllabus.table(first=1) + "\n", cell) if cell.startswith("## The series")
                 else cell for cell in cells]
    return cells


def readme(text: str) -> str:
    return TABLE.sub(syllabus.table(folder="learner/") + "\n", common(text), count=1)


def guide(text: str) -> str:
    """The two-session plan: each row one notebook at its minutes, each session their sum."""
    def session(match):
        number, _, rest, rows = match.groups()
        start = 0

        def row(found):
            nonlocal start
            end = start + syllabus.lesson(int(found.group(3))).minutes
            written, start = f"| {start}–{end} | {found.group(3)} |", end
            return written
        rows = SESSION_ROW.sub(row, rows)
        return f"### Session {number} ({start} minutes){rest}\n\n{rows}"
    return SESSION.sub(session, common(text))


def write_notebook(path: Path, lesson: syllabus.Lesson, check: bool) -> bool:
    """Write the manifest's copies into one notebook; whether anything changed."""
    notebook = nbformat.read(path, as_version=4)
    markdown = [cell for cell in notebook.cells if cell.cell_type == "markdown"]
    written = notebook_markdown(lesson, [cell.source for cell in markdown])
    changed = [cell for cell, text in zip(markdown, written) if cell.source != text]
    if changed and not check:
        for cell, text in zip(markdown, written):
            cell.source = text
        nbformat.write(notebook, path)
    return bool(changed)


def write_text(path: Path, rewrite, check: bool) -> bool:
    text = path.read_text(encoding="utf-8")
    written = rewrite(text)
    if written != text and not check:
        path.write_text(written, encoding="utf-8")
    return written != text


def measure() -> list[str]:
    """Each notebook's stated and measured minutes; the lines of those out of tolerance."""
    off = []
    for lesson in syllabus.LESSONS:
        cells = json.loads((NOTEBOOKS / lesson.file).read_text(encoding="utf-8"))["cells"]
        measured = syllabus.measured_minutes(cells)
        line = f"{lesson.heading}: stated {lesson.minutes}, measured {measured}"
        print(line)
        if abs(measured - lesson.minutes) > syllabus.tolerance(measured):
            off.append(line)
    print(f"total: {syllabus.total_minutes()} minutes ({syllabus.course_length()})")
    return off


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on a change")
    args = parser.parse_args(argv)
    off = measure()
    changed = [lesson.file for lesson in syllabus.LESSONS
               if write_notebook(NOTEBOOKS / lesson.file, lesson, args.check)]
    changed += [path.name for path, rewrite in ((README, readme), (GUIDE, guide))
                if write_text(path, rewrite, args.check)]
    verb = "would change" if args.check else "changed"
    print(f"{verb}: {', '.join(changed) or 'nothing'}")
    for line in off:
        print(f"out of tolerance, set its minutes in the manifest: {line}")
    return 1 if off or (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
