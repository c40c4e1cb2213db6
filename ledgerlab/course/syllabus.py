"""The course's manifest: each notebook's number, file, title, minutes and what it teaches.

This is the one place they are written (learntools' ``track_meta.py`` is the model). The
questions take their titles from here (``heading``); the text that repeats them (the README's
table of notebooks, ``00-contents``' table and times, each notebook's title and its
Previous/Next links, and the two-session plan of ``teacher/TEACHING.md``) is written from here
by ``python tools/syllabus.py``, and ``tests/course/test_syllabus.py`` fails when any copy
differs.

A notebook's minutes are not guessed but measured from the notebook (``measured_minutes``):
its prose at a reading rate, plus a fixed time for each prediction, quiz question, answer in
words, exercise and other code cell (``METHOD`` says it in one sentence). The minutes below are
that measure, rounded; the test allows ``tolerance(minutes)`` of drift, so that a small edit
does not move every plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    """One notebook of the course: ``notebooks/{file}``, titled ``heading``."""

    number: int
    file: str
    title: str
    minutes: int
    teaches: str

    @property
    def heading(self) -> str:
        return f"{self.number:02} · {self.title}"

    def link(self, folder: str = "") -> str:
        """A Markdown link to the notebook, from ``folder`` (e.g. ``"learner/"``)."""
        return f"[{self.heading}]({folder}{self.file})"


LESSONS = (
    Lesson(0, "00-contents.ipynb", "Contents", 13,
           "The question the course answers, how to run it, and the glossary."),
    Lesson(1, "01-storage-vs-context.ipynb", "Storage vs context", 19,
           "The ledger on disk and the request in a call: what each holds, and why a projection "
           "never changes the ledger."),
    Lesson(2, "02-bad-slice-vs-whole-turn.ipynb", "Bad slice vs whole-turn slice", 28,
           "Slicing by message count sends an answer without its question and drops the system "
           "message; the whole-turn rule keeps `SYSTEM`, whole turns and the question. The rule "
           "in the library's own code, a budget slider, and an optional exercise: write the rule, "
           "checked against `select` on random histories."),
    Lesson(3, "03-the-length-trap.ipynb", "The length trap", 21,
           "UTF-16 units, code points, UTF-8 bytes and wire bytes: what Java measures, and what "
           "goes over the wire. Three encoders, three outcomes."),
    Lesson(4, "04-the-boundary-table.ipynb", "The boundary table", 22,
           "The article's boundary table built live, the budget one byte too small, and a slider "
           "over the fixture."),
    Lesson(5, "05-the-ledger.ipynb", "The ledger", 33,
           "The projection scenario on a real journal: can a trimmed fact come back? Then what "
           "the journal does with a torn tail, a corrupt line (and `salvage`) and a second "
           "writer."),
    Lesson(6, "06-the-costs-of-a-ledger.ipynb", "The costs of a ledger", 25,
           "Disk growth and the 4 MiB cap, hiding a turn from a request against deleting it "
           "(`forget`), `retain`, and what deletion cannot reach."),
    Lesson(7, "07-two-limits.ipynb", "Two limits: bytes and tokens", 27,
           "A byte budget is not a token budget, and a provider limit must also leave room for "
           "the answer."),
    Lesson(8, "08-pinned-facts.ipynb", "Pinned facts: explicit origins and budgets", 29,
           "The article's open trade-off: keep an early fact in every request with its origin "
           "and a budget of its own, and delete it with the turn it came from."),
    Lesson(9, "09-summaries-and-evidence.ipynb", "Summaries and evidence: memory with origins", 30,
           "A summary of early turns carries ORCHID-17 back within a summaries budget; evidence "
           "cited by its source; how one budget splits five ways; what `forget` does to a "
           "summary of the turn it deletes, and `derived_from`."),
    Lesson(10, "10-tool-turns.ipynb", "Tool turns: whole turns in real APIs", 29,
           "The article's question answered through a tool: a message-count slice orphans the "
           "tool result and the provider refuses it, the whole-turn rule keeps the pair; what "
           "tool schemas and a second dialect cost."),
    Lesson(11, "11-images-loops-and-reasoning.ipynb", "Images, tool loops and reasoning", 28,
           "An image's bytes against its tokens; a tool loop in progress under a tight budget; "
           "reasoning between tool calls, which a trimmer may not drop or edit."),
    Lesson(12, "12-prompt-caching.ipynb", "Prompt caching: a prefix the provider can keep", 36,
           "What a provider's prompt cache keeps (the literal byte prefix) and bills; a trim that "
           "moves the first kept turn rewrites the history at the write price, the cache-stable "
           "rule (`previous=`, `low_water=`) holds it; a `low_water` slider, and `ledgerlab prefix`: "
           "why a request missed."),
    Lesson(13, "13-exercises.ipynb", "Exercises", 83,
           "Twelve exercises: the article's own, in two parts, four more, 07's token window, 08's "
           "pinned facts, 10's tool messages, 09's summary, 11's turn with its reasoning and 12's "
           "cache-stable schedule, each with `check()`, `hint()` and `solution()`."),
    Lesson(14, "14-solutions.ipynb", "Solutions", 10,
           "Every exercise answered, every check passing."),
)


# The notebooks that are not a lesson: the contents first, the exercises and their solutions
# last. Every other notebook is a lesson (a session, with its questions and its slide deck).
CONTENTS, EXERCISES, SOLUTIONS = LESSONS[0], LESSONS[-2], LESSONS[-1]


def sessions() -> tuple[Lesson, ...]:
    """The lessons themselves, each a session: every notebook but the contents, the exercises
    and the solutions."""
    return LESSONS[1:-2]


def lesson(number: int) -> Lesson:
    """The notebook numbered ``number`` (0 to the solutions')."""
    found = [each for each in LESSONS if each.number == number]
    if not found:
        raise KeyError(f"the course has no notebook {number!r}: they are 0 to {len(LESSONS) - 1}")
    return found[0]


def heading(number: int) -> str:
    """``"04 · The boundary table"``: how the course names notebook ``number`` everywhere."""
    return lesson(number).heading


def total_minutes() -> int:
    return sum(each.minutes for each in LESSONS)


def course_length() -> str:
    """The whole course, the sum of its notebooks' minutes: ``"5 hours 20 minutes"``."""
    hours, minutes = divmod(total_minutes(), 60)
    return f"{hours} hours {minutes} minutes" if minutes else f"{hours} hours"


def navigation(number: int) -> str:
    """The line that ends notebook ``number``: its Previous, Contents and Next links."""
    parts = []
    if number > 0:
        parts.append(f"Previous: {lesson(number - 1).link()}")
    if number > 1:
        parts.append(f"[Contents]({LESSONS[0].file})")
    if number < len(LESSONS) - 1:
        parts.append(f"Next: {lesson(number + 1).link()}")
    return " · ".join(parts)


def table(first: int = 0, folder: str = "") -> str:
    """The table of notebooks from ``first`` to the last (the README's and ``00-contents``'), each linked
    from ``folder``."""
    rows = [f"| {each.link(folder)} | {each.minutes} | {each.teaches} |"
            for each in LESSONS if each.number >= first]
    return "\n".join(["| notebook | minutes | what it teaches |", "|---|---|---|", *rows])


# --- The measure ---------------------------------------------------------------------------

WORDS_PER_MINUTE = 200
MINUTES_PER = {"prediction": 2, "quiz question": 2, "answer in words": 3, "exercise": 6,
               "other code cell": 0.5}

METHOD = ("Each notebook's minutes are measured from the notebook itself: its prose at "
          f"{WORDS_PER_MINUTE} words a minute, plus {MINUTES_PER['prediction']} minutes for each "
          f"prediction, {MINUTES_PER['quiz question']} for each checked quiz question, "
          f"{MINUTES_PER['answer in words']} for each answer in words, "
          f"{MINUTES_PER['exercise']} for each exercise and half a minute for each other code "
          "cell, rounded to the minute (`ledgerlab/course/syllabus.py`).")

_LINK_TARGET = re.compile(r"\]\([^)]*\)")  # a link's address is not read
_WORD = re.compile(r"\w[\w'’.,:;!?-]*")
_ELLIPSIS = re.compile(r"(?<![.\w])\.\.\.(?![.\w])")  # the learner's answer goes here


def workload(cells: list[dict]) -> dict[str, int]:
    """What a learner does in a notebook (its cells as the ``.ipynb`` JSON holds them): the
    prose words, and how many of each item ``MINUTES_PER`` times."""
    prose = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    codes = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    codes = [code for code in codes  # a commented-out hint() is there if needed, not run
             if any(line.strip() and not line.lstrip().startswith("#")
                    for line in code.splitlines())]
    count = {"words": len(_WORD.findall(_LINK_TARGET.sub("]", prose))),
             "prediction": sum(".check(my_answer)" in code for code in codes),
             "quiz question": sum(bool(re.match(r"quiz\[\d+\]\.check\(", code)) for code in codes),
             "answer in words": len(re.findall(r"^\*Your answer:\*$", prose, re.MULTILINE)),
             "exercise": sum(bool(re.search(r"^(?:q\d+|exercise\d\d)\.check\(", code,
                                            re.MULTILINE)
                                  and _ELLIPSIS.search(code)) for code in codes)}
    count["other code cell"] = len(codes) - sum(count[item] for item in
                                                ("prediction", "quiz question", "exercise"))
    return count


def measured_minutes(cells: list[dict]) -> int:
    """``METHOD`` applied to a notebook's cells, rounded to the minute."""
    count = workload(cells)
    return round(count["words"] / WORDS_PER_MINUTE
                 + sum(MINUTES_PER[item] * count[item] for item in MINUTES_PER))


def tolerance(minutes: int) -> int:
    """How far a stated time may be from the measure: 2 minutes, or a tenth if that is more."""
    return max(2, round(minutes / 10))
