"""Exercise 9, on notebook 10's tool turns: find the messages a provider refuses for pairing.

The learner writes ``find_orphans(messages)``: given an ``openai-chat`` message list (what
``request_body(...)["messages"]`` holds, or a slice of it), the indices of the messages
that break OpenAI's two pairing rules, the rules ``check_request`` names
``tool-after-call`` and ``calls-answered``. The check runs it on message lists made from
the library's own bodies, each with a known fault: a message-count slice, two calls made
together and answered in the other order, filters that drop the tool messages or the
calls, results that carry each other's ids. A wrong answer that matches a known wrong rule
on every list is told that rule's name. ``ledgerlab.course.exercises`` says how every
exercise is checked.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from ledgerlab import ToolCall, ToolResult, Turn, request_body

from .. import fixtures
from ..feedback import Exercise, Feedback, as_integral, correct, wrong


def orphans(messages: Sequence[dict]) -> list[int]:
    """The right answer: every ``tool`` message that answers no open call of the assistant
    message its run follows, and every assistant message whose calls are not all answered
    by the tool messages right after it, in order."""
    found, waiting, opened = [], set(), None
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            if message.get("tool_call_id") in waiting:
                waiting.discard(message.get("tool_call_id"))
            else:
                found.append(index)
            continue
        if waiting:
            found.append(opened)
        waiting, opened = set(), None
        if message.get("role") == "assistant" and message.get("tool_calls"):
            waiting, opened = {call.get("id") for call in message["tool_calls"]}, index
    if waiting:
        found.append(opened)
    return sorted(found)


# --- The message lists the check runs a function on ----------------------------------------

def _messages(history, current=fixtures.TOOL_QUESTION) -> list[dict]:
    return request_body(fixtures.TOOL_SYSTEM, history, current,
                        tools=(fixtures.LOOKUP_TOOL,))["messages"]


TWO_ROUNDS = Turn("What code and language?", "ORCHID-17, Java 8.",
                  steps=(ToolCall("call_5", "lookup_project", '{"field":"code"}'),
                         ToolResult("call_5", "ORCHID-17"),
                         ToolCall("call_6", "lookup_project", '{"field":"language"}'),
                         ToolResult("call_6", "Java 8")))


def _swapped_ids() -> list[dict]:
    """Two rounds in one turn, each result carrying the other round's id (a bug that
    matches results to calls by position across rounds)."""
    messages = _messages((TWO_ROUNDS,))
    first, second = (i for i, m in enumerate(messages) if m["role"] == "tool")
    messages[first]["tool_call_id"], messages[second]["tool_call_id"] = (
        messages[second]["tool_call_id"], messages[first]["tool_call_id"])
    return messages


TOOL_MESSAGES = _messages(fixtures.TOOL_HISTORY)  # well formed: nothing to find
SLICED_MESSAGES = TOOL_MESSAGES[:1] + TOOL_MESSAGES[-5:]  # notebook 10's message-count slice
_PARALLEL = _messages((fixtures.PARALLEL_TURN, fixtures.TOOL_HISTORY[1]))
_CALL_ONLY = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_7", "type": "function",
     "function": {"name": "lookup_project", "arguments": '{"field":"deadline"}'}}]}

# (what the list is, the list): the description names its shape, never an answer.
CASES = (
    ("a whole history with one tool round", TOOL_MESSAGES),
    ("a message-count slice of it", SLICED_MESSAGES),
    ("two calls made together, answered in the other order", _PARALLEL),
    ("a slice that starts at the second of two results", _PARALLEL[:1] + _PARALLEL[4:]),
    ("the history with its tool messages filtered out",
     [m for m in TOOL_MESSAGES if m["role"] != "tool"]),
    ("the history with its assistant messages without text filtered out",
     [m for m in TOOL_MESSAGES if m["role"] != "assistant" or m["content"] is not None]),
    ("two rounds whose results carry each other's ids", _swapped_ids()),
)
# Grading only: more shapes.
HIDDEN_CASES = (
    ("no message", []),
    ("a system message alone", TOOL_MESSAGES[:1]),
    ("a call whose result has not come yet", TOOL_MESSAGES + [_CALL_ONLY]),
    ("one result sent twice", TOOL_MESSAGES[:4] + TOOL_MESSAGES[3:]),
    ("a result after the current question", TOOL_MESSAGES + TOOL_MESSAGES[3:4]),
    ("two calls made together, one result missing", _PARALLEL[:4] + _PARALLEL[5:]),
    ("a stray result between a call and its own", _swapped_ids()[:4]
     + [{"role": "tool", "tool_call_id": "call_5", "content": "ORCHID-17"}]),
)


# --- Known wrong rules, and what each gets wrong -----------------------------------------

def _first_only(messages):
    """Only a tool message first after the system message is an orphan."""
    start = next((i for i, m in enumerate(messages) if m.get("role") != "system"), None)
    return [start] if start is not None and messages[start].get("role") == "tool" else []


def _calls_of(message) -> list:
    return [call.get("id") for call in message.get("tool_calls") or []]


def _previous_only(messages):
    """A tool message must come right after the assistant message that called it."""
    found = [i for i, m in enumerate(messages) if m.get("role") == "tool" and not (
        i and m.get("tool_call_id") in _calls_of(messages[i - 1]))]
    return sorted(found + _unanswered(messages))


def _unanswered(messages):
    """The calls-answered half, right."""
    return [i for i in orphans(messages) if messages[i].get("role") == "assistant"]


def _results_only(messages):
    """The tool-after-call half, right, and no check that every call is answered."""
    return [i for i in orphans(messages) if messages[i].get("role") == "tool"]


def _roles_only(messages):
    """Roles, not ids: a tool message is fine after an assistant message with calls (and
    the tool messages between), and such a message is fine if a tool message follows."""
    found, after_calls = [], False
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            if not after_calls:
                found.append(index)
            continue
        if message.get("role") == "assistant" and message.get("tool_calls") and not (
                index + 1 < len(messages) and messages[index + 1].get("role") == "tool"):
            found.append(index)
        after_calls = message.get("role") == "assistant" and bool(message.get("tool_calls"))
    return found


def _by_position(messages):
    """The k-th result of a round answers its k-th call."""
    found, calls, position = [], [], 0
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            if position >= len(calls) or message.get("tool_call_id") != calls[position]:
                found.append(index)
            position += 1
            continue
        calls, position = _calls_of(message), 0
    return sorted(set(found + _unanswered(messages)))


def _anywhere_before(messages):
    """A result is fine if any earlier message made its call; a call is fine if any later
    message answers it."""
    found = []
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            if not any(message.get("tool_call_id") in _calls_of(m) for m in messages[:index]):
                found.append(index)
        for call_id in _calls_of(message):
            if not any(m.get("role") == "tool" and m.get("tool_call_id") == call_id
                       for m in messages[index + 1:]):
                found.append(index)
                break
    return sorted(found)


WRONG_RULES: tuple[tuple[Callable, str], ...] = (
    (lambda messages: [i + 1 for i in orphans(messages)],
     "your indices are one too high: count from 0, as Python's list indices do (the system "
     "message is message 0)."),
    (_first_only, "your function finds an orphan only at the start of the list. A filter or a "
                  "bug can orphan a message anywhere: check every message."),
    (_previous_only, "your function wants each result right after its call. Calls made "
                     "together are answered by a run of tool messages: the second result "
                     "follows the first, and answers the same assistant message."),
    (_by_position, "your function pairs the k-th result with the k-th call. Results answer by "
                   "tool_call_id, in any order within their run."),
    (_roles_only, "your function checks roles, not ids: a tool message must answer, by its "
                  "tool_call_id, a call of the assistant message its run follows."),
    (_anywhere_before, "your function accepts a result whose call was made anywhere earlier. "
                       "The call must be in the assistant message right before the run of "
                       "results, and every call answered in that run."),
    (_results_only, "your function finds results without their call, but not calls without "
                    "their results: 'An assistant message with tool_calls must be followed by "
                    "tool messages responding to each tool_call_id'."),
)


# --- The check ------------------------------------------------------------------------------

def _describe(number: int, what: str, messages: list) -> str:
    return f"test list #{number} ({len(messages)} messages: {what})"


def _role(message: dict) -> str:
    if message.get("role") == "assistant" and message.get("tool_calls"):
        return "an assistant message with tool_calls"
    return {"tool": "a tool message", "user": "a user message", "system": "the system message",
            "assistant": "an assistant answer"}.get(message.get("role"), "a message")


def _result(find_orphans, messages) -> list[int] | Feedback:
    """What the learner's function returns for ``messages`` (a copy), or why it is no answer."""
    try:
        got = find_orphans(copy.deepcopy(messages))
    except Exception as error:  # the learner's code: report, don't crash
        return wrong(f"your function raised {type(error).__name__} on a list of "
                     f"{len(messages)} messages.")
    if got is None:
        return Feedback("unanswered", "your function returned None: write its body, then run "
                                      "check() again.")
    if not isinstance(got, (list, tuple)):
        kind = "bool" if isinstance(got, bool) else type(got).__name__
        return wrong(f"return a list of message indices (ints), not a {kind}"
                     + (": a set has no order, and the grader reads lists." if kind == "set"
                        else "."))
    indices = [as_integral(item) for item in got]
    if any(index is None for index in indices):
        return wrong("return the indices of the messages (ints, counted from 0), not the "
                     "messages or their ids.")
    return indices


def _against(find_orphans: object, cases, named: bool = True) -> Feedback:
    if not callable(find_orphans):
        return wrong("pass a function that takes a list of messages and returns a list of "
                     "indices.")
    results = []
    for _, messages in cases:
        got = _result(find_orphans, messages)
        if isinstance(got, Feedback):
            return got
        results.append(got)
    expected = [orphans(messages) for _, messages in cases]
    if results == expected:
        return correct(f"all {len(cases)} test lists match: the results without their call "
                       f"and the calls without all their results, found by id wherever they "
                       f"are. These are the two rules check_request names tool-after-call and "
                       f"calls-answered; a whole-turn selection never breaks them.")
    # A wrong rule is named on the visible lists, which tell every one apart; a function that
    # passed them and fails a hidden list is told which list, not a rule it does not follow.
    for rule, mistake in WRONG_RULES if named else ():
        if results == [rule(messages) for _, messages in cases]:
            return wrong(mistake)
    for number, ((what, messages), got, right) in enumerate(zip(cases, results, expected), 1):
        if got == right:
            continue
        if sorted(set(got)) == right:
            return wrong(f"for {_describe(number, what, messages)} you have the right messages, but "
                         f"give each index once, in order.")
        extra = sorted(set(got) - set(right))
        if extra:
            where = (f"message {extra[0]}, which is not in the list" if not
                     0 <= extra[0] < len(messages) else
                     f"message {extra[0]} ({_role(messages[extra[0]])}), which the provider "
                     f"accepts")
            return wrong(f"for {_describe(number, what, messages)} your function flags {where}.")
        missed = sorted(set(right) - set(got))[0]
        return wrong(f"for {_describe(number, what, messages)} your function misses message "
                     f"{missed} ({_role(messages[missed])}), which the provider refuses.")
    raise AssertionError("unreachable: some list differs")


def _check_orphans(find_orphans: object) -> Feedback:
    return _against(find_orphans, CASES)


q9 = Exercise(
    9, "the messages a provider refuses for pairing", _check_orphans,
    hint="Walk the list once, keeping the ids of the last assistant message's tool_calls "
         "that no tool message has answered yet. A tool message must take its id from that "
         "set; any other message closes the round, and the calls still in the set are "
         "unanswered.",
    hidden=lambda find_orphans: _against(find_orphans, HIDDEN_CASES, named=False),
    inputs=tuple(messages for _, messages in CASES + HIDDEN_CASES),
)
