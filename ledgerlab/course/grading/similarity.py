"""The similarity report: identical answer cells and written answers across students.

Variants stop copied answers, not copied work (docs/grading.md says what each does): a
classmate's notebook with the copier's own key pasted back computes the copier's answers.
So the teacher gets a list, for a person to read, of every answer cell and every written
answer that two or more submissions hold alike. It never changes a score: the same short
answer can be written by two students who never met, and a teacher decides.

Two cells are alike when their code is, with comments, blank lines and the spaces at line
ends left out; a cell with an answer still as it was handed out (``budget = ...``) is
nobody's work and is not compared. Written answers are alike when their words are, case and spacing aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..exercises import GRADED
from ..written import BY_ID

MAX_CELL_CHARS = 20_000  # of a cell's code compared: an answer cell is a few lines
MIN_WRITTEN_WORDS = 4  # "yes", "backups" alone can be anyone's


def code_form(source: str) -> str:
    """A cell's code as it is compared: no comment lines, no blank lines, no spaces at the
    ends of lines."""
    lines = [line.rstrip() for line in source[:MAX_CELL_CHARS].splitlines()]
    return "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("#"))


def words_form(text: str) -> str:
    """A written answer as it is compared: its words, lowercased, one space between."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def answer_cells(notebook: Mapping) -> dict[str, str]:
    """{exercise name: its answer cell's code, as compared} of a submitted notebook, found by
    the cells' metadata (the handed-out ``ledgerlab.answer``)."""
    found: dict[str, str] = {}
    for cell in notebook.get("cells", []):
        mark = cell.get("metadata", {}).get("ledgerlab", {})
        name = mark.get("answer") if isinstance(mark, Mapping) else None
        if cell.get("cell_type") == "code" and name in GRADED and isinstance(cell.get("source"), str):
            found[name] = code_form(cell["source"])
    return found


# An answer variable still as handed out: `history = ...`.
UNANSWERED = re.compile(r"^\w+\s*=\s*\.\.\.(\s|$)", re.MULTILINE)


def alike(rows: Iterable[tuple[str, Mapping[str, str]]]) -> dict[str, dict[str, list[str]]]:
    """{key: {form: [submission, ...]}} for every form two or more submissions share under a
    key (an exercise, or a written question); a cell with an answer still ``...`` aside."""
    shared: dict[str, dict[str, list[str]]] = {}
    for submission, forms in rows:
        for key, form in forms.items():
            if form and not UNANSWERED.search(form):
                shared.setdefault(key, {}).setdefault(form, []).append(submission)
    return {key: {form: names for form, names in forms.items() if len(names) > 1}
            for key, forms in shared.items()
            if any(len(names) > 1 for names in forms.values())}


def similarity_page(cells: list[tuple[str, dict[str, str]]],
                    written: list[tuple[str, Mapping[str, str]]]) -> str:
    """The teacher's page: each answer cell and written answer that submissions share, with
    who shares it, then the pairs that share most. ``cells``: (submission, answer_cells);
    ``written``: (submission, {question id: answer})."""
    from .reports import markdown_name  # lazily: reports is the grader's writer

    same_cells = alike(cells)
    same_words = alike([(name, {key: words_form(text) for key, text in answers.items()
                                if len(words_form(text).split()) >= MIN_WRITTEN_WORDS})
                        for name, answers in written])
    lines = ["# Similarity: answers that submissions share", "",
             "For a person to read; no score was changed. Alike means the same code (comments, "
             "blank lines and spaces at line ends aside), or the same words in a written "
             "answer (case and spacing aside). A cell with an answer still `...` is not compared; "
             f"a written answer of fewer than {MIN_WRITTEN_WORDS} words is not either.", ""]
    pairs: dict[tuple[str, str], int] = {}
    for title, shared in (("Answer cells", same_cells), ("Written answers", same_words)):
        lines += [f"## {title}", ""]
        if not shared:
            lines += ["None alike.", ""]
        for key in sorted(shared):
            label = (f"exercise {GRADED[key].number}" if key in GRADED
                     else f"{key}: {BY_ID[key].title}, question {BY_ID[key].number}")
            for names in shared[key].values():
                lines.append(f"- {label}: alike in {len(names)} submissions: "
                             f"{', '.join(map(markdown_name, sorted(names)))}")
                for index, first in enumerate(sorted(names)):
                    for second in sorted(names)[index + 1:]:
                        pairs[first, second] = pairs.get((first, second), 0) + 1
        lines.append("")
    lines += ["## Pairs that share most", ""]
    if not pairs:
        lines.append("None.")
    for (first, second), count in sorted(pairs.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"- {markdown_name(first)} and {markdown_name(second)}: {count} alike")
    return "\n".join(lines) + "\n"
