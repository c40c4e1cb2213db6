"""The providers' rules a request body must keep, checked the way the provider would.

``check_request`` parses a body and raises ``InvalidRequest`` naming the first rule
it breaks, in the provider's own words (OpenAI's API error strings, Anthropic's
documentation), with the index of the message at fault. It never shows the text of
the request: only roles, positions and counts.

It checks shape, order and pairing, the rules a trimmed history breaks: roles,
where tool calls and results may stand, that every call is answered by the next
messages and every result follows its call, and Anthropic's results first in their
message. It is not the providers' whole validation (models, sizes, limits).
"""

from __future__ import annotations

import json

from .shapes import NON_EMPTY, check_dialect
from .turns import refuse_constant

# The rules, keyed, in the providers' words.
RULES = {
    "body": "the body must be one JSON object with a model and a non-empty messages array",
    "role": "each message's role must be one the API knows for its place",
    "tool-after-call": ("messages with role 'tool' must be a response to a preceding "
                        "message with 'tool_calls'"),
    "calls-answered": ("An assistant message with 'tool_calls' must be followed by tool "
                       "messages responding to each 'tool_call_id'"),
    "first-user": "the first message must use the user role",
    "result-follows-use": ("Tool result blocks must immediately follow their corresponding "
                           "tool use blocks; each tool_result block must have a "
                           "corresponding tool_use block in the previous message"),
    "use-answered": ("tool_use ids were found without tool_result blocks immediately "
                     "after: each tool_use block must have a corresponding tool_result "
                     "block in the next message"),
    "results-first": ("tool_result blocks must come FIRST in the content array. Any text "
                      "must come AFTER all tool results"),
    "non-empty": NON_EMPTY,
    "max-tokens": "max_tokens is required, an integer of at least 1",
    "tools": "each tool must be an object of the dialect's shape with a name",
}


class InvalidRequest(ValueError):
    """A request body breaks a provider's rule: ``rule`` is its key in RULES, ``index``
    the message at fault (None when the fault is not in one message)."""

    def __init__(self, rule: str, index: int | None = None, detail: str = "") -> None:
        self.rule, self.index = rule, index
        where = "" if index is None else f" (message {index})"
        more = f"; {detail}" if detail else ""
        super().__init__(f"{rule}{where}: {RULES[rule]}{more}")


def check_request(payload: bytes | str, dialect: str = "openai-chat") -> None:
    """Raise InvalidRequest if the body ``payload`` breaks a rule of ``dialect``'s provider."""
    dialect = check_dialect(dialect)
    try:  # JSON between systems is UTF-8 (RFC 8259), and NaN or Infinity are not JSON
        text = payload.decode("utf-8") if isinstance(payload, (bytes, bytearray)) else payload
        body = json.loads(text, parse_constant=refuse_constant)
    except (ValueError, TypeError, RecursionError):  # JSONDecodeError, UnicodeDecodeError too
        raise InvalidRequest("body", detail="it is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not (
            isinstance(body.get("messages"), list) and body["messages"]):
        raise InvalidRequest("body")
    messages = body["messages"]
    if not all(isinstance(message, dict) for message in messages):
        raise InvalidRequest("body", detail="a message is not an object")
    if dialect == "openai-chat":
        _check_openai(messages)
    else:
        _check_anthropic(body, messages)
    _check_tools(body, dialect)


def _ids(values: object) -> list[str] | None:
    """``values`` if every one is a str id, else None."""
    return values if all(isinstance(value, str) for value in values) else None


def _check_openai(messages: list[dict]) -> None:
    waiting: set[str] = set()  # ids of the last tool_calls message not yet answered
    answerable: set[str] = set()
    calls_at = None  # the index of that message
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise InvalidRequest("role", index)
        content = message.get("content")
        if not (isinstance(content, (str, list)) or (
                content is None and role == "assistant" and message.get("tool_calls"))):
            raise InvalidRequest("body", index, "a message's content must be text or parts "
                                 "(null only beside tool_calls)")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or call_id not in answerable or call_id not in waiting:
                raise InvalidRequest("tool-after-call", index)
            waiting.discard(call_id)
            continue
        if waiting:  # a message that is not a tool result, before every call was answered
            raise InvalidRequest("calls-answered", calls_at, f"{len(waiting)} call(s) unanswered")
        answerable = set()
        calls = message.get("tool_calls") if role == "assistant" else None
        if calls is not None and not isinstance(calls, list):
            raise InvalidRequest("calls-answered", index, "tool_calls must be a list")
        if calls:
            ids = _ids([call.get("id") if isinstance(call, dict) else None for call in calls])
            if ids is None or len(set(ids)) < len(ids):
                raise InvalidRequest("calls-answered", index, "tool call ids must be distinct")
            waiting, answerable, calls_at = set(ids), set(ids), index
    if waiting:
        raise InvalidRequest("calls-answered", calls_at, f"{len(waiting)} call(s) unanswered")


def _combined(messages: list[dict]) -> list[tuple[int, str, list]]:
    """Anthropic combines consecutive messages of one role into one turn: (index of its
    first message, role, its content blocks, a str content taken as one text block)."""
    turns: list[tuple[int, str, list]] = []
    for index, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "assistant"):
            raise InvalidRequest("role", index, "system is a top-level field, not a message")
        blocks = [{"type": "text"}] if isinstance(content, str) else (
            content if isinstance(content, list) else [])
        if turns and turns[-1][1] == role:
            turns[-1][2].extend(blocks)
        else:
            turns.append((index, role, list(blocks)))
    return turns


def _check_anthropic(body: dict, messages: list[dict]) -> None:
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidRequest("max-tokens")
    for index, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, (str, list)):
            raise InvalidRequest("body", index, "a message's content must be text or blocks")
        final_answer = index == len(messages) - 1 and message.get("role") == "assistant"
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        texts = [block.get("text") for block in blocks
                 if isinstance(block, dict) and block.get("type") == "text"]
        if final_answer and content == "":
            continue  # the optional final assistant message may be empty (a prefill)
        if not blocks or "" in texts or (len(texts) == len(blocks) and not any(
                isinstance(text, str) and text.strip() for text in texts)):
            raise InvalidRequest("non-empty", index)
    previous_uses: set[str] = set()
    previous_at = None
    for index, role, blocks in _combined(messages):
        if index == 0 and role != "user":
            raise InvalidRequest("first-user", index)
        kinds = [block.get("type") if isinstance(block, dict) else None for block in blocks]
        results = _ids([block.get("tool_use_id") for block, kind in zip(blocks, kinds)
                        if kind == "tool_result"])
        uses = _ids([block.get("id") for block, kind in zip(blocks, kinds) if kind == "tool_use"])
        if results is None:
            raise InvalidRequest("result-follows-use", index, "a tool_use_id is not a string")
        if uses is None:
            raise InvalidRequest("use-answered", index, "a tool_use id is not a string")
        if results and role != "user":
            raise InvalidRequest("result-follows-use", index, "tool_result blocks belong to "
                                 "the user")
        if uses and role != "assistant":
            raise InvalidRequest("role", index, "tool_use blocks belong to the assistant")
        if any(call_id not in previous_uses for call_id in results) or len(set(results)) < len(
                results):
            raise InvalidRequest("result-follows-use", index)
        if previous_uses - set(results):
            raise InvalidRequest("use-answered", previous_at,
                                 f"{len(previous_uses - set(results))} tool_use(s) unanswered")
        if kinds[:len(results)] != ["tool_result"] * len(results):
            raise InvalidRequest("results-first", index)
        if len(set(uses)) < len(uses):
            raise InvalidRequest("use-answered", index, "tool_use ids must be distinct")
        previous_uses, previous_at = set(uses), index
    if previous_uses:
        raise InvalidRequest("use-answered", previous_at,
                             f"{len(previous_uses)} tool_use(s) unanswered")


def _check_tools(body: dict, dialect: str) -> None:
    tools = body.get("tools", [])
    if not isinstance(tools, list):
        raise InvalidRequest("tools")
    for tool in tools:
        if not isinstance(tool, dict):
            raise InvalidRequest("tools")
        if dialect == "openai-chat":
            function = tool.get("function")
            ok = (tool.get("type") == "function" and isinstance(function, dict)
                  and isinstance(function.get("name"), str))
        else:
            ok = isinstance(tool, dict) and isinstance(tool.get("name"), str) and isinstance(
                tool.get("input_schema"), dict)
        if not ok:
            raise InvalidRequest("tools")
