"""What ``00-contents`` shows of the learner's own progress: per lesson, how many of its items
were answered and right; then every prediction, quiz question and exercise of the course,
whether it has been checked, whether the last check was right, and whether its hint or
solution was shown.

The outcomes are the ones ``progress`` recorded in this folder. Items are named by lesson and
number ("prediction 2", "quiz 1", "exercise 3"), never by what they ask: the contents page is
read before the lessons, and a question's text could give away an earlier one's answer.
"""

from __future__ import annotations

import html
from pathlib import Path

from . import exercises, progress, questions, syllabus
from .feedback import Question, Questionnaire


def items() -> list[tuple[str, str, str]]:
    """Each checked item of the course, in course order: (lesson, item, progress id)."""
    found = []
    for lesson, parts in questions.NOTEBOOK_QUESTIONS.items():
        predictions = 0
        for _, part in parts:
            if isinstance(part, Questionnaire):
                found += [(lesson, f"quiz {number}", question.progress_id)
                          for number, question in enumerate(part.questions, start=1)
                          if isinstance(question, Question)]
            else:
                predictions += 1
                found.append((lesson, f"prediction {predictions}", part.progress_id))
        number = next(each.number for each in syllabus.LESSONS if each.heading == lesson)
        found += [(lesson, f"exercise {index} (optional)", exercise.name) for index, exercise
                  in enumerate(exercises.OPTIONAL.get(number, ()), start=1)]
    (practice,) = [lesson.heading for lesson in syllabus.LESSONS
                   if lesson.file.endswith("-exercises.ipynb")]
    found += [(practice, f"exercise {exercise.number}", exercise.name)
              for exercise in exercises.EXERCISES]
    return found


class ProgressTable:
    """The table 00 shows: per lesson, its totals; then per item, answered?, right? (at the
    last check), and whether its hint or solution was shown."""

    HEADER = ("lesson", "item", "answered?", "right?", "hint?", "solution?")
    TOTALS_HEADER = ("lesson", "answered", "right", "hints", "solutions")

    def __init__(self, rows: list[tuple[str, str, str, str, str, str]], note: str = "") -> None:
        self.rows, self.note = rows, note

    @property
    def totals(self) -> list[tuple[str, str, str, str, str]]:
        """Per lesson, in course order: answered and right of its items, and how many of
        them had their hint or solution shown."""
        lessons: dict[str, list] = {}
        for row in self.rows:
            lessons.setdefault(row[0], []).append(row)
        return [(lesson, f"{_count(rows, 2)} of {len(rows)}", f"{_count(rows, 3)} of {len(rows)}",
                 str(_count(rows, 4)), str(_count(rows, 5))) for lesson, rows in lessons.items()]

    @property
    def summary(self) -> str:
        answered, right = _count(self.rows, 2), _count(self.rows, 3)
        hints, solutions = _count(self.rows, 4), _count(self.rows, 5)
        return (f"{answered} of {len(self.rows)} answered, {right} right at the last check; "
                f"{hints} with a hint shown, {solutions} with a solution shown "
                f"(kept in {progress.FILE} in this folder, on this machine only).")

    def __repr__(self) -> str:
        return "\n".join([*filter(None, [self.note]), self.summary,
                          _text_table(self.TOTALS_HEADER, self.totals), "",
                          _text_table(self.HEADER, self.rows)])

    def _repr_html_(self) -> str:
        note = f"<p><strong>Note:</strong> {html.escape(self.note)}</p>" if self.note else ""
        return (f"{note}<p>{html.escape(self.summary)}</p>"
                f"{_html_table(self.TOTALS_HEADER, self.totals)}"
                f"{_html_table(self.HEADER, self.rows)}")


def _count(rows: list[tuple[str, ...]], column: int) -> int:
    return sum(row[column] == "yes" for row in rows)


def _text_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                     for row in (header, *rows))


def _html_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def progress_table(folder: Path | None = None) -> ProgressTable:
    """The learner's progress in ``folder`` (the notebook's own, by default)."""
    known = progress.load(folder)
    rows = []
    for lesson, item, key in items():
        entry = known.answers.get(key)
        was_checked = progress.checked(entry)
        rows.append((lesson, item, "yes" if was_checked else "no",
                     "" if not was_checked else "yes" if entry["right"] else "not yet",
                     *("yes" if (entry or {}).get(f"{kind}s") else "" for kind in progress.SHOWN)))
    return ProgressTable(rows, known.note)
