"""Predictions and quizzes for notebooks 01 to 04: what a request holds.

Storage vs context, the bad slice against the whole-turn rule, the length trap and the
boundary table, on the slice and boundary fixtures. How a question is asked and
checked is ``ledgerlab.course.feedback``; what the package says about them all is in
``ledgerlab.course.questions``.
"""

from __future__ import annotations

from ledgerlab import BudgetError, Turn, byte_breakdown, request_bytes, select, utf16_units

from .. import fixtures, measures
from ..feedback import Question, Questionnaire
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


def _mandatory_body() -> str:
    return request_bytes(fixtures.BOUNDARY_SYSTEM, [], fixtures.BOUNDARY_QUESTION).decode("utf-8")


def _unit_mistakes(text: str) -> dict[int, str]:
    """What a count of UTF-16 units or code points of ``text`` gets wrong, bytes being right."""
    return {utf16_units(text): "that counts UTF-16 units (Java's length()); the budget "
                               "counts UTF-8 bytes.",
            len(text): "that counts code points (Python's len()); the budget counts "
                       "UTF-8 bytes."}


def _extra_bytes(text: str, width: int) -> int:
    """What the characters of ``text`` that take ``width`` UTF-8 bytes add to its UTF-16
    units: 2 per Chinese character (3 bytes, 1 unit), 2 per emoji (4 bytes, 2 units)."""
    return sum(width - utf16_units(char) for char in text if len(char.encode("utf-8")) == width)


def _length_trap_mistakes() -> dict[int, str]:
    """predict03's sums from Java's units that leave a character out or count one twice."""
    body = _mandatory_body()
    units, chinese, emoji = utf16_units(body), _extra_bytes(body, 3), _extra_bytes(body, 4)
    named: dict[int, list[str]] = {}
    for total, message in (
            (units + chinese, "that adds 2 bytes for each Chinese character but nothing for the "
             "emoji, which UTF-8 writes with more bytes than its UTF-16 units."),
            (units + chinese + emoji - 2, "that leaves out one Chinese character: the full stop "
             "。 is one too, 3 bytes for its 1 unit."),
            (units + chinese + 4, "that adds the emoji's 4 bytes on top of its 2 UTF-16 units; "
             "the 4 bytes replace them, 2 more than Java counts.")):
        named.setdefault(total, []).append(message)
    # Two slips can give the same sum (here both the emoji and 。 forgotten): both are named.
    return {total: " Or ".join(messages) for total, messages in named.items()}


# The what-ifs the quizzes ask about: each changes one thing the notebook showed.
TWO_EMOJI = fixtures.BOUNDARY_QUESTION + "👍"                  # 03: a second emoji
NO_EMOJI = fixtures.BOUNDARY_QUESTION.replace("🙂", "")        # 03: the emoji removed
NO_FULL_STOP = fixtures.BOUNDARY_SYSTEM.removesuffix("。")     # 04: the system's full stop gone
LONGER_OLDER = (Turn("hello", "world, and more"), fixtures.BOUNDARY_HISTORY[1])  # 04
MORE = " more" * 24                                              # 04: 120 bytes
LONGER_NEWER = (fixtures.BOUNDARY_HISTORY[0],
                Turn(fixtures.BOUNDARY_HISTORY[1].question,
                     fixtures.BOUNDARY_HISTORY[1].answer + MORE))             # 04


def _requests_mandatory(question: str) -> int:
    return len(request_bytes(fixtures.BOUNDARY_SYSTEM, [], question, encoder="requests"))


# --- 03 · The length trap ----------------------------------------------------------------

predict03 = Question(
    "Java's body.length() says the mandatory request is 114. How many bytes go over the wire?",
    lambda: len(_mandatory_body().encode("utf-8")),
    explanation="each Chinese character is 1 UTF-16 unit but 3 UTF-8 bytes, and the emoji is "
                "2 units but 4 bytes: the wire carries bytes.",
    hint="Java's 114 counts UTF-16 units: 1 per ASCII or Chinese character, 2 for the emoji. "
         "The wire counts UTF-8 bytes: 1 per ASCII character, 3 per Chinese character, 4 for "
         "the emoji. How many Chinese characters (the full stop 。 is one) does the body hold?",
    mistakes=lambda: {**_unit_mistakes(_mandatory_body()),
                      40: "that is the raw text's UTF-8 bytes; the request adds the JSON "
                          "envelope and escaping.",
                      2 * utf16_units(_mandatory_body()): "that is two bytes per UTF-16 unit, "
                      "how Java holds the string in memory. The wire carries UTF-8: 1 byte for "
                      "ASCII, 3 for a Chinese character, 4 for the emoji.",
                      fixtures.REJECTED_BUDGET: "that is the budget the article rejects, not "
                      "the request's size: count the body's UTF-8 bytes.",
                      **_length_trap_mistakes()},
)

quiz03 = Questionnaire(heading(3), [
    Question(f"The question gets a second emoji: {TWO_EMOJI}. How many UTF-8 bytes is it?",
             lambda: len(TWO_EMOJI.encode("utf-8")),
             explanation="10 bytes for 继续🙂, and 4 more: 👍 is outside the Basic Multilingual "
                         "Plane (BMP), like 🙂.",
             hint="count by character: how many UTF-8 bytes does a Chinese character take, and "
                  "an emoji outside the BMP?",
             mistakes=lambda: {**_unit_mistakes(TWO_EMOJI),
                               len(fixtures.BOUNDARY_QUESTION.encode("utf-8")): "that is the "
                               "question before the second emoji.",
                               len(TWO_EMOJI.encode("utf-8")) - 1: "that counts 3 bytes for "
                               "the new emoji, as for a Chinese character; a character outside "
                               "the BMP takes 4 UTF-8 bytes."}),
    Question(f"How many UTF-16 units (Java's length()) is {TWO_EMOJI}?",
             lambda: utf16_units(TWO_EMOJI),
             explanation="1 unit per Chinese character, 2 per emoji: each is outside the BMP, "
                         "a surrogate pair.",
             hint="a character outside the BMP is a surrogate pair in UTF-16.",
             mistakes=lambda: {len(TWO_EMOJI.encode("utf-8")): "that counts UTF-8 bytes; "
                               "Java's length() counts UTF-16 units.",
                               len(TWO_EMOJI): "that counts code points; a character outside "
                               "the BMP takes two UTF-16 units.",
                               utf16_units(TWO_EMOJI) - 1: "that counts one emoji as a single "
                               "unit: every character outside the BMP is a surrogate pair."}),
    Question(f"Under requests, how many bytes is the mandatory request if the question is "
             f"{NO_EMOJI} (the emoji removed)?",
             lambda: _requests_mandatory(NO_EMOJI),
             explanation="under requests the emoji is written as a surrogate pair of \\uXXXX "
                         "escapes, 12 bytes; without it the body is that much shorter.",
             hint="how does requests write 🙂 in JSON? Section 'One text, four numbers' shows "
                  "the question's JSON string under requests.",
             mistakes=lambda: {_requests_mandatory(fixtures.BOUNDARY_QUESTION): "that is the "
                               "request with the emoji still in it.",
                               _requests_mandatory(fixtures.BOUNDARY_QUESTION) - 4: "that "
                               "removes the emoji's 4 UTF-8 bytes; requests does not send "
                               "them raw, it writes \\uXXXX escapes.",
                               len(request_bytes(fixtures.BOUNDARY_SYSTEM, [], NO_EMOJI)): "that "
                               "is what gson and httpx send; requests escapes non-ASCII and "
                               "adds spaces.",
                               len(_mandatory_body().encode("utf-8")): "that is gson's "
                               "mandatory request, emoji included."}),
])


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
                               **_unit_mistakes(request_bytes(NO_FULL_STOP, [], BOUNDARY[2])
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
