"""04 · The boundary table: the article's table built live, and the budget one byte too small.

The predictions and the quiz, on the boundary fixture (``BOUNDARY``: a Chinese system message,
two turns, a question ending in an emoji) and the table's budgets; the budget explorer's
settings (``BUDGET_EXPLORER``, which 03 opens too); and exercises 1 to 5, the article's own:
its exercise in two parts (a much larger newest turn; a question grown until it
fails), what Java's ``String.length()`` reports and the budget it lets through, and the same
request under ``requests``. Each checker is given the
variant it checks against first (``variants``: the self-paced edition's, or a student's own);
``ledgerlab.course.exercises`` says how every exercise is checked, and
``ledgerlab.course.questions`` gathers the predictions and quizzes. How a question is asked
and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

from functools import partial

from ledgerlab import BudgetError, Turn, byte_breakdown, request_bytes, select, utf16_units

from .. import fixtures, measures
from ..display import turns as count_turns
from ..feedback import (Exercise, Feedback, Question, Questionnaire, as_budget, as_integral,
                        correct, not_whole, wrong)
from ..syllabus import heading
from .the_length_trap import unit_mistakes

# --- What the answers are computed from ------------------------------------------------

BOUNDARY = (fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY, fixtures.BOUNDARY_QUESTION)
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


# --- The predictions and the quiz --------------------------------------------------------

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


# --- The explorer ------------------------------------------------------------------------
# BudgetExplorer's starting point (``ledgerlab.course.widgets`` takes its defaults from here):
# the table's fixture at 235 bytes, where turn two (the newer) fits alone, under gson.
BUDGET_EXPLORER = {"system": fixtures.BOUNDARY_SYSTEM, "history": fixtures.BOUNDARY_HISTORY,
                   "current": fixtures.BOUNDARY_QUESTION, "budget": 235, "encoder": "gson"}


# --- Exercises 1 to 5: the article's own -------------------------------------------------
# Each is an Exercise but the variant it checks against, which ``ledgerlab.course.exercises``
# gives it (``q1`` to ``q5``): that package holds the variants, and a lesson's module does not
# import the package that imports it. Each checker takes that variant, ``v``, first.

SMILE = "🙂"
MUCH_LARGER = 2  # exercise 1: the newest turn has at least twice the older turn's bytes


def unit_mistake(value: int, body: bytes) -> str | None:
    """Which wrong unit ``value`` measures ``body`` in, if it is not its bytes."""
    text = body.decode("utf-8")
    if value == len(body):
        return None
    if value == utf16_units(text):
        return "UTF-16 units (Java's length())"
    if value == len(text):
        return "code points (Python's len())"
    return None


# --- 1. The article's exercise, part 1: a much larger newest turn ------------------

def _check_big_newest(v, history: object, budget: object,
                      predicted_kept: object) -> Feedback:
    if not isinstance(history, (list, tuple)) or not all(isinstance(t, Turn) for t in history):
        return wrong("history must be a list of Turn objects.")
    if len(history) != 2:
        return wrong(f"the exercise asks for a history of 2 turns; yours has {len(history)}.")
    parts = byte_breakdown(v.system, history, v.question)
    older, newest = parts["turns"]
    if newest < MUCH_LARGER * older:
        return wrong(f"the newest turn is {newest} bytes and the older {older}: that is not "
                     f"much larger. Make the newest at least {MUCH_LARGER} times the older.")
    size = as_budget(budget)
    if isinstance(size, Feedback):
        return size
    mandatory = parts["envelope"] + parts["system"] + parts["question"]
    if size < mandatory:
        return wrong(f"a {size}-byte budget is below the mandatory input (system message and "
                     f"question): select raises BudgetError. Choose a budget the older turn fits in.")
    if size < mandatory + older:
        unit = unit_mistake(size, request_bytes(v.system, history[:1], v.question))
        if unit:
            return wrong(f"that budget counts the request with only the older turn in {unit}; "
                         f"budgets are in UTF-8 bytes.")
        return wrong(f"a {size}-byte budget does not fit the older turn either: measure the "
                     f"request that holds the mandatory input and only the older turn.")
    if size >= mandatory + newest:
        return wrong(f"a {size}-byte budget fits the newest turn too; the exercise wants a budget "
                     f"that would fit only the older turn.")
    kept = select(v.system, history, v.question, size)
    guess = as_integral(predicted_kept)
    if guess is None:
        return not_whole(predicted_kept, "turns")
    if guess < 0:
        return wrong("your history and budget are right, but not your prediction: it is a "
                     "count of turns, and a count cannot be negative.")
    if guess != kept.kept:
        if guess == 1:
            return wrong("your history and budget are right, but not your prediction: keeping "
                         "the older turn alone would skip the newest one to pack an older turn, "
                         "and the whole-turn rule keeps a contiguous suffix of the history.")
        if guess == 2:
            return wrong("your history and budget are right, but not your prediction: the budget "
                         "does not even fit the newest turn, so it cannot fit both.")
        return wrong(f"your history and budget are right, but not your prediction: select keeps "
                     f"a count of whole turns from 0 to {len(history)}.")
    return correct(
        f"the older turn alone would fit ({mandatory + older} <= {size} bytes) but the newest "
        f"does not ({mandatory + newest} > {size}), so select keeps {count_turns(kept.kept)} and "
        f"sends the {kept.size}-byte mandatory input. The kept turns are a contiguous suffix: "
        f"the rule does not skip the newest turn to pack an older one.")


EXERCISE1 = partial(
    Exercise, 1, "a much larger newest turn", _check_big_newest,
    hint="Make the newest answer long, e.g. 'x' * 200. byte_breakdown(SYSTEM, history, "
         "QUESTION) gives the envelope, system, question and each turn's bytes: the budget "
         "must hold the mandatory part plus the older turn, but not the mandatory part plus "
         "the newest. Then predict: does select skip a turn?",
)


# --- 2. The article's exercise, part 2: grow the question until it fails ------------

def grown_question(count: int, v) -> str:
    """The fixture's question with ``count`` more smileys."""
    return v.question + SMILE * count


def _mandatory(v, count: int) -> bytes:
    return request_bytes(v.system, [], grown_question(count, v))


def _first_count_over(v, measure) -> int:
    """The smallest smiley count whose mandatory request ``measure`` puts over the budget."""
    count = 0
    while measure(_mandatory(v, count)) <= v.grow_budget:
        count += 1
    return count


def grow_answer(v) -> int:
    """Exercise 2's answer: the fewest smileys whose mandatory request is over the budget."""
    return _first_count_over(v, len)


def _three_byte_count(v) -> int:
    """The answer if each added smiley took 3 UTF-8 bytes, as a Chinese character does."""
    count, base = 0, len(_mandatory(v, 0))
    while base + 3 * count <= v.grow_budget:
        count += 1
    return count


def _check_grow(v, n: object) -> Feedback:
    count = as_integral(n)
    if count is None:
        return not_whole(n, "smileys")
    if count < 0:
        return wrong("a count cannot be negative: the answer is a number of smileys, 0 or more.")
    needed, budget = len(_mandatory(v, count)), v.grow_budget
    if needed <= budget:
        kept = select(v.system, v.history, grown_question(count, v), budget).kept
        if kept == 0:
            # No byte count here: one addition away from the answer, it would hand it over.
            return wrong(f"with {count} smileys select keeps 0 turns, but it still answers: "
                         f"it sends the mandatory input alone. BudgetError comes only when "
                         f"the system message and question alone exceed the budget.")
        return wrong(f"with {count} smileys the mandatory input needs {needed} bytes, within "
                     f"the {budget}-byte budget: select still answers and keeps "
                     f"{count_turns(kept)}. Grow the question further.")
    for unit, measure in (("UTF-16 units (Java's length())", lambda body: utf16_units(body.decode())),
                          ("code points (Python's len())", lambda body: len(body.decode()))):
        if count == _first_count_over(v, measure):
            return wrong(f"that is where the request passes {budget} {unit}; the budget "
                         f"is in UTF-8 bytes, and a smiley takes more of those.")
    if count == _three_byte_count(v):
        return wrong("that counts 3 UTF-8 bytes per smiley, as for a Chinese character; 🙂 is "
                     "outside the Basic Multilingual Plane and takes 4.")
    if count > 0 and len(_mandatory(v, count - 1)) > budget:
        return wrong(f"select rejects {count} smileys, but that is not the smallest count it "
                     f"rejects: fewer smileys fail too.")
    return correct(
        f"{count} smileys: the mandatory input needs {needed} bytes > {budget}, so select "
        f"raises BudgetError; with {count - 1} it needs {len(_mandatory(v, count - 1))} bytes and "
        f"sends the mandatory input only. Each smiley is 4 UTF-8 bytes (2 UTF-16 units).")


EXERCISE2 = partial(
    Exercise, 2, "grow the question until the mandatory input fails", _check_grow,
    hint="The mandatory input is request_bytes(SYSTEM, [], grown_question(n)). Measure it for "
         "a few n: how many UTF-8 bytes does one more smiley add, and how much room does the "
         "budget leave? Or loop until select raises BudgetError.",
)


# --- 3. What Java's String.length() reports ------------------------------------------

# Characters outside the Basic Multilingual Plane besides the fixture's smiley, so that
# a rule special-casing one emoji does not pass, and U+FFFF, the BMP's last character (one
# unit), so that a rule that puts the edge on the wrong side (ord(c) >= 0xFFFF) does not.
LAST_BMP = "\uffff"


def java_texts(self_paced) -> tuple[str, ...]:
    """The same texts for every variant: a function answer is graded by its outputs on them.
    Two are the self-paced exercises' question and mandatory request (exercise 4's), not the
    article's, whose UTF-16 units 03 prints: ``exercises`` passes ``self_paced``, the
    self-paced edition's variant, and names the result ``JAVA_TEXTS``."""
    return ("hello", "接口", SMILE, self_paced.question, "𝄞 clef", "😀🙂 and 𠀋",
            request_bytes(self_paced.system, [], self_paced.question).decode(),
            f"end{LAST_BMP}")


# Grading only: more shapes (empty, combining marks, flags, a ZWJ sequence, U+2028, both
# sides of the BMP's edge).
HIDDEN_JAVA_TEXTS = ("", "e\u0301", "🇫🇷", "👩\u200d💻", "a\u2028b", "𐍈" * 3,
                     f"\ufffe{LAST_BMP}\U00010000")

WRONG_LENGTHS = (
    ("code points (Python's len())", len),
    ("UTF-8 bytes", lambda text: len(text.encode("utf-8"))),
    ("UTF-16 bytes, two per unit", lambda text: len(text.encode("utf-16-le"))),
    ("UTF-16 units plus a byte-order mark", lambda text: len(text.encode("utf-16")) // 2),
)
# The edge on the wrong side: U+FFFF is the BMP's last character, one unit; pairs start at U+10000.
EDGE_MISTAKE = ("your function counts U+FFFF, the last character of the Basic Multilingual "
                "Plane, as a surrogate pair (a test like ord(c) >= 0xFFFF?). Surrogate pairs "
                "start at U+10000: U+FFFF is one UTF-16 unit.")


def _edge_on_wrong_side(text: str, length: int) -> bool:
    """Whether ``length`` is ``text``'s UTF-16 units with each U+FFFF counted as two."""
    return LAST_BMP in text and length == utf16_units(text) + text.count(LAST_BMP)


def _shape(number: int, text: str) -> str:
    points = f"{len(text)} code point{'' if len(text) == 1 else 's'}"
    astral = sum(ord(char) > 0xFFFF for char in text)
    outside = f", {astral} outside the Basic Multilingual Plane" if astral else ""
    return f"test text #{number} ({points}{outside}, {len(text.encode())} UTF-8 bytes)"


def _java_length_against(java_length: object, texts: tuple[str, ...]) -> Feedback:
    if not callable(java_length):
        return wrong("pass a function that takes a str and returns an int.")
    results = []
    for number, text in enumerate(texts, start=1):
        try:
            got = java_length(text)
        except Exception as error:  # the learner's code: report, don't crash
            return wrong(f"your function raised {type(error).__name__} on {_shape(number, text)}.")
        if got is None:
            return Feedback("unanswered", "your function returned None: write its body, "
                                          "then run check() again.")
        length = as_integral(got)
        if length is None:
            return not_whole(got, f"UTF-16 units (your function's result on test text #{number})")
        results.append(length)
    for unit, measure in WRONG_LENGTHS:
        if results == [measure(text) for text in texts]:
            return wrong(f"your function counts {unit}; Java's String.length() counts UTF-16 "
                         f"code units.")
    for number, (text, length) in enumerate(zip(texts, results), start=1):
        expected = utf16_units(text)
        if _edge_on_wrong_side(text, length):
            return wrong(EDGE_MISTAKE)
        if length != expected:
            side = "more" if length > expected else "fewer"
            return wrong(f"for {_shape(number, text)} your function returned {length}, {side} "
                         f"than Java reports. Does your rule work for every character, not "
                         f"just the fixture's?")
    return correct(f"all {len(texts)} test texts match Java. Characters outside the Basic "
                   f"Multilingual Plane, like the smiley, count 2 UTF-16 units, and every "
                   f"character beyond ASCII takes more UTF-8 bytes than UTF-16 units: "
                   f"exercise 4 is about that gap.")


def exercise3(texts: tuple[str, ...]) -> partial:
    """Exercise 3 but its variant, as ``EXERCISE1`` is, checked on ``texts`` (``java_texts``'s,
    which ``exercises`` makes and gives it, with the variant)."""

    def _check_java_length(v, java_length: object) -> Feedback:
        return _java_length_against(java_length, texts)

    return partial(
        Exercise, 3, "what Java's `String.length()` reports", _check_java_length,
        hint="Java strings are UTF-16: length() counts 2-byte code units. Which Python codec "
             "writes UTF-16 without a byte-order mark?",
        hidden=lambda v, java_length: _java_length_against(java_length, HIDDEN_JAVA_TEXTS),
        inputs=texts + HIDDEN_JAVA_TEXTS,
    )


# --- 4. The budget Java's check lets through ----------------------------------------

def java_gap(v) -> range:
    """The budgets Java's ``length()`` check passes though the mandatory request's bytes do
    not fit: from its UTF-16 units up to one byte short of its UTF-8 bytes."""
    body = request_bytes(v.system, [], v.question)
    return range(utf16_units(body.decode("utf-8")), len(body))


def _check_java_gap(v, java_budget: object) -> Feedback:
    budget = as_budget(java_budget)
    if isinstance(budget, Feedback):
        return budget
    gap, body = java_gap(v), request_bytes(v.system, [], v.question)
    units, wire = gap.start, gap.stop
    if budget < units:
        if budget == len(body.decode("utf-8")):
            return wrong("at that budget Java's check rejects: Python's len() counts code "
                         "points, but Java's length() counts UTF-16 units, and they differ here.")
        return wrong(f"at {budget} Java's check rejects: the body has more UTF-16 units than "
                     f"that.")
    if budget == wire:
        return wrong("that is the body's UTF-8 bytes, the smallest budget the wire bytes fit; "
                     "Java's check compares another count, and accepts smaller budgets.")
    if budget == wire - 1:
        return wrong("Java's check accepts that budget and the wire bytes do not fit it, but it "
                     "is the largest such budget: the exercise asks for the smallest.")
    if budget > units:
        return wrong(f"Java's check accepts {budget}, but a smaller budget passes it too: "
                     f"find the smallest.")
    return correct(f"{units}: Java's length() says {units} <= {budget} and sends, but the wire "
                   f"carries {wire} bytes, {wire - budget} over the budget. Every budget from "
                   f"{units} to {wire - 1} lets the oversized request through.")


EXERCISE4 = partial(
    Exercise, 4, "the smallest budget Java's length check accepts", _check_java_gap,
    hint="Measure the mandatory request both ways: UTF-16 units of the body (what Java's "
         "body.length() <= budget compares) and UTF-8 bytes (what the wire carries).",
)


# --- 5. The same fixture under the requests encoder ---------------------------------

def requests_full(v) -> int:
    """The bytes of the whole request (both turns) as ``requests`` serializes it."""
    return len(request_bytes(v.system, list(v.history), v.question, encoder="requests"))


def _check_requests_budget(v, requests_budget: object) -> Feedback:
    budget = as_budget(requests_budget)
    if isinstance(budget, Feedback):
        return budget
    system, history, question = v.system, v.history, v.question
    gson_body = request_bytes(system, list(history), question)
    full = requests_full(v)
    if budget == len(gson_body):
        return wrong("that is the full request's size under gson; requests serializes the same "
                     "request differently (ASCII escapes, spaced separators).")
    try:
        chosen = select(system, history, question, budget, encoder="requests")
    except BudgetError as error:
        return wrong(f"at {budget} bytes requests rejects: its mandatory input needs "
                     f"{error.mandatory_bytes} bytes.")
    if chosen.kept < len(history):
        unit = unit_mistake(budget, gson_body)
        mistake = f" That counts the gson body in {unit}." if unit else ""
        return wrong(f"at {budget} bytes requests keeps {chosen.kept} of "
                     f"{count_turns(len(history))} ({chosen.size} bytes sent).{mistake}")
    if budget > full:
        return wrong(f"{budget} bytes keeps both turns, but it is not the smallest budget that "
                     f"does: a smaller one keeps both too.")
    try:
        at_gson = count_turns(select(system, history, question, len(gson_body),
                                     encoder="requests").kept)
    except BudgetError:  # requests' mandatory input alone can be over gson's whole request
        at_gson = "not even the mandatory input"
    return correct(f"{full} bytes. The same request is {len(gson_body)} bytes under gson: "
                   f"requests' ASCII escapes and spaced separators add {full - len(gson_body)}, "
                   f"so gson's {len(gson_body)}-byte budget keeps {at_gson} under requests.")


EXERCISE5 = partial(
    Exercise, 5, "the smallest budget that keeps both turns under `requests`", _check_requests_budget,
    hint="select keeps every turn only when the whole request fits. request_bytes takes the "
         "same encoder= argument as select.",
)
