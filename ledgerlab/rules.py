"""The providers' rules a request body must keep, checked the way the provider would.

``check_request`` parses a body and raises ``InvalidRequest`` naming the first rule
it breaks: ``.rule`` (a key of RULES), ``.index`` (the message, or the tool, at fault)
and ``.wording`` (the provider's own words, its API's error text where one is known).
It never shows the text of the request: only roles, positions and counts.

Each dialect's rules are a function of their own (``CHECKS``) with its wording
(``WORDING``); its documented limits and patterns are data (``ledgerlab.limits``).
It checks shape, order and pairing (the rules a trimmed history breaks), call ids
(present, unique, each dialect's pattern and length), tool entries (a function's
schema of ``"type": "object"``, names, arguments as the dialect sends them; a
provider's own tool types pass untouched), known block and part types, image media
types, and the limits of ``ledgerlab.limits`` (body bytes, images and their pixels,
tools, calls, messages). Passing it is not the provider accepting: it cannot check
what depends on the model (its context, its own image or tool limits), the account,
or the values of fields it does not know.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from .images import image_size
from .limits import MANY_IMAGES, LIMITS, limit, name_pattern
from .shapes import NON_EMPTY, check_dialect
from .turns import refuse_constant

# The rules, keyed: what each asks, in the providers' words where they are known.
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
    "call-id": "each tool call needs its id, a string",
    "tool-call-id": "each tool result needs the id of the call it answers, a string",
    "call-id-pattern": "a tool call's id must match the dialect's pattern",
    "call-id-length": "a tool call's id must be at most the dialect's length",
    "call-id-unique": "a tool call's id must appear once",
    "schema-object": "a tool's parameters must be a JSON Schema of type object",
    "tool-name": "a tool's name must match the dialect's pattern",
    "tool-names-unique": "tool names must be unique",
    "arguments": "a call's arguments must be what the dialect sends",
    "block-type": "each content block or part must be of a type the API knows",
    "media-type": "an image's media type must be one the provider lists",
    "too-large": "the request body must be within the provider's size limit",
    "too-many-messages": "the messages must be within the provider's count",
    "too-many-images": "the images must be within the provider's count",
    "image-bytes": "the images' bytes must be within the provider's limit",
    "image-size": "each image's sides must be within the provider's pixel limit",
    "too-many-tools": "the tools must be within the provider's count",
    "too-many-calls": "the tool calls of one message must be within the provider's count",
}

# Each dialect's own words for a rule, where they differ from RULES' (API error texts
# quoted in issue threads, or the provider's documentation).
WORDING = {
    "openai-chat": {
        "call-id": "Missing required parameter: 'messages[N].tool_calls[M].id'",
        "tool-call-id": "Missing required parameter: 'messages[N].tool_call_id'",
        "call-id-length": ("string too long. Expected a string with maximum length "
                           f"{limit('openai-chat', 'call_id_length')}"),
        "schema-object": "schema must be a JSON Schema of 'type: \"object\"'",
        "tool-name": f"function name must match ^{limit('openai-chat', 'tool_name')}$",
        "arguments": "tool_calls[M].function.arguments must be a string (the JSON text)",
        "block-type": "content parts are text, image_url, input_audio, file (refusal from "
                      "the assistant)",
        "media-type": "image_url data URLs of image/png, image/jpeg, image/gif, image/webp",
    },
    "anthropic-messages": {
        "call-id": "messages.N.content.M.tool_use.id: Field required",
        "tool-call-id": "messages.N.content.M.tool_result.tool_use_id: Field required",
        "call-id-pattern": ("messages.N.content.M.tool_use.id: String should match pattern "
                            f"'^{limit('anthropic-messages', 'call_id_pattern')}$'"),
        "call-id-unique": "tool_use ids must be unique",
        "schema-object": "tools.N.custom.input_schema.type: Field required",
        "tool-name": f"tools.N.name: String should match pattern "
                     f"'^{limit('anthropic-messages', 'tool_name')}$'",
        "arguments": "messages.N.content.M.tool_use.input: Input should be a valid dictionary",
        "too-large": "413 request_too_large",
    },
}


class InvalidRequest(ValueError):
    """A request body breaks a provider's rule: ``rule`` is its key in RULES, ``index``
    the message at fault (or the tool, for a tool's rule; None when the fault is not in
    one), ``wording`` the provider's own words for it."""

    def __init__(self, rule: str, index: int | None = None, detail: str = "",
                 dialect: str | None = None, item: str = "message") -> None:
        self.rule, self.index = rule, index
        self.wording = WORDING.get(dialect, {}).get(rule, RULES[rule])
        where = "" if index is None else f" ({item} {index})"
        more = f"; {detail}" if detail else ""
        words = "" if self.wording == RULES[rule] else f" (the API: {self.wording})"
        super().__init__(f"{rule}{where}: {RULES[rule]}{words}{more}")


def check_request(payload: bytes | str, dialect: str = "openai-chat") -> None:
    """Raise InvalidRequest if the body ``payload`` breaks a rule of ``dialect``'s provider."""
    dialect = check_dialect(dialect)
    try:  # JSON between systems is UTF-8 (RFC 8259), and NaN or Infinity are not JSON
        raw = payload if isinstance(payload, (bytes, bytearray)) else None
        text = payload.decode("utf-8") if raw is not None else payload
        body = json.loads(text, parse_constant=refuse_constant)
    except (ValueError, TypeError, RecursionError):  # JSONDecodeError, UnicodeDecodeError too
        raise InvalidRequest("body", detail="it is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not (
            isinstance(body.get("messages"), list) and body["messages"]):
        raise InvalidRequest("body")
    messages = body["messages"]
    if not all(isinstance(message, dict) for message in messages):
        raise InvalidRequest("body", detail="a message is not an object")
    size = len(raw) if raw is not None else len(text.encode("utf-8", "surrogatepass"))
    most = limit(dialect, "body_bytes")
    if most is not None and size > most:
        raise InvalidRequest("too-large", detail=f"{size} bytes, at most {most}",
                             dialect=dialect)
    most = limit(dialect, "messages")
    if most is not None and len(messages) > most:
        raise InvalidRequest("too-many-messages", detail=f"{len(messages)}, at most {most}",
                             dialect=dialect)
    CHECKS[dialect](body, messages)
    _check_tools(body, dialect)
    _check_images(body, dialect)


def _ids(values: object) -> list[str] | None:
    """``values`` if every one is a str id, else None."""
    return values if all(isinstance(value, str) for value in values) else None


OA, AN = "openai-chat", "anthropic-messages"
# The content part types of each OpenAI role, and Anthropic's content block types.
OPENAI_PARTS = {"system": {"text"}, "developer": {"text"}, "tool": {"text"},
                "user": {"text", "image_url", "input_audio", "file"},
                "assistant": {"text", "refusal"}}
ANTHROPIC_BLOCKS = {
    "text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
    "redacted_thinking", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
    "code_execution_tool_result", "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result",
    "container_upload"}


def _known(kind: object, kinds: set[str]) -> bool:
    return isinstance(kind, str) and kind in kinds


def _check_call_id(call_id: object, index: int, dialect: str) -> None:
    """The id of a call: present, a string, of the dialect's pattern and length."""
    if not isinstance(call_id, str) or not call_id:
        raise InvalidRequest("call-id", index, dialect=dialect)
    pattern, length = name_pattern(dialect, "call_id_pattern"), limit(dialect, "call_id_length")
    if pattern is not None and not pattern.fullmatch(call_id):
        raise InvalidRequest("call-id-pattern", index, dialect=dialect)
    if length is not None and len(call_id) > length:
        raise InvalidRequest("call-id-length", index, f"{len(call_id)} characters",
                             dialect=dialect)


def _check_tool_name(name: object, index: int | None, dialect: str,
                     item: str = "message") -> None:
    if not isinstance(name, str) or not name_pattern(dialect, "tool_name").fullmatch(name):
        raise InvalidRequest("tool-name", index, dialect=dialect, item=item)


def _check_openai(body: dict, messages: list[dict]) -> None:
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
        if isinstance(content, list) and any(
                not isinstance(part, dict) or not _known(part.get("type"), OPENAI_PARTS[role])
                for part in content):
            raise InvalidRequest("block-type", index, dialect=OA)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                raise InvalidRequest("tool-call-id", index, dialect=OA)
            if call_id not in answerable or call_id not in waiting:
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
            most = limit(OA, "calls_per_message")
            if len(calls) > most:
                raise InvalidRequest("too-many-calls", index, f"{len(calls)}, at most {most}")
            for call in calls:
                if not isinstance(call, dict) or call.get("type") not in ("function", "custom"):
                    raise InvalidRequest("block-type", index, "a tool call's type",
                                         dialect=OA)
                _check_call_id(call.get("id"), index, OA)
                if call["type"] == "function":
                    function = call.get("function")
                    if not isinstance(function, dict):
                        raise InvalidRequest("arguments", index, dialect=OA)
                    _check_tool_name(function.get("name"), index, OA)
                    if not isinstance(function.get("arguments"), str):
                        raise InvalidRequest("arguments", index, dialect=OA)
            ids = [call["id"] for call in calls]
            if len(set(ids)) < len(ids):
                raise InvalidRequest("call-id-unique", index, "in one message", dialect=OA)
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


def _blank(text: object) -> bool:
    return not isinstance(text, str) or not text.strip()


def _check_anthropic(body: dict, messages: list[dict]) -> None:
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidRequest("max-tokens")
    system = body.get("system")
    if system is not None and (_blank(system) if isinstance(system, str) else (
            not isinstance(system, list) or not system or any(
                not isinstance(block, dict) or block.get("type") != "text"
                or _blank(block.get("text")) for block in system))):
        raise InvalidRequest("non-empty", detail="in the system")
    for index, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, (str, list)):
            raise InvalidRequest("body", index, "a message's content must be text or blocks")
        final_answer = index == len(messages) - 1 and message.get("role") == "assistant"
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if any(not isinstance(block, dict) or not _known(block.get("type"), ANTHROPIC_BLOCKS)
               for block in blocks):
            raise InvalidRequest("block-type", index, dialect=AN)
        texts = [block.get("text") for block in blocks if block.get("type") == "text"]
        if final_answer and content == "":
            continue  # the optional final assistant message may be empty (a prefill)
        if not blocks or "" in texts or (len(texts) == len(blocks) and not any(
                isinstance(text, str) and text.strip() for text in texts)):
            raise InvalidRequest("non-empty", index)
        for block in blocks:
            if block["type"] == "tool_use":
                _check_call_id(block.get("id"), index, AN)
                _check_tool_name(block.get("name"), index, AN)
                if not isinstance(block.get("input"), dict):
                    raise InvalidRequest("arguments", index, dialect=AN)
            elif block["type"] == "tool_result" and not isinstance(block.get("tool_use_id"),
                                                                   str):
                raise InvalidRequest("tool-call-id", index, dialect=AN)
    previous_uses: set[str] = set()
    previous_at = None
    every_use: set[str] = set()  # a tool_use id appears once in the whole request
    for index, role, blocks in _combined(messages):
        if index == 0 and role != "user":
            raise InvalidRequest("first-user", index)
        kinds = [block.get("type") for block in blocks]
        results = [block["tool_use_id"] for block, kind in zip(blocks, kinds)
                   if kind == "tool_result"]
        uses = [block["id"] for block, kind in zip(blocks, kinds) if kind == "tool_use"]
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
        if len(set(uses)) < len(uses) or every_use.intersection(uses):
            raise InvalidRequest("call-id-unique", index, dialect=AN)
        every_use.update(uses)
        previous_uses, previous_at = set(uses), index
    if previous_uses:
        raise InvalidRequest("use-answered", previous_at,
                             f"{len(previous_uses)} tool_use(s) unanswered")


CHECKS = {OA: _check_openai, AN: _check_anthropic}


def _function_tool(tool: dict, dialect: str) -> tuple[object, object] | None:
    """A function tool's (name, schema) in ``dialect``'s shape; None for a provider's own
    tool type (an OpenAI custom tool, an Anthropic server tool), which passes untouched."""
    kind = tool.get("type")
    if dialect == OA:
        if kind == "custom" and isinstance(tool.get("custom"), dict):
            return None
        function = tool.get("function")
        if kind != "function" or not isinstance(function, dict) or not isinstance(
                function.get("name"), str):
            raise InvalidRequest("tools")
        return function["name"], function.get("parameters", {"type": "object"})
    if kind not in (None, "custom"):  # a server tool: its own type, with a name
        if not isinstance(kind, str) or not isinstance(tool.get("name"), str):
            raise InvalidRequest("tools")
        return None
    if not isinstance(tool.get("name"), str) or not isinstance(tool.get("input_schema"), dict):
        raise InvalidRequest("tools")
    return tool["name"], tool["input_schema"]


def _check_tools(body: dict, dialect: str) -> None:
    tools = body.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        raise InvalidRequest("tools")
    most = limit(dialect, "tools")
    if most is not None and len(tools) > most:
        raise InvalidRequest("too-many-tools", detail=f"{len(tools)}, at most {most}")
    names: set[str] = set()
    for number, tool in enumerate(tools):
        function = _function_tool(tool, dialect)
        name = function[0] if function else tool.get("name")
        if isinstance(name, str):
            if name in names:
                raise InvalidRequest("tool-names-unique", number, item="tool")
            names.add(name)
        if function is None:
            continue
        _check_tool_name(name, number, dialect, item="tool")
        if not isinstance(function[1], dict) or function[1].get("type") != "object":
            raise InvalidRequest("schema-object", number, dialect=dialect, item="tool")


DATA_URL = re.compile(r"data:([^;,]*);base64,(.*)", re.DOTALL)


def _images(messages: list[dict], dialect: str):
    """(message index, media type, base64 data or None) of each image in the messages."""
    for index, message in enumerate(messages):
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            if dialect == OA and part.get("type") == "image_url":
                url = part.get("image_url")
                url = url.get("url") if isinstance(url, dict) else None
                found = DATA_URL.fullmatch(url) if isinstance(url, str) else None
                yield (index, found[1], found[2]) if found else (index, None, None)
            elif dialect == AN and part.get("type") == "image":
                source = part.get("source")
                if isinstance(source, dict) and source.get("type") == "base64":
                    yield index, source.get("media_type"), source.get("data")
                else:
                    yield index, None, None


def _check_images(body: dict, dialect: str) -> None:
    """Media types, and the limits on images' count, bytes and pixels."""
    known, count, total, sides = limit(dialect, "media_types"), 0, 0, []
    for index, media_type, data in _images(body["messages"], dialect):
        count += 1
        if data is None:  # a URL or a file id: its bytes are not in the body
            continue
        if media_type not in known:
            raise InvalidRequest("media-type", index, dialect=dialect)
        try:
            raw = base64.b64decode(data, validate=True) if isinstance(data, str) else b""
            width, height = image_size(media_type, raw)
        except (binascii.Error, ValueError):  # image_size's InvalidTurn is a ValueError
            width = 0
        if not width:
            raise InvalidRequest("media-type", index, "the data is not an image of its type",
                                 dialect=dialect)
        total += len(raw)
        sides.append((index, max(width, height)))
    most, most_bytes = limit(dialect, "images"), limit(dialect, "image_bytes")
    if most is not None and count > most:
        raise InvalidRequest("too-many-images", detail=f"{count}, at most {most}")
    if most_bytes is not None and total > most_bytes:
        raise InvalidRequest("image-bytes", detail=f"{total} bytes, at most {most_bytes}")
    side = limit(dialect, "image_side")
    if side is not None and count > MANY_IMAGES:
        side = limit(dialect, "image_side_many")
    for index, longest in sides:
        if side is not None and longest > side:
            raise InvalidRequest("image-size", index, f"{longest} px, at most {side} with "
                                 f"{count} images")


assert set(LIMITS) == set(CHECKS)  # a dialect's rules and its limits come together
