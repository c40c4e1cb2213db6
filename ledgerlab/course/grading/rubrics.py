"""A rubric for each question answered in words, and where the teacher scores them.

The answers in words are not scored by the grader (``ledgerlab.course.written``). A teacher
who scores them has, per question, the points each idea of the model answer earns: the
rubric is in the teacher's key (``teacher/answer-key.md``, ``rubric_section``), and the
grading run's written report ends with a table per question to fill in, with
``<stem>-written-scores.csv`` beside it to total them.
"""

from __future__ import annotations

from ..questions import answer_key
from ..written import WRITTEN

# question id -> the ideas a full answer holds, one point each, in the model answer's words.
RUBRICS: dict[str, tuple[str, ...]] = {
    "01-3": ("the request is built afresh for each call, from the ledger",
             "building it writes nothing: the trimmed turn is still stored"),
    "02-3": ("the model reads an answer without its question (or without the system message)",
             "the conversation is wrong, not just shorter",
             "nothing reports it: no error is raised"),
    "05-3": ("fails closed: refuse to open and change nothing, rather than guess",
             "a complete line was acknowledged (its newline reached the disk)",
             "dropping it would silently lose acknowledged data"),
    "06-3": ("one copy out of reach: a backup or a snapshot",
             "a second: blocks a copy-on-write file system or an SSD remapped, or a request "
             "already sent to the provider"),
    "07-2": ("bytes per token depend on the text and the tokenizer (English, Chinese, emoji "
             "differ)",
             "so x4 overshoots for some texts and undershoots for others",
             "the window must also keep room for the reply: measure both limits"),
    "07-3": ("the reserve leaves no room for any request at all, whatever the conversation",
             "so the arguments are inconsistent: ValueError, before the request is looked at",
             "BudgetError is about this request's mandatory input not fitting limits that "
             "could hold some request"),
    "08-4": ("deleting the turn deletes what was taken from it (forget and retain remove the "
             "facts whose origin they remove)",
             "nothing derived from a forgotten turn stays on disk or in a request",
             "the origin tells the model and a reader where the fact comes from"),
    "11-2": ("the round answers the question asked now: the model needs the result to go on",
             "a result without its call is refused, and a call without its result makes the "
             "model call again",
             "stored turns can be dropped whole and brought back; the round in progress cannot, "
             "and when it does not fit the honest answer is BudgetError"),
    "12-3": ("an entry lives only its lifetime from its last use: a call half an hour later finds "
             "nothing cached, whatever its prefix",
             "holding the first kept turn then saves nothing, and after a cut the model sees "
             "fewer turns for no gain",
             "so a low_water close to 1.0 (or the longer lifetime, if the calls come within "
             "it)"),
    "12-4": ("the cache key is the byte prefix: evidence that changes with each question "
             "changes every byte after it",
             "so the turns after it are written again on every call, whatever turn is kept "
             "first",
             "after the turns (evidence_after_turns=True) it leaves the system and the turns as "
             "the last call sent them, read from the cache; the evidence itself is not cached"),
}


def points(question: str) -> int:
    return len(RUBRICS[question])


def rubric_section() -> str:
    """The rubrics, as the teacher's key ends with them."""
    lines = ["## Rubrics for the answers in words", "",
             "One point for each idea; the grader does not score these. The written report of "
             "a grading run ends with a table per question to score them in, and "
             "`grades-written-scores.csv` beside it to total them.", ""]
    for question in WRITTEN:
        lines += [f"### {question.id}: {question.title}, question {question.number} "
                  f"({points(question.id)} points)", "", f"{question.prompt}", ""]
        lines += [f"- {idea} (1 point)" for idea in RUBRICS[question.id]]
        lines.append("")
    return "\n".join(lines)


def teacher_key() -> str:
    """``teacher/answer-key.md``: every prediction and quiz answer, then the rubrics
    (``python tools/answer_key.py`` writes it, and a test fails when it drifts)."""
    return answer_key() + "\n" + rubric_section()
