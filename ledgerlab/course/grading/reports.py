"""What grading writes: grades.csv, one feedback page per submission, a summary.

Every name shown comes from a student's file name, so it is made safe where it lands:
``ledgerlab.printable`` for one visible line (an undecodable byte, a control or a bidi character
escaped), then ``csv_safe`` for a spreadsheet (never a formula), ``markdown_name`` for a
page (never HTML or a link), ``feedback_name`` for a file name. ``check_outputs`` refuses
outputs that cannot be written before anything is graded, and each file is replaced
atomically, so a teacher never opens half a grades file.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import unicodedata
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ledgerlab import printable

from ..exercises import GRADED
from ..feedback import Feedback
from ..written import written_report

if TYPE_CHECKING:  # judge writes the reports; the reports only read its results
    from .judge import Graded


class OutputError(Exception):
    """The grades cannot be written where asked; nothing was graded or written."""


def feedback_folder(out: Path) -> Path:
    return out.with_name(out.stem + "-feedback")


def summary_path(out: Path) -> Path:
    return out.with_name(out.stem + "-summary.md")


def written_path(out: Path) -> Path:
    """The teacher's page of answers in words: each question, its model answer, every answer."""
    return out.with_name(out.stem + "-written.md")


def check_outputs(out: Path) -> None:
    """Raise OutputError unless grades, feedback pages and summary can be written as ``out``
    asks: checked before grading, so that no one waits for grades that cannot be written.
    Writes nothing (a folder ``write_grades`` would make is only checked for)."""
    out = Path(out)
    if out.name in ("", ".", "..") or out.is_dir():
        raise OutputError(f"{printable(str(out))} is a folder: --out names the grades file, "
                          f"e.g. build/grades.csv")
    for path, kind in ((out, "file"), (summary_path(out), "file"), (written_path(out), "file"),
                       (feedback_folder(out), "folder")):
        if path.exists() and not (path.is_dir() if kind == "folder" else path.is_file()):
            raise OutputError(f"{printable(str(path))} exists and is not a {kind}")
    folder = out.parent
    while not folder.exists() and folder != folder.parent:  # the folder mkdir would start in
        folder = folder.parent
    for place in (folder, feedback_folder(out)):
        if place.exists() and not (place.is_dir() and os.access(place, os.W_OK | os.X_OK)):
            why = "not a folder" if not place.is_dir() else "no permission to write there"
            raise OutputError(f"cannot write in {printable(str(place))}: {why}")


def write_grades(results: list[Graded], points: dict[str, int], out: Path) -> None:
    """grades.csv (atomically), ``<stem>-feedback/NAME.md`` each, ``<stem>-summary.md``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"submission": csv_safe(result.submission),
             "score": sum(result.score(points).values()), "max": sum(points.values()),
             **result.score(points), "note": printable(result.note)} for result in results]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["submission", "score", "max", *points, "note"])
    writer.writeheader()
    writer.writerows(rows)
    write_atomically(out, buffer.getvalue())
    folder = feedback_folder(out)
    folder.mkdir(exist_ok=True)
    for result in results:
        write_atomically(folder / feedback_name(result.submission), feedback_page(result, points))
    write_atomically(summary_path(out), summary_page(results, points))
    written_report([(result.submission, result.written) for result in results], written_path(out))


def write_atomically(path: Path, text: str) -> None:
    """``path`` holds ``text`` whole, or is unchanged and no temp file is left."""
    temp = path.with_name(f".{path.name}.tmp")
    try:
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def csv_safe(name: str) -> str:
    """A name a spreadsheet shows as text, on one visible line, and never as a formula.

    A spreadsheet skips leading spaces and may read a full-width ＝ as =, so the test is on
    the name NFKC-normalised and left-stripped: = + - @ first gets a leading '."""
    shown = printable(name)
    first = unicodedata.normalize("NFKC", shown).lstrip()[:1]
    return "'" + shown if first in ("=", "+", "-", "@") else shown


def markdown_name(name: str) -> str:
    """A name in a Markdown page as a code span, so that nothing in it is live: no HTML, no
    link, no emphasis. The fence is longer than any run of backticks in the name, and one
    space each side is what CommonMark strips."""
    shown = printable(name)
    fence = "`" * (max(map(len, re.findall("`+", shown)), default=0) + 1)
    return f"{fence} {shown} {fence}"


def feedback_name(submission: str) -> str:
    """A file name for a submission's feedback: safe characters, and a hash against clashes."""
    stem = re.sub(r"[^\w.-]", "_", submission.removesuffix(".ipynb"))[:60].lstrip(".") or "x"
    return f"{stem}-{hashlib.sha256(submission.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}.md"


def feedback_page(result: Graded, points: dict[str, int]) -> str:
    scores = result.score(points)
    lines = [f"# Feedback: {markdown_name(result.submission)}", "",
             f"Score: {sum(scores.values())} / {sum(points.values())}", ""]
    if result.note:
        lines += [f"Note: {result.note}.", ""]
    for name, verdict in result.verdicts.items():
        exercise = GRADED[name]
        lines += [f"## Exercise {exercise.number}: {exercise.title}", "",
                  f"**{Feedback.LABELS[verdict.status]}** ({scores[name]} / {points[name]}): "
                  f"{verdict.message}", ""]
    return "\n".join(lines)


def summary_page(results: list[Graded], points: dict[str, int]) -> str:
    """Per exercise: how many got it right, and the commonest mistakes, with counts."""
    lines = [f"# Grading summary: {len(results)} submissions", "",
             "| exercise | right | not yet | not answered |", "|---|---|---|---|"]
    for name in points:
        statuses = Counter(result.verdicts[name].status for result in results)
        lines.append(f"| {name} | {statuses['correct']} | {statuses['incorrect']} | "
                     f"{statuses['unanswered']} |")
    for name in points:
        mistakes = Counter(result.verdicts[name].message for result in results
                           if result.verdicts[name].status == "incorrect")
        if mistakes:
            lines += ["", f"## {name}: the commonest mistakes", ""]
            lines += [f"- {count} x {message}" for message, count in mistakes.most_common(3)]
    notes = [result for result in results if result.note]
    if notes:
        lines += ["", "## Submissions that did not run to the end", ""]
        lines += [f"- {markdown_name(result.submission)}: {result.note}" for result in notes]
    return "\n".join(lines) + "\n"
