"""Self-checks for the exercises notebook, in the style of Kaggle Learn's learntools.

Each exercise ``qN`` has ``check(answer)``, ``hint()`` and ``solution()``.
``check`` returns Feedback: correct, or what is wrong, told in bytes and turns.
It never repeats the learner's text: a conversation may be private, so only
sizes, counts and positions are shown. A placeholder ``...`` reads as "not
answered yet".
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from . import article
from .display import PlainText
from .display import turns as count_turns
from .journal import Journal, encode_record
from .selector import BudgetError, byte_breakdown, select
from .wire import Turn, request_bytes, utf16_units

SYSTEM = article.BOUNDARY_SYSTEM
QUESTION = article.BOUNDARY_QUESTION
HISTORY = article.BOUNDARY_HISTORY
SMILE = "🙂"
GROW_BUDGET = 235
TORN_AFTER = 40  # bytes of the third journal line that reached the disk


class Feedback:
    """The outcome of a check: ``bool(feedback)`` is True when the answer is right."""

    LABELS = {"correct": "Correct", "incorrect": "Not yet", "unanswered": "Not answered yet"}

    def __init__(self, status: str, message: str) -> None:
        self.status, self.message = status, message

    def __bool__(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        return f"{self.LABELS[self.status]}: {self.message}"


def correct(message: str) -> Feedback:
    return Feedback("correct", message)


def wrong(message: str) -> Feedback:
    return Feedback("incorrect", message)


UNANSWERED = Feedback("unanswered", "replace each ... with your answer, then run check() again.")


class Exercise:
    """One exercise: a checker plus the hint and solution texts."""

    def __init__(self, number: int, title: str, checker, hint: str, solution: str) -> None:
        self.number, self.title = number, title
        self._checker, self._hint, self._solution = checker, hint, solution

    def check(self, *answer: object) -> Feedback:
        if any(part is Ellipsis for part in answer):
            return UNANSWERED
        return self._checker(*answer)

    def hint(self) -> PlainText:
        return PlainText(f"Hint: {self._hint}")

    def solution(self) -> PlainText:
        return PlainText(f"Solution:\n{self._solution}")

    def __repr__(self) -> str:
        return f"Exercise {self.number}: {self.title} (check(), hint(), solution())"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- 1. The article's exercise, part 1: a much larger newest turn ------------------

def _check_big_newest(history: object, budget: object) -> Feedback:
    if not isinstance(history, (list, tuple)) or not all(isinstance(t, Turn) for t in history):
        return wrong("history must be a list of Turn objects.")
    if len(history) < 2:
        return wrong(f"history needs at least 2 turns; yours has {len(history)}.")
    if not _is_int(budget) or budget <= 0:
        return wrong("budget must be a positive int (bytes).")
    parts = byte_breakdown(SYSTEM, history, QUESTION)
    mandatory = parts["envelope"] + parts["system"] + parts["question"]
    with_older = mandatory + parts["turns"][-2]
    with_newest = mandatory + parts["turns"][-1]
    if budget < mandatory:
        return wrong(f"a {budget}-byte budget is below the mandatory input ({mandatory} bytes): "
                     f"select raises BudgetError. Choose a budget the older turn fits in.")
    if budget < with_older:
        return wrong(f"a {budget}-byte budget does not fit the older turn either: the request "
                     f"with only the older turn needs {with_older} bytes.")
    if budget >= with_newest:
        return wrong(f"a {budget}-byte budget fits the newest turn (the request with only it "
                     f"needs {with_newest} bytes). Make the newest turn larger than "
                     f"{budget - mandatory} bytes, or lower the budget.")
    chosen = select(SYSTEM, history, QUESTION, budget)
    return correct(
        f"the older turn alone would fit ({with_older} <= {budget} bytes) but the newest does "
        f"not ({with_newest} > {budget}), so select keeps {count_turns(chosen.kept)} and sends "
        f"the {chosen.size}-byte mandatory input. The kept turns are a contiguous suffix: "
        f"the rule does not skip the newest turn to pack an older one.")


q1 = Exercise(
    1, "a much larger newest turn", _check_big_newest,
    hint="Keep the fixture's first turn as the older one and make the newest answer long "
         "(say 'x' * 200). Then measure: byte_breakdown(SYSTEM, history, QUESTION) gives "
         "the envelope, system, question and each turn's bytes; the budget must hold the "
         "mandatory part plus the older turn, but not the mandatory part plus the newest.",
    solution="history = [Turn('hello', 'world'), Turn('long question', 'x' * 200)]\n"
             "parts = byte_breakdown(SYSTEM, history, QUESTION)\n"
             "budget = parts['envelope'] + parts['system'] + parts['question'] + parts['turns'][0]\n"
             "q1.check(history, budget)  # select keeps 0 turns: the 140-byte mandatory input",
)


# --- 2. The article's exercise, part 2: grow the question until it fails ------------

def grown_question(count: int) -> str:
    """The fixture's question with ``count`` more smileys."""
    return QUESTION + SMILE * count


def _mandatory(count: int) -> int:
    return len(request_bytes(SYSTEM, [], grown_question(count)))


def _check_grow(count: object) -> Feedback:
    if not _is_int(count) or count < 0:
        return wrong("the answer is a count of smileys: an int, 0 or more.")
    needed = _mandatory(count)
    if needed <= GROW_BUDGET:
        kept = select(SYSTEM, HISTORY, grown_question(count), GROW_BUDGET).kept
        return wrong(f"with {count} smileys the mandatory input needs {needed} bytes, within "
                     f"the {GROW_BUDGET}-byte budget: select still answers and keeps "
                     f"{count_turns(kept)}. Grow the question further.")
    if count > 0 and _mandatory(count - 1) > GROW_BUDGET:
        return wrong(f"{count} smileys are rejected ({needed} > {GROW_BUDGET} bytes), but so "
                     f"are {count - 1} ({_mandatory(count - 1)} bytes): find the smallest count.")
    return correct(
        f"{count} smileys: the mandatory input needs {needed} bytes > {GROW_BUDGET}, so select "
        f"raises BudgetError; with {count - 1} it needs {_mandatory(count - 1)} bytes and "
        f"sends the mandatory input only. Each smiley is 4 UTF-8 bytes (2 UTF-16 units).")


q2 = Exercise(
    2, "grow the question until the mandatory input fails", _check_grow,
    hint=f"The mandatory input is len(request_bytes(SYSTEM, [], grown_question(n))). Try "
         f"n = 0, 1, 2, ... and stop at the first n whose size is over {GROW_BUDGET} bytes; "
         f"or compute it: 140 bytes to start, plus 4 per smiley.",
    solution=f"n = 0\n"
             f"while len(request_bytes(SYSTEM, [], grown_question(n))) <= {GROW_BUDGET}:\n"
             f"    n += 1\n"
             f"q2.check(n)  # 24: 236 bytes; 23 smileys need 232",
)


# --- 3. What Java's String.length() reports ------------------------------------------

JAVA_TEXTS = ("hello", "接口", SMILE, QUESTION,
              request_bytes(SYSTEM, [], QUESTION).decode("utf-8"))


def _check_java_length(function: object) -> Feedback:
    if not callable(function):
        return wrong("pass a function that takes a str and returns an int.")
    for number, text in enumerate(JAVA_TEXTS, start=1):
        expected = utf16_units(text)
        points = f"{len(text)} code point{'' if len(text) == 1 else 's'}"
        shape = f"test text #{number} ({points}, {len(text.encode())} UTF-8 bytes)"
        try:
            got = function(text)
        except Exception as error:  # the learner's code: report, don't crash
            return wrong(f"your function raised {type(error).__name__} on {shape}.")
        if got is None:
            return Feedback("unanswered", "your function returned None: write its body, "
                                          "then run check() again.")
        if got != expected:
            return wrong(f"for {shape} your function returned {got!r}; "
                         f"Java's String.length() reports {expected}.")
    return correct(f"all {len(JAVA_TEXTS)} test texts match Java. Characters outside the Basic "
                   f"Multilingual Plane, like the smiley, count 2 UTF-16 units; the mandatory "
                   f"request is 114 units but 140 bytes.")


q3 = Exercise(
    3, "what Java's String.length() reports", _check_java_length,
    hint="Java strings are UTF-16. Encode to UTF-16 without a byte-order mark "
         "('utf-16-le') and count 2-byte units.",
    solution="def java_length(text):\n"
             "    return len(text.encode('utf-16-le')) // 2\n"
             "q3.check(java_length)",
)


# --- 4. The budget Java's check lets through ----------------------------------------

_MANDATORY = request_bytes(SYSTEM, [], QUESTION)
MANDATORY_UNITS = utf16_units(_MANDATORY.decode("utf-8"))


def _check_java_gap(budget: object) -> Feedback:
    if not _is_int(budget) or budget <= 0:
        return wrong("budget must be a positive int (bytes).")
    wire = len(_MANDATORY)
    if budget < MANDATORY_UNITS:
        return wrong(f"at {budget} Java's check rejects too: the body is {MANDATORY_UNITS} "
                     f"UTF-16 units, more than {budget}.")
    if budget >= wire:
        return wrong(f"at {budget} bytes the {wire} wire bytes fit: there is no gap to catch.")
    return correct(f"Java's length() says {MANDATORY_UNITS} <= {budget} and sends; the wire "
                   f"carries {wire} bytes, {wire - budget} over the budget. Every budget from "
                   f"{MANDATORY_UNITS} to {wire - 1} hides the gap.")


q4 = Exercise(
    4, "a budget Java's length check lets through", _check_java_gap,
    hint="Measure the mandatory request both ways: UTF-16 units of the body (what Java's "
         "body.length() <= budget compares) and UTF-8 bytes (what the wire carries).",
    solution="body = request_bytes(SYSTEM, [], QUESTION)\n"
             "units = len(body.decode('utf-8').encode('utf-16-le')) // 2  # 114\n"
             "q4.check(units)  # any budget from 114 to 139 bytes",
)


# --- 5. The same fixture under the requests encoder ---------------------------------

def _check_requests_budget(budget: object) -> Feedback:
    if not _is_int(budget) or budget <= 0:
        return wrong("budget must be a positive int (bytes).")
    full = len(request_bytes(SYSTEM, list(HISTORY), QUESTION, encoder="requests"))
    try:
        chosen = select(SYSTEM, HISTORY, QUESTION, budget, encoder="requests")
    except BudgetError as error:
        return wrong(f"at {budget} bytes requests rejects: its mandatory input needs "
                     f"{error.mandatory_bytes} bytes.")
    if chosen.kept < len(HISTORY):
        return wrong(f"at {budget} bytes requests keeps {chosen.kept} of {count_turns(len(HISTORY))} "
                     f"({chosen.size} bytes sent).")
    if budget > full:
        return wrong(f"{budget} bytes keeps both turns, but so does {budget - 1}: find the "
                     f"smallest.")
    gson = len(request_bytes(SYSTEM, list(HISTORY), QUESTION))
    return correct(f"{full} bytes. The same request is {gson} bytes under gson: requests' ASCII "
                   f"escapes and spaced separators add {full - gson}, so gson's 308-byte budget "
                   f"keeps no turn under requests.")


q5 = Exercise(
    5, "the smallest budget that keeps both turns under requests", _check_requests_budget,
    hint="The smallest budget that keeps every turn is the size of the full request, "
         "measured with the same encoder.",
    solution="budget = len(request_bytes(SYSTEM, list(HISTORY), QUESTION, encoder='requests'))\n"
             "q5.check(budget)  # 399",
)


# --- 6. A torn tail in the journal ---------------------------------------------------

def _scenario_lines() -> list[bytes]:
    return [encode_record(turn_id, turn.question, turn.answer)
            for turn_id, turn in article.SCENARIO_TURNS]


def torn_journal() -> bytes:
    """Journal bytes: the scenario's turns one and two, then a third line torn by a crash."""
    third = encode_record("three", article.NEXT_STEP_QUESTION, article.LOCAL_FIXTURE_REPLY)
    return b"".join(_scenario_lines()) + third[:TORN_AFTER]


def _check_torn(turns: object, file_bytes: object) -> Feedback:
    if not _is_int(turns) or not _is_int(file_bytes):
        return wrong("give two ints: the turns the reopened journal holds, and its file size "
                     "in bytes.")
    with tempfile.TemporaryDirectory() as directory:  # the truth: a real journal opens it
        path = Path(directory) / "torn.log"
        path.write_bytes(torn_journal())
        with Journal(path) as journal:
            kept, good = len(journal), path.stat().st_size
    if turns != kept:
        return wrong(f"{count_turns(turns)}: the file has {kept} complete lines and a torn "
                     f"one; only complete, valid lines are turns.")
    if file_bytes != good:
        return wrong(f"{file_bytes} bytes: on open the journal cuts the torn tail "
                     f"({TORN_AFTER} bytes) and keeps the complete lines.")
    return correct(f"{kept} turns and {good} bytes: the {TORN_AFTER}-byte torn tail is "
                   f"cut (and the cut synced); the third turn was never acknowledged.")


q6 = Exercise(
    6, "a torn tail in the journal", _check_torn,
    hint="ledgerlab.journal.examine(data) lists every line with its offset, length and "
         "its record, or its problem (a torn tail is one). Or write the bytes to a file in a temporary directory "
         "and open a Journal on it.",
    solution="lines = examine(torn_journal())\n"
             "records = [line for line in lines if line.record is not None]\n"
             "q6.check(len(records), sum(line.length for line in records))  # 2 turns",
)

EXERCISES = (q1, q2, q3, q4, q5, q6)


# --- Notebook 07, two limits: the smallest token window that keeps every turn ------------

WINDOW_RESERVE = 20
WINDOW_TOKENIZER = "o200k_base"


def _window_figures() -> dict[str, int]:
    """The numbers the check compares with: the right answer and the usual wrong ones."""
    from .tokens import PER_MESSAGE, REPLY_PRIMING, request_tokens, text_tokens

    history = list(HISTORY)
    tokens = request_tokens(SYSTEM, history, QUESTION, tokenizer=WINDOW_TOKENIZER)
    other = request_tokens(SYSTEM, history, QUESTION, tokenizer="cl100k_base")
    messages = [SYSTEM, QUESTION] + [text for turn in history for text in (turn.question,
                                                                             turn.answer)]
    text_only = sum(text_tokens(text, tokenizer=WINDOW_TOKENIZER) for text in messages)
    size = len(request_bytes(SYSTEM, history, QUESTION))
    return {"answer": tokens + WINDOW_RESERVE, "tokens": tokens, "bytes": size,
            "bytes_over_4": round(size / 4), "cl100k": other,
            "no_priming": tokens - REPLY_PRIMING + WINDOW_RESERVE,
            "text_only": text_only + WINDOW_RESERVE, "per_message": PER_MESSAGE}


def _check_window(max_tokens: object) -> Feedback:
    from numbers import Integral

    if isinstance(max_tokens, bool) or not isinstance(max_tokens, Integral):
        return wrong("the answer is a token limit: an int (tokens are counted whole).")
    max_tokens = int(max_tokens)
    f = _window_figures()
    reserve = WINDOW_RESERVE
    if max_tokens in (f["bytes"], f["bytes"] + reserve):
        return wrong("that is the request's size in bytes. A token limit counts tokens, "
                     "which the tokenizer decides; the byte budget is a separate limit.")
    if max_tokens in (f["bytes_over_4"], f["bytes_over_4"] + reserve):
        return wrong("that is the 'bytes / 4' rule of thumb: an estimate, and far off for "
                     "Chinese and emoji. Count with the tokenizer.")
    if max_tokens in (f["cl100k"], f["cl100k"] + reserve):
        return wrong(f"that counts with cl100k_base; this window uses {WINDOW_TOKENIZER}, "
                     f"which splits the same text differently.")
    if max_tokens == f["tokens"]:
        return wrong(f"that fits the request alone, with nothing left for the reply: the "
                     f"{reserve}-token reserve must fit inside max_tokens too.")
    if max_tokens == f["no_priming"]:
        return wrong("close: the cookbook rule also adds 3 tokens that prime the reply, "
                     "once per request.")
    if max_tokens == f["text_only"]:
        return wrong(f"that counts the text of the messages only: each message also costs "
                     f"{f['per_message']} tokens plus the tokens of its role.")
    try:
        chosen = select(SYSTEM, HISTORY, QUESTION, 10_000, max_tokens=max_tokens,
                        reserve_tokens=reserve, tokenizer=WINDOW_TOKENIZER)
    except BudgetError:
        return wrong(f"with max_tokens={max_tokens} and {reserve} reserved, even the system "
                     f"message and the question do not fit: select raises BudgetError.")
    except ValueError:
        return wrong(f"max_tokens must be larger than the {reserve}-token reserve.")
    if chosen.kept < len(HISTORY):
        return wrong(f"with max_tokens={max_tokens} select keeps {count_turns(chosen.kept)} of "
                     f"{len(HISTORY)}: the request's {chosen.tokens} tokens plus the reserve "
                     f"leave no room for the older turn.")
    if max_tokens > f["answer"]:
        return wrong(f"{max_tokens} keeps both turns, but a smaller limit does too: find the "
                     f"smallest.")
    return correct(f"{max_tokens} = {f['tokens']} tokens of request + {reserve} reserved for "
                   f"the reply. One token less and select drops the older turn. The bytes "
                   f"({f['bytes']}) are a separate limit, checked too.")


window_q1 = Exercise(
    1, "the smallest token window that keeps every turn", _check_window,
    hint=f"request_tokens(SYSTEM, HISTORY, QUESTION, tokenizer='{WINDOW_TOKENIZER}') counts "
         f"the request under the cookbook rule. Then ask what else must fit in the same "
         f"window.",
    solution=f"needed = request_tokens(SYSTEM, HISTORY, QUESTION, tokenizer='{WINDOW_TOKENIZER}')\n"
             f"window_q1.check(needed + {WINDOW_RESERVE})  # the request, and the reserve for "
             f"the reply",
)
