"""The similarity report: identical answer cells and written answers across students.

Variants stop copied answers, not copied work (docs/grading.md says what each does): a
classmate's notebook with the copier's own key pasted back computes the copier's answers.
So the teacher gets a list, for a person to read, of every answer cell and every written
answer that two or more submissions hold alike. It never changes a score: the same short
answer can be written by two students who never met, and a teacher decides.

Two cells are alike when their code is, with comments, blank lines and the spaces at line
ends left out; a cell with an answer still as it was handed out (``budget = ...``) is
nobody's work and is not compared. Written answers are alike when their words are, case and spacing aside.

A shared answer weighs by how unusual it is in the class: ``weight(k) = ln(N / k)`` for an
answer ``k`` of the ``N`` submissions compared hold alike. The obvious code most of the
class writes weighs little (10 of 12: 0.18), and an answer two of them alone hold weighs
much (2 of 12: 1.79), so two honest students who both wrote the obvious cells do not
outrank a copy. A pair's weight is the sum over what it shares, and pairs are listed by it.

At a class's size (a roster allows 5,000): each answer is grouped under a 16-byte hash of its
form, so time and memory grow with the class, not with its square, and only the
submissions of one group are paired. A group of more than ``MAX_PAIRED`` submissions is an
answer the class has in common: it is listed, with who holds it, but it pairs no one (it
would pair everyone with everyone, and point at no one). The page lists the
``MAX_PAIRS_SHOWN`` pairs that weigh most, and says how many more there are. Exercises are
listed by number (2 before 10), then the written questions in the course's.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

from ..exercises import GRADED
from ..written import BY_ID

MAX_CELL_CHARS = 20_000  # of a cell's code compared: an answer cell is a few lines
MIN_WRITTEN_WORDS = 4  # "yes", "backups" alone can be anyone's
MAX_PAIRED = 10  # submissions in a group that pairs them: a larger one is a common answer
MAX_PAIRS_SHOWN = 100  # the pairs that weigh most; the rest are counted
# Where each key is listed: exercises by number, then the written questions in course order.
ORDER = {key: place for place, key in enumerate([*sorted(GRADED, key=lambda name: GRADED[name].number),
                                                 *BY_ID])}


def weight(holders: int, compared: int) -> float:
    """How much an answer ``holders`` of the ``compared`` submissions share weighs: ln(N / k),
    0 for an answer all of them hold."""
    return math.log(compared / holders) if 0 < holders <= compared else 0.0


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
    if not isinstance(notebook, Mapping):
        raise TypeError(f"notebook must be a Mapping (a notebook as nbformat reads it), "
                        f"not {type(notebook).__name__}")
    found: dict[str, str] = {}
    cells = notebook.get("cells", [])
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, Mapping):  # what parse_notebook would refuse: no answer here
            continue
        metadata = cell.get("metadata", {})
        mark = metadata.get("ledgerlab", {}) if isinstance(metadata, Mapping) else {}
        name = mark.get("answer") if isinstance(mark, Mapping) else None
        if cell.get("cell_type") == "code" and isinstance(name, str) and name in GRADED \
                and isinstance(cell.get("source"), str):
            found[name] = code_form(cell["source"])
    return found


# An answer variable still as handed out: `history = ...`.
UNANSWERED = re.compile(r"^\w+\s*=\s*\.\.\.(\s|$)", re.MULTILINE)


def fingerprint(form: str) -> bytes:
    """What a form is grouped by: 16 bytes of its BLAKE2b hash, whatever its length (a
    source read from JSON may hold a lone surrogate, which is hashed as it is)."""
    return hashlib.blake2b(form.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _check_iterable(rows: object, argument: str) -> None:
    """A TypeError naming ``argument`` unless ``rows`` is an iterable of rows."""
    if not isinstance(rows, Iterable) or isinstance(rows, (str, bytes, Mapping)):
        raise TypeError(f"{argument} must be an iterable of (submission, {{key: text}}) rows, "
                        f"not {type(rows).__name__}")


def _rows(rows: Iterable, argument: str) -> Iterator[tuple[str, Mapping[str, str]]]:
    """``rows`` one by one, each checked: (submission name, {key: text})."""
    _check_iterable(rows, argument)
    for row in rows:
        if not (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str)
                and isinstance(row[1], Mapping)
                and all(isinstance(key, str) and isinstance(text, str)
                        for key, text in row[1].items())):
            raise TypeError(f"each row of {argument} must be (submission name, "
                            f"{{key: text}}), with str names, keys and texts")
        yield row


def alike(rows: Iterable[tuple[str, Mapping[str, str]]], argument: str = "rows"
          ) -> dict[str, list[list[str]]]:
    """{key: [[submission, ...], ...]}: under each key (an exercise, or a written question),
    the submissions that share a form, two or more, each group's names sorted, the groups
    smallest first; a cell with an answer still ``...`` aside. ``rows`` is read once, row by
    row, and only each form's ``fingerprint`` is kept; a wrong row is a TypeError that
    names ``argument``."""
    groups: dict[str, dict[bytes, list[str]]] = {}
    for submission, forms in _rows(rows, argument):
        for key, form in forms.items():
            if form and not UNANSWERED.search(form):
                groups.setdefault(key, {}).setdefault(fingerprint(form), []).append(submission)
    shared = {}
    for key, by_form in groups.items():
        found = sorted((sorted(names) for names in by_form.values() if len(names) > 1),
                       key=lambda names: (len(names), names))
        if found:
            shared[key] = found
    return shared


def _written_forms(written: Iterable[tuple[str, Mapping[str, str]]]
                   ) -> Iterator[tuple[str, dict[str, str]]]:
    """Each submission's written answers as compared: their words, four or more."""
    for name, answers in _rows(written, "written"):
        forms = {key: words_form(text) for key, text in answers.items()}
        yield name, {key: form for key, form in forms.items()
                     if len(form.split()) >= MIN_WRITTEN_WORDS}


def _counted(rows: Iterable, seen: set[str]) -> Iterator:
    """``rows`` as they are, the submission name of each that holds an answer added to
    ``seen``: the submissions compared (a row of the wrong shape is left for ``_rows`` to
    refuse; one with nothing, a student who handed nothing in, is not compared)."""
    for row in rows:
        if isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], str) and row[1]:
            seen.add(row[0])
        yield row


def similarity_page(cells: Iterable[tuple[str, Mapping[str, str]]],
                    written: Iterable[tuple[str, Mapping[str, str]]]) -> str:
    """The teacher's page: each answer cell and written answer that submissions share, with
    who shares it and its weight (``weight``), then the pairs whose shared answers weigh
    most. ``cells``: (submission, answer_cells), read once (a generator keeps one notebook's
    cells in memory at a time); ``written``: (submission, {question id: answer})."""
    from .reports import markdown_name  # lazily: reports is the grader's writer

    _check_iterable(cells, "cells")
    _check_iterable(written, "written")
    seen: set[str] = set()
    same_cells = alike(_counted(cells, seen), "cells")
    same_words = alike(_written_forms(_counted(written, seen)), "written")
    compared = len(seen)
    lines = ["# Similarity: answers that submissions share", "",
             "For a person to read; no score was changed. Alike means the same code (comments, "
             "blank lines and spaces at line ends aside), or the same words in a written "
             "answer (case and spacing aside). A cell with an answer still `...` is not compared; "
             f"a written answer of fewer than {MIN_WRITTEN_WORDS} words is not either. An "
             f"answer more than {MAX_PAIRED} submissions share is one the class has in common: "
             "it is listed, but pairs no one.", "",
             f"Each shared answer weighs ln(N / k), N being the {compared} submissions compared "
             "and k those that hold it: the obvious answer most of the class writes weighs "
             "little, one that two alone hold weighs much. Pairs are listed by the weight of "
             "what they share.", ""]
    shown: dict[str, str] = {}  # each name made safe once, however many groups it is in

    def names_shown(names: list[str]) -> str:
        return ", ".join(shown.get(name) or shown.setdefault(name, markdown_name(name))
                         for name in names)

    pairs: Counter[tuple[str, str]] = Counter()  # how many answers each pair shares
    weights: dict[tuple[str, str], float] = {}  # and what they weigh together
    for title, shared in (("Answer cells", same_cells), ("Written answers", same_words)):
        lines += [f"## {title}", ""]
        if not shared:
            lines += ["None alike.", ""]
        for key in sorted(shared, key=lambda key: (ORDER.get(key, len(ORDER)), key)):
            label = (f"exercise {GRADED[key].number}" if key in GRADED
                     else f"{key}: {BY_ID[key].title}, question {BY_ID[key].number}")
            for names in shared[key]:
                common = ", an answer in common (it pairs no one)" if len(names) > MAX_PAIRED else ""
                heavy = weight(len(names), compared)
                lines.append(f"- {label}: alike in {len(names)} submissions (weight {heavy:.2f})"
                             f"{common}: {names_shown(names)}")
                if not common:
                    for pair in itertools.combinations(names, 2):  # names are sorted
                        pairs[pair] += 1
                        weights[pair] = weights.get(pair, 0.0) + heavy
        lines.append("")
    lines += ["## Pairs whose shared answers weigh most", ""]
    if not pairs:
        lines.append("None.")
    top = heapq.nsmallest(MAX_PAIRS_SHOWN, pairs,
                          key=lambda pair: (-round(weights[pair], 9), -pairs[pair], pair))
    for first, second in top:
        lines.append(f"- {names_shown([first])} and {names_shown([second])}: weight "
                     f"{weights[(first, second)]:.2f}, {pairs[(first, second)]} alike")
    if len(pairs) > len(top):
        lines.append(f"- and {len(pairs) - len(top):,} more pairs, each weighing "
                     f"{weights[top[-1]]:.2f} or less (each is in a list above)")
    return "\n".join(lines) + "\n"
