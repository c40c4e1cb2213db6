"""Written answers: where a learner answers the discussion questions, and what the teacher reads.

A ``Discussion`` in a notebook's quiz (``quiz01[3]``, ...) is answered in words, and nothing
checks it. Each notebook with one has a markdown cell to write in after its quiz, below the
``quiz[n].check(...)`` cells, so that the questions that are checked come first
(``written_cell``; ``with_written_cell`` puts it there, and the maintainer's
``tools/written_cells.py`` in the course's notebooks). The graded edition's exercises
notebook ends with every discussion question and an answer cell each (``written_section``);
``collect_written`` reads a submission's answers from those cells, and the grader's reports
(``grading.reports.written_report``) write them, question by question beside the model
answer, for the teacher to read. They are not scored.

A question's id is its notebook and quiz number, ``"07-3"`` for ``quiz07[3]``; prompts and
model answers are the questions' own (``ledgerlab.course.questions``), never copied here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import nbformat

from .feedback import Discussion, Questionnaire
from .questions import NOTEBOOK_QUESTIONS
from . import syllabus

CELL_ID = "written-answers"
PLACEHOLDER = "*Your answer:*"
MAX_ANSWER_CHARS = 10_000  # a few paragraphs is plenty; a huge cell must not swamp the report


@dataclass(frozen=True)
class Written:
    """One discussion question: ``quiz{notebook}[number]`` of the notebook titled ``title``."""

    id: str
    notebook: int
    number: int
    title: str
    question: Discussion

    @property
    def prompt(self) -> str:
        return self.question.prompt

    @property
    def model_answer(self) -> str:
        return self.question.model_answer


def _written() -> tuple[Written, ...]:
    found = []
    for title, parts in NOTEBOOK_QUESTIONS.items():
        notebook = int(title[:2])
        for _, part in parts:
            if isinstance(part, Questionnaire):
                found += [Written(f"{notebook:02}-{number}", notebook, number, title, question)
                          for number, question in enumerate(part.questions, start=1)
                          if isinstance(question, Discussion)]
    return tuple(found)


WRITTEN = _written()
BY_ID = {question.id: question for question in WRITTEN}


class Answer(str):
    """A submitted answer's text, and ``cut``: whether the grader cut it at MAX_ANSWER_CHARS.
    The flag travels beside the text, never in it, so that no answer can pass for a cut one
    by ending with the grader's words. A plain ``str`` is an answer that was not cut."""

    cut: bool

    def __new__(cls, text: str, cut: bool = False) -> Answer:
        answer = super().__new__(cls, text)
        answer.cut = cut
        return answer


class WrittenError(ValueError):
    """A notebook the written cell cannot be placed in; nothing was written."""


def _markdown(source: str, cell_id: str, written: str | list[str]):
    cell = nbformat.v4.new_markdown_cell(source, metadata={"ledgerlab": {"written": written}})
    cell.id = cell_id  # stable, so that re-running the tool changes nothing
    return cell


def _solutions(questions: list[Written]) -> str:
    calls = [f"`quiz[{question.number}].solution()`" for question in questions]
    return calls[0] if len(calls) == 1 else f"{', '.join(calls[:-1])} and {calls[-1]}"


def written_cell(notebook: int):
    """The markdown cell a learner writes in, after notebook ``notebook``'s quiz."""
    questions = [question for question in WRITTEN if question.notebook == notebook]
    if not questions:
        raise WrittenError(f"notebook {notebook:02} has no discussion question")
    lines = ["**Your answers in words.** Double-click this cell, replace each "
             f"{PLACEHOLDER} with your answer and press Shift+Enter to show it. Nothing checks "
             f"them: for a model answer to compare with, add a cell below (Esc, then B) and run "
             f"{_solutions(questions)} in it. In a "
             f"graded course, write them at the end of {syllabus.EXERCISES.link()}: "
             "that copy is the one your teacher reads."]
    for question in questions:
        lines += ["", f"**{question.number}.** {question.prompt}", "", PLACEHOLDER]
    return _markdown("\n".join(lines), CELL_ID, [question.id for question in questions])


QUIZ_LINE = re.compile(r"^quiz = quiz(\d\d)$", re.MULTILINE)
ADDED, UPDATED, UNCHANGED, NO_DISCUSSION = ("written cell added", "written cell updated",
                                            "unchanged", "skipped: no discussion question")


def _quiz_run_end(cells: list, quiz: int) -> int:
    """The index just after the quiz cell ``cells[quiz]`` and the code cells right after it
    that use the quiz (``quiz[1].check(...)``, ...): the checked questions come before the
    ones answered in words."""
    end = quiz + 1
    while end < len(cells) and cells[end].cell_type == "code" and "quiz[" in cells[end].source:
        end += 1
    return end


def with_written_cell(notebook) -> str:
    """Put the written cell after ``notebook``'s quiz cell and its ``quiz[n]`` cells, in
    place; what was done (ADDED, UPDATED, UNCHANGED, or NO_DISCUSSION for a notebook with no
    quiz or no discussion question in it, left as it is)."""
    # Any written cell already there is left out first: an older version, or one out of place.
    kept = [cell for cell in notebook.cells if cell.get("id") != CELL_ID]
    quiz = [index for index, cell in enumerate(kept)
            if cell.cell_type == "code" and QUIZ_LINE.search(cell.source)]
    if len(quiz) > 1:
        raise WrittenError(f"{len(quiz)} cells hold `quiz = quizNN`: expected one")
    number = int(QUIZ_LINE.search(kept[quiz[0]].source).group(1)) if quiz else None
    if number not in {question.notebook for question in WRITTEN}:
        return NO_DISCUSSION
    at = _quiz_run_end(kept, quiz[0])
    cells = [*kept[:at], written_cell(number), *kept[at:]]
    if cells == notebook.cells:
        return UNCHANGED
    had = len(kept) < len(notebook.cells)
    notebook.cells = cells
    return UPDATED if had else ADDED


# --- The graded edition -----------------------------------------------------------------

SECTION_HEAD = ("## Written answers (read by your teacher, not scored)\n\n"
                "The lessons' discussion questions, to answer in a few sentences each. "
                f"Double-click the cell under each question, replace {PLACEHOLDER} with your "
                "answer and press Shift+Enter. The grader does not score them: your teacher "
                "reads them beside a model answer.")


def written_section() -> list:
    """The cells appended to the graded exercises notebook: a heading, then per question a
    prompt cell and an answer cell that ``collect_written`` finds by its metadata."""
    cells = [nbformat.v4.new_markdown_cell(SECTION_HEAD)]
    cells[0].id = "written-head"
    for question in WRITTEN:
        prompt = nbformat.v4.new_markdown_cell(
            f"**{question.title}, question {question.number}.** {question.prompt}")
        prompt.id = f"written-{question.id}-question"
        cells += [prompt, _markdown(PLACEHOLDER, f"written-{question.id}", question.id)]
    return cells


def _source(cell: Mapping) -> str | None:
    """A cell's source, at most MAX_ANSWER_CHARS + 1 characters of it; None if it is not
    text (a hostile or broken notebook)."""
    source = cell.get("source")
    if isinstance(source, str):
        return source[:MAX_ANSWER_CHARS + 1]
    if not isinstance(source, list) or not all(isinstance(part, str) for part in source):
        return None
    kept, size = [], 0
    for part in source:  # a list of a million lines stops at the cap
        kept.append(part[:MAX_ANSWER_CHARS + 1 - size])
        size += len(kept[-1])
        if size > MAX_ANSWER_CHARS:
            break
    return "".join(kept)


def _answer(source: str) -> str:
    text = source.strip()
    if text.startswith(PLACEHOLDER):  # written after the placeholder rather than over it
        text = text[len(PLACEHOLDER):].strip()
    # A lone surrogate (JSON allows "\ud800") could not be written to the report as UTF-8.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def collect_written(notebook: object) -> dict[str, Answer]:
    """{question id: Answer} from a submitted notebook's answer cells, found by their metadata
    (never by position), whatever the cell's type. A cell left as it was given, or empty, is
    not answered, and neither is anything that is not text. Two cells for one question are
    joined. An answer longer than MAX_ANSWER_CHARS characters is cut there, its ``cut`` set."""
    cells = notebook.get("cells") if isinstance(notebook, Mapping) else None
    found: dict[str, str] = {}
    for cell in cells if isinstance(cells, list) else ():
        meta = cell.get("metadata") if isinstance(cell, Mapping) else None
        mark = meta.get("ledgerlab") if isinstance(meta, Mapping) else None
        key = mark.get("written") if isinstance(mark, Mapping) else None
        if not isinstance(key, str) or key not in BY_ID:
            continue
        if len(found.get(key, "")) > MAX_ANSWER_CHARS:  # more cells need not be read
            continue
        source = _source(cell)
        text = "" if source is None else _answer(source)
        if text:
            found[key] = f"{found[key]}\n\n{text}" if key in found else text
    return {question.id: Answer(found[question.id][:MAX_ANSWER_CHARS],
                                cut=len(found[question.id]) > MAX_ANSWER_CHARS)
            for question in WRITTEN if question.id in found}
