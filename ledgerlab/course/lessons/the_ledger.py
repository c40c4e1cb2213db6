"""05 · The ledger: the projection scenario on a real journal, and a journal's damage.

The predictions and the quiz, on the projection scenario (``scenario``: its journal, the narrow
and wide requests, a torn tail, a refused budget), and exercise 6: a journal whose third line a
crash tore (what does opening it leave?). The exercise is checked against a variant, which
``ledgerlab.course.exercises`` gives it (``q6``); ``ledgerlab.course.questions`` gathers the
predictions and the quiz. How a question is asked and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

from ledgerlab import Journal, Turn, byte_breakdown, encode_record, select

from .. import fixtures, scenario
from ..display import turns as count_turns
from ..feedback import (NEGATIVE, Discussion, Exercise, Feedback, Question, Questionnaire,
                        as_integral, correct, not_whole, wrong)
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------


def _journal_after_torn_tail(torn_bytes: int = 30) -> tuple[int, int]:
    """Turns and file bytes after opening the scenario's journal with a torn fourth line
    (its first ``torn_bytes`` bytes)."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "torn.log"
        lines = [encode_record(turn_id, turn.question, turn.answer)
                 for turn_id, turn in fixtures.SCENARIO_TURNS]
        lines.append(encode_record("three", fixtures.NEXT_STEP_QUESTION,
                                   fixtures.LOCAL_FIXTURE_REPLY))
        torn = encode_record("four", "A question cut short.", "Never acknowledged.")[:torn_bytes]
        path.write_bytes(b"".join(lines) + torn)
        with Journal(path) as journal:
            return len(journal), path.stat().st_size


def _scenario_wide_sent(budget: int) -> int:
    """Bytes select sends of the scenario's three turns and its wide question (step 4)."""
    turns = [turn for _, turn in fixtures.SCENARIO_TURNS]
    turns.append(Turn(fixtures.NEXT_STEP_QUESTION, fixtures.LOCAL_FIXTURE_REPLY))
    return select(fixtures.SCENARIO_SYSTEM, turns, fixtures.WIDE_QUESTION, budget).size


def _scenario_report() -> dict:
    with tempfile.TemporaryDirectory() as directory:
        return scenario.run_projection_scenario(Path(directory) / "scenario.log")


def _scenario_parts(step: int) -> dict:
    """The scenario's full request in parts at step 2 (two turns, the next-step question) or
    step 4 (three turns, after the reply; the wide question)."""
    turns = [turn for _, turn in fixtures.SCENARIO_TURNS]
    if step == 2:
        return byte_breakdown(fixtures.SCENARIO_SYSTEM, turns, fixtures.NEXT_STEP_QUESTION)
    turns.append(Turn(fixtures.NEXT_STEP_QUESTION, fixtures.LOCAL_FIXTURE_REPLY))
    return byte_breakdown(fixtures.SCENARIO_SYSTEM, turns, fixtures.WIDE_QUESTION)


def _total(parts: dict, *, turns: list[int] | None = None, question: int | None = None) -> int:
    """The request ``parts`` add up to, with other turns or another question if given."""
    return (parts["envelope"] + parts["system"] + sum(parts["turns"] if turns is None else turns)
            + (parts["question"] if question is None else question))


def _narrow_mistakes() -> dict[int, str]:
    parts = _scenario_parts(2)
    older, newer = parts["turns"]
    return {_total(parts): "that holds both turns; the narrow budget has room for turn two only.",
            _total(parts, turns=[older]): "that keeps turn one, the older. Turn two is the "
            "second in the list, the newest.",
            _total(parts, turns=[]): "that is the mandatory input alone; the narrow request "
            "holds turn two as well.",
            newer: "that is turn two alone: the request also carries the envelope, the system "
                   "message and the question.",
            _total(parts, turns=[newer]) - parts["envelope"]: "that leaves out the envelope "
            "(the model field, brackets and separators): it is sent too.",
            _total(parts, turns=[newer]) - parts["system"]: "that leaves out the system "
            "message: it is in every request.",
            _total(parts, turns=[newer], question=0): "that leaves out the question: it is in "
            "every request."}


def _wide_mistakes() -> dict[int, str]:
    before, now = _scenario_parts(2), _scenario_parts(4)
    one, two, three = now["turns"]
    narrow = _scenario_report()["narrow_request_bytes"]
    return {narrow: "that is step 2's narrow request; the wide budget has room for every "
            "stored turn.",
            narrow + three + now["question"]: "that adds turn three and the new question to "
            "step 2's narrow request, which still holds its old question and leaves out turn "
            "one. The old question is inside turn three now, and every stored turn fits.",
            _total(now, question=0): "that leaves out the question: the request ends with the "
            "new one.",
            _total(before): "that is step 2's full request: two turns and the old question. The "
            "ledger holds three turns now, and the question changed.",
            _total(now, turns=[one, two]): "that leaves out turn three: the reply committed in "
            "step 3 is a stored turn now.",
            _total(now, turns=[two, three]): "that leaves out turn one. A budget the full "
            "request fits keeps every turn.",
            _total(now) + before["question"]: "that sends both questions. The old one is inside "
            "turn three now; a request ends with one question, the new one.",
            _total(now, question=before["question"]): "that counts step 2's question; the new "
            "question has other bytes.",
            _total(now) - now["envelope"]: "that leaves out the envelope (the model field, "
            "brackets and separators): it is sent too.",
            _total(now) - now["system"]: "that leaves out the system message: it is in every "
            "request."}


# --- The predictions and the quiz --------------------------------------------------------

predict05_narrow = Question(
    "How many bytes is step 2's budget: the request holding turn two only, and the question "
    f"{fixtures.NEXT_STEP_QUESTION!r}?",
    lambda: _scenario_report()["narrow_request_bytes"],
    explanation="a request is its parts: the envelope, the system message, the turns it keeps "
                "and the question. At exactly that size, select keeps turn two and has no room "
                "for turn one.",
    hint="a request is the envelope, the system message, the turns it keeps and the question: "
         "add up those parts, with the newer of the two turns only.",
    mistakes=_narrow_mistakes,
)

predict05_wide = Question(
    "After the reopen, the wide budget is the size of the full request: every stored turn and "
    f"the new question {fixtures.WIDE_QUESTION!r}. How many bytes is it?",
    lambda: _scenario_report()["wide_request_bytes"],
    explanation="every stored turn fits, so the request is all of its parts: the envelope and "
                "the system message, turn one and turn two as in step 2, turn three (step 3's "
                "question and its reply) and the new question.",
    hint="start from step 2's parts (envelope, system message, turns one and two), add turn "
         "three, and end with one question: which one is asked now?",
    mistakes=_wide_mistakes,
)

predict05 = Question(
    "After closing and reopening the journal, a new question gets a budget the full request "
    "fits. How many stored turns does that request send (and is ORCHID-17, from turn one, "
    "among them)?",
    # The wide budget is the full request's size, so the request sends every stored turn.
    lambda: _scenario_report()["reopened_turns"],
    explanation="the narrow request left the turn out but never wrote to the journal; reopening "
                "reads every stored turn back, and a wide budget sends them all, ORCHID-17 "
                "with turn one.",
    hint="did building the narrow request change the journal's file bytes?",
    mistakes=lambda: {_scenario_report()["reopened_turns"] - 1: "the narrow request only left "
                      "turn one out of one request. Where is the turn stored, and did that "
                      "change?"},
)

predict05_torn = Question(
    "The journal holds three acknowledged turns, then the first 30 bytes of a fourth line (a "
    "crash mid-append). How many turns does it hold once opened?",
    lambda: _journal_after_torn_tail()[0],
    explanation="the fourth line was never acknowledged (its commit never returned), so it is "
                "a torn tail: cut, and the cut synced. Nothing acknowledged is lost.",
    hint="was the fourth turn ever acknowledged to the caller?",
    mistakes=lambda: {4: "30 bytes are not a turn: the fourth commit never returned, so "
                         "nothing was promised.",
                      0: "a torn tail is not corruption in the middle: the journal does not "
                         "refuse to open over it.",
                      2: "that loses an acknowledged turn with the torn bytes. What does the "
                         "journal cut: the last line, or only what follows the last newline?"},
)

quiz05 = Questionnaire(heading(5), [
    Question("Step 4's wide request sends three turns in 480 bytes. With a 479-byte budget "
             "instead, how many bytes does select send?",
             lambda: _scenario_wide_sent(479),
             explanation="480 bytes do not fit, so select drops the oldest whole turn, 'one' "
                         "(the one holding ORCHID-17), and sends the other two.",
             hint="what does select do when the request is one byte too large? Measure the "
                  "request without turn one.",
             mistakes=lambda: {_scenario_wide_sent(480): "480 bytes do not fit in a 479-byte "
                               "budget: select drops the oldest whole turn.",
                               479: "a budget is a ceiling, not a target: select never cuts "
                                    "inside a turn to fill it.",
                               _scenario_report()["narrow_request_bytes"]: "that is step 2's "
                               "narrow request, for another question."}),
    Question("Suppose the torn fourth line had been 100 bytes instead of 30. How many bytes is "
             "the file once the journal has opened it?",
             lambda: _journal_after_torn_tail(100)[1],
             explanation="whatever follows the last newline was never acknowledged, 30 bytes or "
                         "100: it is cut, and the three complete lines stay.",
             hint="does the length of the torn tail change what is cut?",
             mistakes=lambda: {_journal_after_torn_tail(100)[1] + 100: "that keeps the torn "
                               "bytes: nothing after the last newline was acknowledged.",
                               _journal_after_torn_tail(100)[1] + 30: "that is the notebook's "
                               "file before opening, with its 30 torn bytes."}),
    Discussion("What does 'fails closed' mean, and why is it right for a corrupt line in the "
               "middle of the journal?",
               "on damage it cannot explain, the journal refuses to open and changes nothing, "
               "rather than guess and go on. A complete line was acknowledged (its newline "
               "reached the disk), so dropping it would silently lose acknowledged data."),
])


# --- Exercise 6: a torn tail in the journal ----------------------------------------------
# An Exercise but the variant it checks against, which ``ledgerlab.course.exercises`` gives
# it (``q6``), as exercises 1 to 5 (``the_boundary_table``). The checker takes that variant,
# ``v``, first.


def torn_journal(v) -> bytes:
    """Journal bytes: two complete turns, then a third line torn by a crash (the scenario's
    turns one and two in the article's fixture)."""
    lines = [encode_record(turn_id, turn.question, turn.answer)
             for turn_id, turn in v.journal_turns]
    third = encode_record("three", v.torn_turn.question, v.torn_turn.answer)
    return b"".join(lines) + third[:v.torn_after]


def reopened(data: bytes) -> tuple[int, int]:
    """Turns and file bytes after a real Journal opens a file holding ``data``."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "torn.log"
        path.write_bytes(data)
        with Journal(path) as journal:
            return len(journal), path.stat().st_size


def _check_torn(v, turns_after_open: object, file_bytes_after_open: object) -> Feedback:
    turns, size = as_integral(turns_after_open), as_integral(file_bytes_after_open)
    if turns is None:
        return not_whole(turns_after_open, "turns")
    if size is None:
        return not_whole(file_bytes_after_open, "bytes")
    if turns < 0 or size < 0:
        return wrong(NEGATIVE)
    data = torn_journal(v)
    kept, good = reopened(data)  # the truth: what a real journal does with the file
    if (turns, size) == (good, kept):
        return wrong("your two answers look swapped: check() takes the turns first, then the "
                     "file's bytes.")
    if turns == 0 or size == 0:
        return wrong("the journal does not refuse this file: the bytes after the last newline "
                     "were never acknowledged, so they are a crash's trace, not corruption.")
    if turns < kept and size == good:
        return wrong(f"{count_turns(turns)}, but your file size keeps more complete lines than "
                     f"that: every complete line (newline included) is an acknowledged turn; "
                     f"only the bytes after the last newline are cut.")
    if turns != kept:
        return wrong(f"{count_turns(turns)}: the last line was cut short, and a line is a turn "
                     f"only if all of it, newline included, reached the disk.")
    if size == len(data):
        return wrong(f"{size} bytes is the file before opening: the journal does not keep the "
                     f"torn tail behind its turns.")
    if size != good:
        return wrong(f"{size} bytes: after open the file holds exactly the complete lines, "
                     f"each with its newline.")
    return correct(f"{kept} turns and {good} bytes: the {len(data) - good}-byte torn tail is "
                   f"cut (and the cut synced); the third turn was never acknowledged.")


EXERCISE6 = partial(
    Exercise, 6, "a torn tail in the journal", _check_torn,
    hint="Write the bytes to a file in a temporary directory (tempfile.TemporaryDirectory) "
         "and open a Journal on it: len(journal) and the file's size afterwards. "
         "ledgerlab.journal.examine(data) shows each line's offset, length and problem.",
)
