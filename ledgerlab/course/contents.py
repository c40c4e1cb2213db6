"""What ``00-contents`` shows of the learner's own progress: every prediction, quiz question
and exercise of the course, whether it has been checked and whether the last check was right.

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
    """The table 00 shows: lesson, item, answered?, right? (at the last check)."""

    HEADER = ("lesson", "item", "answered?", "right?")

    def __init__(self, rows: list[tuple[str, str, str, str]], note: str = "") -> None:
        self.rows, self.note = rows, note

    @property
    def summary(self) -> str:
        answered = sum(row[2] == "yes" for row in self.rows)
        right = sum(row[3] == "yes" for row in self.rows)
        return (f"{answered} of {len(self.rows)} answered, {right} right at the last check "
                f"(kept in {progress.FILE} in this folder, on this machine only).")

    def __repr__(self) -> str:
        widths = [max(len(row[i]) for row in (self.HEADER, *self.rows)) for i in range(4)]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
                 for row in (self.HEADER, *self.rows)]
        return "\n".join(filter(None, [self.note, self.summary, *lines]))

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(cell)}</th>" for cell in self.HEADER)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row)
                       + "</tr>" for row in self.rows)
        note = f"<p><strong>Note:</strong> {html.escape(self.note)}</p>" if self.note else ""
        return (f"{note}<p>{html.escape(self.summary)}</p>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def progress_table(folder: Path | None = None) -> ProgressTable:
    """The learner's progress in ``folder`` (the notebook's own, by default)."""
    known = progress.load(folder)
    rows = []
    for lesson, item, key in items():
        outcome = known.answers.get(key)
        rows.append((lesson, item, "yes" if outcome else "no",
                     "" if outcome is None else "yes" if outcome["right"] else "not yet"))
    return ProgressTable(rows, known.note)
