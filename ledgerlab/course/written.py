"""Written answers: where a learner answers the discussion questions, and what the teacher reads.

A ``Discussion`` in a notebook's quiz (``quiz01[3]``, ...) is answered in words, and nothing
checks it. Each notebook with one has a markdown cell to write in after its quiz, below the
``quiz[n].check(...)`` cells, so that the questions that are checked come first
(``written_cell``; ``add_written_cells`` puts it there). The graded edition's exercises
notebook ends with every discussion question and an answer cell each (``written_section``);
``collect_written`` reads a submission's answers from those cells and ``written_report``
writes them, question by question beside the model answer, for the teacher to read. They
are not scored.

A question's id is its notebook and quiz number, ``"07-3"`` for ``quiz07[3]``; prompts and
model answers are the questions' own (``ledgerlab.course.questions``), never copied here.

    python -m ledgerlab.course.written add notebooks/02-bad-slice-vs-whole-turn.ipynb ...
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .feedback import Discussion, Questionnaire
from .questions import NOTEBOOK_QUESTIONS

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
             f"them: compare with {_solutions(questions)}. In a "
             "graded course, write them at the end of [10 · Exercises](10-exercises.ipynb): "
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


def _read(path: Path):
    try:
        return nbformat.read(path, as_version=4)
    except OSError:
        raise
    except Exception as error:  # nbformat raises several kinds for a file that is no notebook
        raise WrittenError(f"not a notebook ({type(error).__name__})") from None


def add_written_cells(*paths: Path) -> dict[Path, str]:
    """Put the written cell after the quiz of each notebook at ``paths``; what was done
    to each (``with_written_cell``). Idempotent; only that cell changes, never an output.
    Every file is read and checked before any is written: on an error (WrittenError,
    OSError) no file has changed."""
    from .grading.reports import write_atomically  # lazily: grading may import this module

    done, texts = {}, {}
    for path in map(Path, paths):
        try:
            notebook = _read(path)
            done[path] = with_written_cell(notebook)
        except WrittenError as error:
            raise WrittenError(f"{path}: {error} (no notebook was changed)") from None
        if done[path] in (ADDED, UPDATED):
            text = nbformat.writes(notebook)
            texts[path] = text if text.endswith("\n") else text + "\n"
    for path, text in texts.items():
        write_atomically(path, text)
    return done


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


# --- The teacher's report ---------------------------------------------------------------

ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}  # entities, which every renderer reads
# What Markdown (CommonMark, GitHub's, Jupyter's with its $ math) reads anywhere in a line:
# escaped with a backslash, so that no emphasis, code, link, table or math forms. The
# punctuation of prose ( ) . , - ' " is left as it is, to be read in a plain text editor too.
INLINE = re.compile(r"[\\`*_{}\[\]|~$]")
# What opens a block only at the start of a line: a heading, a list, a rule, a setext line.
LINE_START = re.compile(r"^(\s*)([#+=-]|\d+[.)])")


def quoted(text: str) -> str:
    """``text`` as a Markdown block quote in which nothing is live: no HTML, link, image,
    heading, list, table, emphasis or math; one visible line per line (controls and bidi
    characters shown as escapes). A bare URL may still be shown as a link by GitHub; its
    text is its address, so it cannot pass for anything else."""
    from ledgerlab import printable

    lines = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = INLINE.sub(lambda match: "\\" + match.group(), printable(line))
        line = "".join(ENTITIES.get(char, char) for char in line)
        line = LINE_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1],
                              line)
        lines.append(line.rstrip())
    # A backslash before a line break keeps the student's line breaks (CommonMark's hard
    # break), where a paragraph would run the lines together; a blank line stays a break.
    return "\n".join(f"> {line}\\" if line and following else f"> {line}".rstrip()
                     for line, following in zip(lines, [*lines[1:], ""]))


def written_page(rows: Iterable[tuple[str, Mapping[str, str]]]) -> str:
    """The teacher's page: per question, its prompt, the model answer, then each
    submission's answer quoted (``quoted``), or that it was not answered. An ``Answer``
    whose ``cut`` is set is followed by the grader's note that it was cut."""
    from .grading.reports import markdown_name

    rows = list(rows)
    for row in rows:
        if not (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str)
                and isinstance(row[1], Mapping)):
            raise TypeError("each row is (submission name, {question id: text})")
    lines = [f"# Written answers: {len(rows)} submission{'' if len(rows) == 1 else 's'}", "",
             "Read by the teacher, not scored. Each answer is quoted as it was written, escaped "
             "so that nothing in it is formatted or live.", ""]
    for question in WRITTEN:
        answered = [(name, answers[question.id]) for name, answers in rows
                    if isinstance(answers.get(question.id), str)]
        missing = [markdown_name(name) for name, answers in rows
                   if not isinstance(answers.get(question.id), str)]
        model = question.model_answer
        lines += [f"## {question.id}: {question.title}, question {question.number}", "",
                  f"**Question.** {question.prompt}", "",
                  f"**Model answer.** {model[:1].upper()}{model[1:]}", "",
                  f"Answered by {len(answered)} of {len(rows)}.", ""]
        for name, text in answered:
            lines += [f"### {markdown_name(name)}", "", quoted(text), ""]
            if getattr(text, "cut", False) is True:
                lines += [f"*Cut at {MAX_ANSWER_CHARS:,} characters by the grader.*", ""]
        if missing:
            lines += [f"*Not answered:* {', '.join(missing)}.", ""]
    return "\n".join(lines)


def written_report(rows: Iterable[tuple[str, Mapping[str, str]]], path: Path) -> Path:
    """Write ``written_page(rows)`` to ``path``, whole or not at all."""
    from .grading.reports import write_atomically

    text = written_page(rows)  # a bad row raises before anything is written
    path = Path(path)
    write_atomically(path, text)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledgerlab.course.written",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = commands.add_parser("add", help="put the written cell after each notebook's quiz "
                              "(idempotent; a notebook without a discussion is skipped)")
    add.add_argument("notebooks", nargs="+", type=Path, metavar="NOTEBOOK")
    args = parser.parse_args(argv)
    try:
        done = add_written_cells(*args.notebooks)
    except (WrittenError, OSError) as error:
        print(f"python -m ledgerlab.course.written add: {error}", file=sys.stderr)
        return 1
    for path, what in done.items():
        print(f"{path}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
