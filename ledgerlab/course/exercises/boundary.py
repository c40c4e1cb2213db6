"""Exercises 1 to 5 and 7, on the boundary fixture (notebook 04's conversation).

The article's exercise in two parts (a much larger newest turn; a question grown until it
fails), what Java's ``String.length()`` reports and the budget it lets through, the same
request under ``requests``, and notebook 07's token window. Each checker is given the
variant it checks against first (``variants``: the self-paced edition's, or a student's own);
``ledgerlab.course.exercises`` says how every exercise is checked.
"""

from __future__ import annotations

from ledgerlab import (BudgetError, PER_MESSAGE, REPLY_PRIMING, Turn, byte_breakdown, request_bytes,
                       request_tokens, select, text_tokens, utf16_units)

from ..display import turns as count_turns
from ..feedback import Exercise, Feedback, as_budget, as_integral, correct, not_whole, wrong
from .variants import SELF_PACED, Variant, active

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

def _check_big_newest(v: Variant, history: object, budget: object,
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


q1 = Exercise(
    1, "a much larger newest turn", _check_big_newest, fixture=active,
    hint="Make the newest answer long, e.g. 'x' * 200. byte_breakdown(SYSTEM, history, "
         "QUESTION) gives the envelope, system, question and each turn's bytes: the budget "
         "must hold the mandatory part plus the older turn, but not the mandatory part plus "
         "the newest. Then predict: does select skip a turn?",
)


# --- 2. The article's exercise, part 2: grow the question until it fails ------------

def grown_question(count: int, v: Variant | None = None) -> str:
    """The fixture's question with ``count`` more smileys."""
    return (v or active()).question + SMILE * count


def _mandatory(v: Variant, count: int) -> bytes:
    return request_bytes(v.system, [], grown_question(count, v))


def _first_count_over(v: Variant, measure) -> int:
    """The smallest smiley count whose mandatory request ``measure`` puts over the budget."""
    count = 0
    while measure(_mandatory(v, count)) <= v.grow_budget:
        count += 1
    return count


def grow_answer(v: Variant) -> int:
    """Exercise 2's answer: the fewest smileys whose mandatory request is over the budget."""
    return _first_count_over(v, len)


def _three_byte_count(v: Variant) -> int:
    """The answer if each added smiley took 3 UTF-8 bytes, as a Chinese character does."""
    count, base = 0, len(_mandatory(v, 0))
    while base + 3 * count <= v.grow_budget:
        count += 1
    return count


def _check_grow(v: Variant, n: object) -> Feedback:
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


q2 = Exercise(
    2, "grow the question until the mandatory input fails", _check_grow, fixture=active,
    hint="The mandatory input is request_bytes(SYSTEM, [], grown_question(n)). Measure it for "
         "a few n: how many UTF-8 bytes does one more smiley add, and how much room does the "
         "budget leave? Or loop until select raises BudgetError.",
)


# --- 3. What Java's String.length() reports ------------------------------------------

# Characters outside the Basic Multilingual Plane besides the fixture's smiley, so that
# a rule special-casing one emoji does not pass, and U+FFFF, the BMP's last character (one
# unit), so that a rule that puts the edge on the wrong side (ord(c) >= 0xFFFF) does not.
LAST_BMP = "\uffff"
# The same texts for every variant: a function answer is graded by its outputs on them. Two
# are the self-paced exercises' question and mandatory request (exercise 4's), not the
# article's, whose UTF-16 units 03 prints.
JAVA_TEXTS = ("hello", "接口", SMILE, SELF_PACED.question, "𝄞 clef", "😀🙂 and 𠀋",
              request_bytes(SELF_PACED.system, [], SELF_PACED.question).decode(),
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


def _check_java_length(v: Variant, java_length: object) -> Feedback:
    return _java_length_against(java_length, JAVA_TEXTS)


q3 = Exercise(
    3, "what Java's `String.length()` reports", _check_java_length, fixture=active,
    hint="Java strings are UTF-16: length() counts 2-byte code units. Which Python codec "
         "writes UTF-16 without a byte-order mark?",
    hidden=lambda v, java_length: _java_length_against(java_length, HIDDEN_JAVA_TEXTS),
    inputs=JAVA_TEXTS + HIDDEN_JAVA_TEXTS,
)


# --- 4. The budget Java's check lets through ----------------------------------------

def java_gap(v: Variant) -> range:
    """The budgets Java's ``length()`` check passes though the mandatory request's bytes do
    not fit: from its UTF-16 units up to one byte short of its UTF-8 bytes."""
    body = request_bytes(v.system, [], v.question)
    return range(utf16_units(body.decode("utf-8")), len(body))


def _check_java_gap(v: Variant, java_budget: object) -> Feedback:
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


q4 = Exercise(
    4, "the smallest budget Java's length check accepts", _check_java_gap, fixture=active,
    hint="Measure the mandatory request both ways: UTF-16 units of the body (what Java's "
         "body.length() <= budget compares) and UTF-8 bytes (what the wire carries).",
)


# --- 5. The same fixture under the requests encoder ---------------------------------

def requests_full(v: Variant) -> int:
    """The bytes of the whole request (both turns) as ``requests`` serializes it."""
    return len(request_bytes(v.system, list(v.history), v.question, encoder="requests"))


def _check_requests_budget(v: Variant, requests_budget: object) -> Feedback:
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


q5 = Exercise(
    5, "the smallest budget that keeps both turns under `requests`", _check_requests_budget,
    fixture=active,
    hint="select keeps every turn only when the whole request fits. request_bytes takes the "
         "same encoder= argument as select.",
)


# --- 7. Notebook 07's exercise, two limits: the smallest token window that keeps every turn --

WINDOW_TOKENIZER = "o200k_base"


def window_figures(v: Variant) -> dict[str, int]:
    """The numbers the check compares with: the right answer and the usual wrong ones."""
    system, history, question, reserve = v.system, list(v.history), v.question, v.window_reserve
    tokens = request_tokens(system, history, question, tokenizer=WINDOW_TOKENIZER)
    other = request_tokens(system, history, question, tokenizer="cl100k_base")
    messages = [system, question] + [text for turn in history for text in (turn.question,
                                                                             turn.answer)]
    text_only = sum(text_tokens(text, tokenizer=WINDOW_TOKENIZER) for text in messages)
    size = len(request_bytes(system, history, question))
    return {"answer": tokens + reserve, "tokens": tokens, "bytes": size,
            "bytes_over_4": round(size / 4), "cl100k": other,
            "no_priming": tokens - REPLY_PRIMING + reserve,
            "text_only": text_only + reserve, "per_message": PER_MESSAGE}


def _check_window(v: Variant, max_tokens: object) -> Feedback:
    limit = as_integral(max_tokens)
    if limit is None:
        return not_whole(max_tokens, "tokens")
    max_tokens = limit
    f = window_figures(v)
    reserve = v.window_reserve
    known = {  # the usual wrong counts; on a variant one may happen to be right
        f["bytes"]: "that is the request's size in bytes. A token limit counts tokens, which "
                    "the tokenizer decides; the byte budget is a separate limit.",
        f["bytes_over_4"]: "that is the 'bytes / 4' rule of thumb: an estimate, and far off "
                           "for Chinese and emoji. Count with the tokenizer.",
        f["cl100k"]: f"that counts with cl100k_base; this window uses {WINDOW_TOKENIZER}, "
                     f"which splits the same text differently.",
    }
    known = {**{size + reserve: text for size, text in known.items()}, **known,
             f["tokens"]: f"that fits the request alone, with nothing left for the reply: the "
                          f"{reserve}-token reserve must fit inside max_tokens too.",
             f["no_priming"]: "close: the cookbook rule also adds 3 tokens that prime the "
                              "reply, once per request.",
             f["text_only"]: f"that counts the text of the messages only: each message also "
                             f"costs {f['per_message']} tokens plus the tokens of its role."}
    if max_tokens in known and max_tokens != f["answer"]:
        return wrong(known[max_tokens])
    try:
        chosen = select(v.system, v.history, v.question, 10_000, max_tokens=max_tokens,
                        reserve_tokens=reserve, tokenizer=WINDOW_TOKENIZER)
    except BudgetError:
        return wrong(f"with max_tokens={max_tokens} and {reserve} reserved, even the system "
                     f"message and the question do not fit: select raises BudgetError.")
    except ValueError:
        return wrong(f"max_tokens must be larger than the {reserve}-token reserve.")
    if chosen.kept < len(v.history):
        return wrong(f"with max_tokens={max_tokens} select keeps {count_turns(chosen.kept)} of "
                     f"{len(v.history)}: the request's {chosen.tokens} tokens plus the reserve "
                     f"leave no room for the older turn.")
    if max_tokens > f["answer"]:
        return wrong(f"{max_tokens} keeps both turns, but a smaller limit does too: find the "
                     f"smallest.")
    return correct(f"{max_tokens} = {f['tokens']} tokens of request + {reserve} reserved for "
                   f"the reply. One token less and select drops the older turn. The bytes "
                   f"({f['bytes']}) are a separate limit, checked too.")


q7 = Exercise(
    7, "the smallest token window that keeps every turn", _check_window, fixture=active,
    hint=f"request_tokens(SYSTEM, HISTORY, QUESTION, tokenizer='{WINDOW_TOKENIZER}') counts "
         f"the request under the cookbook rule. Then ask what else must fit in the same "
         f"window.",
)
