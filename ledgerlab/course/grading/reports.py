"""What grading writes: grades.csv, one feedback page per submission, a summary.

Every name shown comes from a student's file name, so it is made safe where it lands:
``csv_safe`` for a spreadsheet (never a formula), ``printable`` for a page or a terminal,
``feedback_name`` for a file name. Each file is replaced atomically, so a teacher never
opens half a grades file.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ..exercises import GRADED
from ..feedback import Feedback

if TYPE_CHECKING:  # judge writes the reports; the reports only read its results
    from .judge import Graded


def write_grades(results: list[Graded], points: dict[str, int], out: Path) -> None:
    """grades.csv (atomically), ``<stem>-feedback/NAME.md`` each, ``<stem>-summary.md``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"submission": csv_safe(result.submission),
             "score": sum(result.score(points).values()), "max": sum(points.values()),
             **result.score(points), "note": result.note} for result in results]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["submission", "score", "max", *points, "note"])
    writer.writeheader()
    writer.writerows(rows)
    _write_atomically(out, buffer.getvalue())
    folder = out.with_name(out.stem + "-feedback")
    folder.mkdir(exist_ok=True)
    for result in results:
        _write_atomically(folder / feedback_name(result.submission), feedback_page(result, points))
    _write_atomically(out.with_name(out.stem + "-summary.md"), summary_page(results, points))


def _write_atomically(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def csv_safe(name: str) -> str:
    """A name a spreadsheet shows as text: never a formula (=, +, -, @, tab, CR first)."""
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


def printable(name: str) -> str:
    """A name as one printable line: control characters and the like become escapes."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in name)


def feedback_name(submission: str) -> str:
    """A file name for a submission's feedback: safe characters, and a hash against clashes."""
    stem = re.sub(r"[^\w.-]", "_", submission.removesuffix(".ipynb"))[:60].lstrip(".") or "x"
    return f"{stem}-{hashlib.sha256(submission.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}.md"


def feedback_page(result: Graded, points: dict[str, int]) -> str:
    scores = result.score(points)
    lines = [f"# Feedback: {printable(result.submission)}", "",
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
        lines += [f"- {printable(result.submission)}: {result.note}" for result in notes]
    return "\n".join(lines) + "\n"
