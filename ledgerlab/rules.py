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
from .limits import MANY_IMAGES, LIMITS, limit
from .rule_words import (ANTHROPIC_BLOCKS, AN, OA, OPENAI_PARTS, OR, RULES, WORDING,
                         InvalidRequest, check_call_id, check_call_name, known)
from .rules_responses import check_responses
from .shapes import check_dialect
from .steps import refuse_constant

__all__ = ["RULES", "WORDING", "InvalidRequest", "check_request"]
# Where each dialect's body holds its conversation.
CONVERSATION_KEY = {OA: "messages", AN: "messages", OR: "input"}


def check_request(payload: bytes | str, dialect: str = "openai-chat") -> None:
    """Raise InvalidRequest if the body ``payload`` breaks a rule of ``dialect``'s provider."""
    dialect = check_dialect(dialect)
    try:  # JSON between systems is UTF-8 (RFC 8259), and NaN or Infinity are not JSON
        raw = payload if isinstance(payload, (bytes, bytearray)) else None
        text = payload.decode("utf-8") if raw is not None else payload
        body = json.loads(text, parse_constant=refuse_constant)
    except (ValueError, TypeError, RecursionError):  # JSONDecodeError, UnicodeDecodeError too
        raise InvalidRequest("body", detail="it is not JSON") from None
    key = CONVERSATION_KEY[dialect]
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not (
            isinstance(body.get(key), list) and body[key]):
        raise InvalidRequest("body", detail=f"its conversation is the {key!r} array")
    messages = body[key]
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
    _check_documents(messages, dialect)


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
                not isinstance(part, dict) or not known(part.get("type"), OPENAI_PARTS[role])
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
                check_call_id(call.get("id"), index, OA)
                if call["type"] == "function":
                    function = call.get("function")
                    if not isinstance(function, dict):
                        raise InvalidRequest("arguments", index, dialect=OA)
                    check_call_name(function.get("name"), index, OA)
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
        if any(not isinstance(block, dict) or not known(block.get("type"), ANTHROPIC_BLOCKS)
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
                check_call_id(block.get("id"), index, AN)
                check_call_name(block.get("name"), index, AN)
                if not isinstance(block.get("input"), dict):
                    raise InvalidRequest("arguments", index, dialect=AN)
            elif block["type"] == "tool_result":
                if not isinstance(block.get("tool_use_id"), str):
                    raise InvalidRequest("tool-call-id", index, dialect=AN)
                _check_result_blocks(block, index)
            elif block["type"] in ("thinking", "redacted_thinking") and any(
                    not isinstance(block.get(key), str) for key in
                    (("thinking", "signature") if block["type"] == "thinking" else ("data",))):
                raise InvalidRequest("reasoning-shape", index, dialect=AN)
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
    _check_thinking(body, _combined(messages))


# Anthropic's tool_result content blocks (its Messages API reference).
RESULT_BLOCKS = {"text", "image", "document", "search_result"}


def _check_result_blocks(block: dict, index: int) -> None:
    """A tool_result's content: text, or blocks of the types it takes, none blank; and its
    is_error a boolean where given."""
    if "is_error" in block and not isinstance(block["is_error"], bool):
        raise InvalidRequest("is-error", index, dialect=AN)
    content = block.get("content", "")
    if isinstance(content, str):
        return
    if not isinstance(content, list) or any(
            not isinstance(part, dict) or not known(part.get("type"), RESULT_BLOCKS)
            for part in content):
        raise InvalidRequest("result-content", index, dialect=AN)
    if any(part["type"] == "text" and _blank(part.get("text")) for part in content):
        raise InvalidRequest("non-empty", index, "a text block in a tool_result")


THINKING_ON = ("enabled", "adaptive")


def _check_thinking(body: dict, turns: list[tuple[int, str, list]]) -> None:
    """With thinking on, the assistant message of the tool loop in progress (the last one,
    whose tool_use the final user message answers) must start with a thinking block."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") not in THINKING_ON:
        return
    if len(turns) < 2 or turns[-1][1] != "user" or turns[-2][1] != "assistant":
        return
    last, blocks = turns[-1][2], turns[-2][2]
    if not any(block.get("type") == "tool_result" for block in last) or not any(
            block.get("type") == "tool_use" for block in blocks):
        return  # no tool loop in progress: the rule is about its assistant message
    if blocks[0].get("type") not in ("thinking", "redacted_thinking"):
        raise InvalidRequest("thinking-first", turns[-2][0], f"found {blocks[0].get('type')}",
                             dialect=AN)


CHECKS = {OA: _check_openai, AN: _check_anthropic, OR: check_responses}


def _function_tool(tool: dict, dialect: str) -> tuple[object, object] | None:
    """A function tool's (name, schema) in ``dialect``'s shape; None for a provider's own
    tool type (an OpenAI custom tool, an Anthropic server tool), which passes untouched."""
    kind = tool.get("type")
    if dialect == OR:  # flat function tools; the API's own types (web_search ...) pass
        if kind != "function":
            if not isinstance(kind, str):
                raise InvalidRequest("tools")
            return None
        if not isinstance(tool.get("name"), str):
            raise InvalidRequest("tools")
        return tool["name"], tool.get("parameters", {"type": "object"})
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
        check_call_name(name, number, dialect, item="tool")
        if not isinstance(function[1], dict) or function[1].get("type") != "object":
            raise InvalidRequest("schema-object", number, dialect=dialect, item="tool")


DATA_URL = re.compile(r"data:([^;,]*);base64,(.*)", re.DOTALL)


def _parts(messages: list[dict], dialect: str):
    """(message index, part) of each content part: a message's, and inside a tool result
    (Anthropic's tool_result blocks, the Responses API's function_call_output)."""
    for index, message in enumerate(messages):
        content = message.get("output" if message.get("type") == "function_call_output"
                              else "content")
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, dict):
                continue
            yield index, part
            inner = part.get("content") if part.get("type") == "tool_result" else None
            for nested in inner if dialect == AN and isinstance(inner, list) else ():
                if isinstance(nested, dict):
                    yield index, nested


def _data_url(url: object) -> tuple[str | None, str | None]:
    """A data URL's (media type, base64 data); (None, None) for another URL or none."""
    found = DATA_URL.fullmatch(url) if isinstance(url, str) else None
    return (found[1], found[2]) if found else (None, None)


def _images(messages: list[dict], dialect: str):
    """(message index, media type, base64 data or None) of each image in the messages."""
    for index, part in _parts(messages, dialect):
        kind = part.get("type")
        if dialect == OA and kind == "image_url":
            url = part.get("image_url")
            yield (index, *_data_url(url.get("url") if isinstance(url, dict) else None))
        elif dialect == OR and kind == "input_image":
            yield (index, *_data_url(part.get("image_url")))
        elif dialect == AN and kind == "image":
            source = part.get("source")
            if isinstance(source, dict) and source.get("type") == "base64":
                yield index, source.get("media_type"), source.get("data")
            else:
                yield index, None, None


PDF = "application/pdf"


def _check_documents(messages: list[dict], dialect: str) -> None:
    """Each document given inline: base64 of its media type (a PDF where the dialect takes
    PDF only inline: OpenAI Chat's file part, Anthropic's base64 document source)."""
    for index, part in _parts(messages, dialect):
        kind, data = part.get("type"), None
        if dialect == OA and kind == "file":
            file = part.get("file")
            if not isinstance(file, dict):
                raise InvalidRequest("document", index)
            if "file_data" in file:
                media_type, data = _data_url(file["file_data"])
                if media_type != PDF:
                    raise InvalidRequest("document", index, "file_data: a PDF data URL")
        elif dialect == OR and kind == "input_file" and "file_data" in part:
            media_type, data = _data_url(part["file_data"])
            if media_type is None:
                raise InvalidRequest("document", index, "file_data: a data URL")
        elif dialect == AN and kind == "document":
            source = part.get("source")
            if not isinstance(source, dict):
                raise InvalidRequest("document", index)
            if source.get("type") == "base64":
                if source.get("media_type") != PDF:
                    raise InvalidRequest("document", index, "a base64 source is a PDF")
                data = source.get("data")
                if not isinstance(data, str):
                    raise InvalidRequest("document", index)
        if data is not None:
            try:
                base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                raise InvalidRequest("document", index, "its data is not base64") from None


def _check_images(body: dict, dialect: str) -> None:
    """Media types, and the limits on images' count, bytes and pixels."""
    known, count, total, sides = limit(dialect, "media_types"), 0, 0, []
    for index, media_type, data in _images(body[CONVERSATION_KEY[dialect]], dialect):
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
