"""10 · Tool turns: whole turns in real APIs: a tool round kept whole, in two dialects.

The predictions and the quiz, on the article's question answered through a lookup tool
(``fixtures.TOOL_HISTORY``): what the message-count slice of it breaks in each dialect, what
the tool schemas cost in every request, the same history in both dialects, a field the
application adds. Each asks for a number, not one of a few words: after one "Not yet", a
choice between two or three words leaves the answer. Every answer is measured from the library
(``select``, ``request_bytes``, ``ledgerlab.course.toolturns``) when it is checked.

Exercise 9 (``q9``) asks for the messages a provider refuses for pairing. The learner writes ``find_orphans(messages)``: given an ``openai-chat`` message list (what
``request_body(...)["messages"]`` holds, or a slice of it), the indices of the messages
that break OpenAI's two pairing rules, the rules ``check_request`` names
``tool-after-call`` and ``calls-answered``. The check runs it on message lists made from
the library's own bodies, each with a known fault: a message-count slice, two calls made
together and answered in the other order, filters that drop the tool messages or the
calls, results that carry each other's ids. A wrong answer that matches a known wrong rule
on every list is told that rule's name. ``ledgerlab.course.exercises`` says how every
exercise is checked, and ``ledgerlab.course.questions`` gathers the predictions and the quiz. How a question is asked
and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from ledgerlab import (ToolCall, ToolResult, Turn, get_encoder, request_body, request_bytes,
                       tool_tokens)

from .. import fixtures, toolturns
from ..feedback import Exercise, Feedback, Question, Questionnaire, as_integral, correct, wrong
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------

SLICE_BUDGET = 700  # the notebook's budget: the message-count slice keeps 5 messages
ANTHROPIC = "anthropic-messages"


def _forced_bytes() -> int:
    """The tool request with both turns and the application's tool_choice."""
    return len(request_bytes(*toolturns.TOOL_REQUEST, tools=toolturns.TOOLS,
                             extra=toolturns.FORCE_LOOKUP))


def _value_bytes() -> int:
    """tool_choice's value alone, as the wire writes it."""
    return len(get_encoder("gson").dumps(toolturns.FORCE_LOOKUP["tool_choice"]))


def _sliced_count() -> int:
    return toolturns.count_slice_under(*toolturns.TOOL_REQUEST, SLICE_BUDGET)[0]


def _openai_slice() -> bytes:
    return toolturns.count_slice_under(*toolturns.TOOL_REQUEST, SLICE_BUDGET)[1]


def _drops_until_accepted(dialect: str = "openai-chat") -> int:
    """How many messages must go from the front of the slice before check_request accepts it."""
    last = _sliced_count()
    for dropped in range(last + 1):
        payload = toolturns.count_sliced(*toolturns.TOOL_REQUEST, last - dropped,
                                         dialect=dialect)
        if toolturns.fault(payload, dialect) is None:
            return dropped
    raise AssertionError("even the system message alone is refused")


def _until_next_user() -> int:
    """The drop the whole-turn rule would make: to the next user message."""
    labels = toolturns.tool_labels(fixtures.TOOL_HISTORY)[-_sliced_count():]
    return next(i for i, label in enumerate(labels) if label.startswith("U"))


def _tool_entry_bytes() -> int:
    """The tool's entry in the array, alone, as gson writes it."""
    entry = toolturns.body(*toolturns.TOOL_REQUEST)["tools"][0]
    return len(get_encoder("gson").dumps(entry))


def _dialect_bytes(dialect: str, *, reserve: int = toolturns.RESERVE,
                   tools=toolturns.TOOLS) -> int:
    """The full tool request's size in ``dialect``, with the lesson's reply reserve."""
    return len(request_bytes(*toolturns.TOOL_REQUEST, tools=tools, dialect=dialect,
                             reserve_tokens=reserve))


def _anthropic_slices() -> list[bytes]:
    """The message-count slice in anthropic-messages (the newest 5 messages), then each slice
    one message shorter from the front, down to the current question alone."""
    last = _sliced_count()
    return [toolturns.count_sliced(*toolturns.TOOL_REQUEST, count, dialect=ANTHROPIC)
            for count in range(last, 0, -1)]


def _anthropic_accepted_bytes() -> int:
    """The size of the longest of those slices that check_request accepts."""
    return next(len(payload) for payload in _anthropic_slices()
                if toolturns.fault(payload, ANTHROPIC) is None)


TWO_TOOLS = (fixtures.LOOKUP_TOOL, fixtures.TICKET_TOOL)


# --- The predictions and the quiz --------------------------------------------------------

predict10 = Question(
    "check_request refuses the message-count slice. How many messages must be dropped from "
    "the front of it (after the system message) before check_request accepts it?",
    _drops_until_accepted,
    explanation="the tool result alone breaks an OpenAI rule. Without it the slice starts on "
                "A1, an answer without its question: notebook 02's orphan. No rule of OpenAI's "
                "forbids it, so it would be sent and answered from a conversation the model "
                "cannot read correctly (Anthropic's rules do refuse a first message that is "
                "not the user's).",
    hint="which message does the error name, and is the message after it against any rule "
         "check_request knows?",
    mistakes=lambda: {_until_next_user(): "that cuts where the whole-turn rule would, at the "
                      "next user message. Does the provider require that? Try check_request "
                      "on shorter slices.",
                      0: "check_request already refused this slice: something must go."},
)

predict10_tools = Question(
    "The lookup tool's schema travels in every request. How many bytes does it add to the "
    "request, whatever turns are kept?",
    lambda: toolturns.tools_bytes(),
    explanation="the tools key, its array, and the tool's entry: the type and function "
                "wrapper, name, description and the JSON Schema of its parameters. They are "
                "mandatory input, like the system message: paid before any turn.",
    hint="count what the tool puts in the JSON: the JSON Schema of its parameters, its name "
         "and description, the wrapper OpenAI wants around each tool "
         "({\"type\":\"function\",\"function\":{...}}), and the \"tools\" key with its "
         "brackets and a comma. None of it depends on the turns kept.",
    mistakes=lambda: {len(fixtures.LOOKUP_TOOL.parameters.encode()): "that is the JSON Schema "
                      "of the parameters alone; the tool's name, its description and the "
                      "wrapper OpenAI wants around each tool travel too.",
                      _tool_entry_bytes(): "that is the tool's entry alone; the request also "
                      "gets the key that holds the array, its brackets and a comma.",
                      tool_tokens(toolturns.TOOLS): "that is the schema's tokens (the "
                      "cookbook's estimate); the budget counts bytes."},
)

predict10_dialect = Question(
    "The same history, the same tool and a 1024-token reply reserve (reserve_tokens=1024, "
    "Anthropic's required max_tokens): how many bytes is the request in 'anthropic-messages'?",
    lambda: _dialect_bytes(ANTHROPIC),
    explanation="its envelope is larger, by max_tokens, and the system prompt is a field, not "
                "a message. The call's input is an object, not JSON text with every quote "
                "escaped, but its result needs a user message around it; the tool's entry "
                "loses the type and function wrapper. The plain turn and the question are the "
                "same bytes in both.",
    hint="build the body in that dialect, with the reserve as its max_tokens: every part of "
         "it is written in the other shape, not only the call.",
    mistakes=lambda: {_dialect_bytes("openai-chat"): "that is the openai-chat request: the "
                      "other dialect writes the system prompt, the call, its result and the "
                      "tool in another shape. Measure the body in its own dialect.",
                      _dialect_bytes(ANTHROPIC, tools=()): "that leaves the tool out: its "
                      "entry travels in both dialects, in another shape.",
                      _dialect_bytes(ANTHROPIC, reserve=1): "that sends max_tokens 1: the "
                      "lesson's reply reserve is 1024 tokens, written in the body."},
)

predict10_extra = Question(
    "At 908 bytes the tool request with both turns fits exactly. The application forces the "
    "lookup tool: it adds tool_choice, "
    "{\"type\":\"function\",\"function\":{\"name\":\"lookup_project\"}}, passed to select as "
    "extra=. How many bytes is the request with both turns once the field is added?",
    lambda: _forced_bytes(),
    explanation="908 and the field as the wire writes it after the tools: a comma, the key in "
                "quotes, a colon and the object. Every field the application adds is sent, so "
                "the budget counts it as mandatory input, and at 908 bytes turn one no longer "
                "fits.",
    hint="write the field as it goes over the wire after the tools: a comma, "
         "\"tool_choice\", a colon, then the object with no spaces; add its bytes to 908.",
    mistakes=lambda: {_forced_bytes() - 1: "the comma that separates it from the field before "
                      "it travels too.",
                      _forced_bytes() - toolturns.extra_bytes() + _value_bytes(): "that adds "
                      "its value alone; the key, its quotes, the colon and a comma travel too."},
)


quiz10 = Questionnaire(heading(10), [
    Question("Add a second tool, fixtures.TICKET_TOOL. How many bytes do the two tools add to "
             "every request (openai-chat, gson)?",
             lambda: toolturns.tools_bytes(TWO_TOOLS),
             explanation="both entries in one array, joined by a comma: the key and the "
                         "brackets are paid once.",
             hint="the two entries share one \"tools\" key and one pair of brackets, and a "
                  "comma joins them: what does the second entry add to what the lookup tool "
                  "costs alone?",
             mistakes=lambda: {2 * toolturns.tools_bytes(): "the second tool is not a copy of "
                               "the first: measure it.",
                               toolturns.tools_bytes() + toolturns.tools_bytes(
                                   (fixtures.TICKET_TOOL,)): "that pays the tools key and its "
                               "brackets twice: both tools share one array.",
                               toolturns.tools_bytes(): "the second tool's entry travels too."}),
    Question("The same message-count slice (the newest 5 messages) in anthropic-messages: its "
             "first message is a user message. Drop messages from its front one at a time: how "
             "many bytes is the longest slice check_request accepts?",
             _anthropic_accepted_bytes,
             explanation="in Anthropic's dialect a tool result travels in a user message: the "
                         "slice starts on the user role, but on a result whose tool_use was "
                         "cut (result-follows-use). Without it, it starts on A1, an assistant "
                         "message (first-user). The first slice accepted starts on a question: "
                         "starting on a user message is not starting on a turn.",
             hint="what does a tool result look like in anthropic-messages, and which role "
                  "must the first message have? Check each shorter slice, then measure the "
                  "first one accepted.",
             mistakes=lambda: {len(_anthropic_slices()[0]): "that is the slice itself, and "
                               "check_request refuses it: starting on a user message passes "
                               "Anthropic's first-user rule. What is in that user message?",
                               len(_anthropic_slices()[1]): "that slice starts on A1, an "
                               "assistant message: Anthropic's first message must be the "
                               "user's.",
                               len(_anthropic_slices()[-1]): "that drops too much: a shorter "
                               "slice that keeps a stored turn is accepted too.",
                               len(_openai_slice()): "that is the openai-chat slice: "
                               "measure the body in anthropic-messages."}),
])


# --- Exercise 9: the messages a provider refuses for pairing ------------------------------
# It checks no variant: the same message lists for everyone, so it is whole here.


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
