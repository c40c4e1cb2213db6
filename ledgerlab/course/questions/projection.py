"""Predictions and quizzes for notebooks 01 to 04: what a request holds.

Storage vs context, the bad slice against the whole-turn rule, the length trap and the
boundary table, on the slice and boundary fixtures. How a question is asked and
checked is ``ledgerlab.course.feedback``; what the package says about them all is in
``ledgerlab.course.questions``.
"""

from __future__ import annotations

from ledgerlab import BudgetError, Turn, byte_breakdown, request_bytes, select

from .. import fixtures, measures
from ..feedback import Question, Questionnaire
from ..lessons.the_length_trap import unit_mistakes
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------

BOUNDARY = (fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY, fixtures.BOUNDARY_QUESTION)
YES_NO = ("yes", "no")


def yes_or_no(flag: bool) -> str:
    """The word a yes-or-no question expects."""
    return "yes" if flag else "no"


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve")


def number_word(count: int) -> str:
    """A small count in words, as prose writes it ("the other nine"); digits beyond twelve."""
    return NUMBER_WORDS[count] if 0 <= count < len(NUMBER_WORDS) else str(count)


# The what-ifs the quizzes ask about: each changes one thing the notebook showed.
NO_FULL_STOP = fixtures.BOUNDARY_SYSTEM.removesuffix("。")     # 04: the system's full stop gone
LONGER_OLDER = (Turn("hello", "world, and more"), fixtures.BOUNDARY_HISTORY[1])  # 04
MORE = " more" * 24                                              # 04: 120 bytes
LONGER_NEWER = (fixtures.BOUNDARY_HISTORY[0],
                Turn(fixtures.BOUNDARY_HISTORY[1].question,
                     fixtures.BOUNDARY_HISTORY[1].answer + MORE))             # 04


# --- 04 · The boundary table -------------------------------------------------------------


def _boundary_parts() -> dict:
    """The boundary fixture's full request in parts: envelope, system, each turn, question."""
    return byte_breakdown(*BOUNDARY)


def _table_sent(budget: int) -> int:
    return select(*BOUNDARY, budget).size


def _without(part: str) -> int:
    """The full request less one of its parts: what a learner who forgets that part adds up."""
    parts = _boundary_parts()
    return _table_sent(max(fixtures.BOUNDARY_BUDGETS)) - (
        sum(parts["turns"]) if part == "turns" else parts[part])


# 04's second prediction: three calls, the first one byte below the mandatory input. What a
# learner who thinks select trims or exceeds there adds up is named (a number to work out, not
# one of three words, which a single "Not yet" would halve).
THREE_CALLS = (fixtures.REJECTED_BUDGET, *sorted(fixtures.BOUNDARY_BUDGETS)[:2])


def _sent_in_all(below: str = "refuse") -> int:
    """The bytes the three calls send together, if select does ``below`` at the first:
    refuse (raises, sends nothing), trim (sends the budget) or exceed (sends the mandatory
    input anyway). The answer is what select does."""
    total = 0
    for budget in THREE_CALLS:
        try:
            total += select(*BOUNDARY, budget).size
        except BudgetError as error:
            total += {"refuse": 0, "trim": budget, "exceed": error.mandatory_bytes}[below]
    return total


predict04_first = Question(
    f"At the table's largest budget, {max(fixtures.BOUNDARY_BUDGETS)} bytes, how many bytes "
    "does select send?",
    lambda: _table_sent(max(fixtures.BOUNDARY_BUDGETS)),
    explanation="both turns fit, so select keeps them, and the request is the sum of its parts: "
                "a budget is a ceiling, not a target, and nothing is added to reach it.",
    hint="add up every part of the full request (envelope, system, both turns, question): does "
         "the sum fit the budget? select sends what it keeps, and nothing to fill the rest.",
    mistakes=lambda: {max(fixtures.BOUNDARY_BUDGETS): "that is the budget. Is a budget a target "
                      "to fill, or a ceiling the request must stay under?",
                      select(*BOUNDARY, max(fixtures.BOUNDARY_BUDGETS)).kept: "that counts "
                      "turns; the question asks for bytes.",
                      **{_table_sent(max(fixtures.BOUNDARY_BUDGETS)) + off: "that is one byte "
                         "off: a byte miscounted in one of the parts. Add up the envelope, the "
                         "system message, both turns and the question again." for off in (-1, 1)},
                      _without("turns") + _boundary_parts()["turns"][-1]: "that keeps only the "
                      "newest turn. Does the older one fit as well?",
                      _without("turns"): "that is the mandatory input alone. Do the stored turns "
                      "fit as well?",
                      _without("envelope"): "that leaves out the envelope (the model field, "
                      "brackets and separators): it is sent too.",
                      _without("system"): "that leaves out the system message: it is in every "
                      "request.",
                      _without("question"): "that leaves out the question: it is in every "
                      "request.",
                      sum(_boundary_parts()["turns"]): "that is the two turns alone: the "
                      "request also carries the envelope, the system message and the question."},
)

predict04_second = Question(
    f"At {fixtures.REJECTED_BUDGET} bytes the system message and the question "
    f"({measures.suffix_sizes(*BOUNDARY)[0]} bytes) do not fit, and no stored turn is left to "
    f"drop. A program calls select at {', '.join(map(str, THREE_CALLS[:-1]))} and "
    f"{THREE_CALLS[-1]} bytes in turn, on the same history, and catches any error. How many "
    "bytes do the three calls send in all?",
    _sent_in_all,
    explanation="the system message and the question are never cut, and the budget is never "
                "exceeded: with no stored turn left to drop, the first call raises BudgetError, "
                "which gives both sizes, sends nothing and changes nothing; the later calls send "
                "their requests.",
    hint="what may the whole-turn rule drop: whole stored turns, or parts of a message? And may "
         "a request be larger than its budget? The table gives the other two calls' bytes.",
    mistakes=lambda: {_sent_in_all("trim"): "that counts the first call as sending its "
                      "budget: select would have to cut the system message or the question. "
                      "Does the whole-turn rule ever cut inside a message?",
                      _sent_in_all("exceed"): "that counts the first call as sending the "
                      "mandatory input anyway: a budget is a ceiling, and a request over it is "
                      "what the budget is there to stop."},
)

predict04 = Question(
    "At a 234-byte budget, how many turns will select keep?",
    lambda: select(*BOUNDARY, 234).kept,
    explanation="turn 2 (the newest) needs 235 bytes, so it is dropped, and the rule never "
                "skips a newer turn to pack an older one: the kept turns are always the newest.",
    hint="list the request sizes from the table: 140, 235, 308. Which turn is the newest?",
    mistakes=lambda: {1: "keeping 1 here would mean skipping the newest turn to pack the older, "
                         "smaller one. Does the whole-turn rule ever skip a turn?",
                      2: "both turns need 308 bytes."},
)

quiz04 = Questionnaire(heading(4), [
    Question(f"The newer turn's answer grows by {len(MORE.encode())} ASCII bytes ({MORE[:5]!r}, "
             f"{MORE.count(MORE[:5])} times). At the table's largest budget, "
             f"{max(fixtures.BOUNDARY_BUDGETS)} bytes, how many bytes does select send?",
             lambda: select(BOUNDARY[0], LONGER_NEWER, BOUNDARY[2],
                            max(fixtures.BOUNDARY_BUDGETS)).size,
             explanation="the full request has grown past the budget, so the older turn is "
                         "dropped; the newer one, grown, still fits, and select sends it with the "
                         "mandatory input and nothing more: a budget is a ceiling, not a target.",
             hint="which requests grow: the one with the newer turn alone, the full one, or both? "
                  "Add the new bytes to each and compare with the budget.",
             mistakes=lambda: {max(fixtures.BOUNDARY_BUDGETS): "that is the budget. Is a budget "
                               "a target to fill, or a ceiling?",
                               len(request_bytes(BOUNDARY[0], LONGER_NEWER, BOUNDARY[2])): "that is "
                               "the full request now: does it still fit the budget?",
                               select(*BOUNDARY, max(fixtures.BOUNDARY_BUDGETS)).size: "that is "
                               "the request before the answer grew.",
                               measures.suffix_sizes(*BOUNDARY)[1]: "that is the request with the "
                               "newer turn as it was: the answer's new bytes are sent too.",
                               measures.suffix_sizes(*BOUNDARY)[0]: "the newer turn, grown, still "
                               "fits: add its new bytes to the request with it alone."}),
    Question(f"The system message loses its final 。 (a CJK full stop): {NO_FULL_STOP}. What is "
             "the smallest budget select accepts now?",
             lambda: measures.suffix_sizes(NO_FULL_STOP, *BOUNDARY[1:])[0],
             explanation=f"the mandatory input shrinks by the full stop's UTF-8 bytes: 。 is a "
                         f"CJK character, 3 bytes, like each of the system message's other "
                         f"{number_word(len(NO_FULL_STOP))} ({len(fixtures.BOUNDARY_SYSTEM)} "
                         f"characters, {len(fixtures.BOUNDARY_SYSTEM.encode())} bytes).",
             hint="how many UTF-8 bytes is '。'? Start from the mandatory input with it, the "
                  "smallest request in the table.",
             mistakes=lambda: {measures.suffix_sizes(*BOUNDARY)[0]: "that is the mandatory input "
                               "with the full stop; the system message is mandatory, so its "
                               "bytes count.",
                               measures.suffix_sizes(*BOUNDARY)[0] - 1: "that removes one byte; "
                               "'。' is one character, but how many UTF-8 bytes?",
                               **unit_mistakes(request_bytes(NO_FULL_STOP, [], BOUNDARY[2])
                                                .decode("utf-8"))}),
    Question("The older turn's answer grows from 'world' to 'world, and more' (10 more ASCII "
             "bytes). At a 308-byte budget, how many turns does select keep?",
             lambda: select(BOUNDARY[0], LONGER_OLDER, BOUNDARY[2], 308).kept,
             explanation="the newest turn did not change, so it still fits, but the whole "
                         "request is 10 bytes larger than 308: the older turn is dropped.",
             hint="which requests changed size: the one with the newest turn alone, the one "
                  "with both, or both?",
             mistakes=lambda: {2: "the whole request grew by those 10 bytes: does it still fit "
                                  "308?",
                               0: "the newest turn did not change: the request with it alone "
                                  "is as large as before."}),
])
