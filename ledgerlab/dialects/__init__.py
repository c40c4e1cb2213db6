"""The provider dialects: one module each, holding its whole contract, and their registry.

A dialect is a ``Shape`` (``common``): its body's pieces, the rules ``check_request``
enforces for it with the provider's own wording, its documented limits and its token rules,
each with its source. Each is one module:

- ``openai_chat``: OpenAI Chat Completions, ``"openai-chat"`` (the default);
- ``anthropic``: Anthropic Messages, ``"anthropic-messages"``;
- ``openai_responses``: OpenAI's Responses API, ``"openai-responses"``;

and ``common`` holds what they share (``Shape``, ``Limit``, ``InvalidRequest`` and the
shared ``RULES``, ``TokenCount``, a request's messages built from the pieces). A provider
changing one rule, limit or piece is a change in its module; a new dialect is a new module
registered below.

Here: the registry (``SHAPES``, ``DIALECTS``, ``check_dialect``, and ``LIMITS``,
``RULES`` and ``WORDING`` as the registered dialects fill them), and ``check_request``,
which parses a body and raises ``InvalidRequest`` naming the first rule it breaks:
``.rule`` (a key of RULES), ``.index`` (the message, or the tool, at fault) and
``.wording`` (the provider's own words, its API's error text where one is known). It never
shows the text of the request: only roles, positions, counts and field names. It runs the
dialect's own rules (``Shape.check``), then the checks every dialect shares: tool entries (a
function's schema of ``"type": "object"``, names; a provider's own tool types pass
untouched), image media types, documents, the limits (body bytes, messages, images, their
pixels and base64, tools), and the top-level fields (``check_top_level``: each one the
dialect documents, of a JSON type it takes, and the dialect's rules across them). Passing it
is not the provider accepting: it cannot check what depends on the model (its context, its
own image or tool limits), the account, the headers (Anthropic's beta fields), or the values
inside the fields it knows.

``check_extra`` holds ``extra=`` (the application's own top-level fields) to the same table
when the options are made, so that no body of it is built.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping

from ..checks import unknown_name
from ..documents import DOCUMENT_SIGNATURES
from ..images import image_size
from ..steps import json_object, refuse_constant
from .anthropic import (ANTHROPIC, ANTHROPIC_TOOL_PROMPT, NON_EMPTY, AnthropicMessages,
                        anthropic_image_tokens, anthropic_tool_prompt, refuse_empty)
from .common import (LIMITS, RULES, SHAPES, WORDING, CacheRate, InvalidRequest, Limit,
                     PromptCache, ProviderLimitError, RequestTally, ReservedFieldError, Shape,
                     TokenCount, answer_messages, check_budget, check_call_name,
                     check_top_level, compaction_pieces, evidence_line, lines_content, limit,
                     max_tokens_field, message_count, question_content, refuse_for_dialect,
                     refuse_reused_ids, refuse_rounds_without_tools, register, round_messages,
                     sent_in, summary_line, system_text, tool_entry, turn_messages, wire_call_id)
from .openai_chat import OPENAI_DEFAULT_IMAGE_MODEL, OpenAIChat, openai_image_tokens
from .openai_responses import OpenAIResponses

__all__ = [
    "ANTHROPIC", "ANTHROPIC_TOOL_PROMPT", "CacheRate", "DIALECTS", "LIMITS", "NON_EMPTY",
    "OPENAI_DEFAULT_IMAGE_MODEL", "RULES", "SHAPES", "WORDING", "InvalidRequest", "Limit",
    "PromptCache", "ProviderLimitError", "RequestTally", "ReservedFieldError", "Shape",
    "TokenCount", "anthropic_image_tokens", "anthropic_tool_prompt", "answer_messages",
    "check_budget", "check_dialect", "check_extra", "check_request", "compaction_pieces",
    "evidence_line", "image_rule", "lines_content", "max_tokens_field", "message_count",
    "openai_image_tokens", "question_content", "refuse_empty", "refuse_for_dialect",
    "refuse_reused_ids", "refuse_rounds_without_tools", "request_basis", "round_messages",
    "sent_in", "summary_line", "system_text", "tool_entry", "turn_messages", "wire_call_id",
]

register(OpenAIChat())
register(AnthropicMessages())
register(OpenAIResponses())
DIALECTS = tuple(SHAPES)


def check_dialect(dialect: object) -> str:
    """Return ``dialect`` if it is one of DIALECTS, else ValueError naming them."""
    if not isinstance(dialect, str) or dialect not in SHAPES:
        raise unknown_name("dialect", dialect, ", ".join(DIALECTS))
    return dialect


# --- Token rules by dialect ---------------------------------------------------------------
# A dialect not registered (OpenAI's other API shapes) counts as OpenAI's Chat Completions.

def image_rule(dialect: str):
    """``(width, height) -> tokens`` for ``dialect``: its provider's rule (OpenAI's, with
    GPT-4o's figures, for a dialect not registered)."""
    return (SHAPES[dialect] if dialect in SHAPES else SHAPES["openai-chat"]).image_tokens


def request_basis(dialect: str, tokenizer: str) -> str:
    """What a request's token count in ``dialect`` rests on (OpenAI's rule for a dialect not
    registered)."""
    shape = SHAPES[dialect] if dialect in SHAPES else SHAPES["openai-chat"]
    return shape.token_basis.format(tokenizer=tokenizer)


# --- check_request --------------------------------------------------------------------------

def check_request(payload: bytes | str, dialect: str = "openai-chat") -> None:
    """Raise InvalidRequest if the body ``payload`` breaks a rule of ``dialect``'s provider."""
    dialect = check_dialect(dialect)
    shape = SHAPES[dialect]
    try:  # JSON between systems is UTF-8 (RFC 8259), and NaN or Infinity are not JSON
        raw = payload if isinstance(payload, (bytes, bytearray)) else None
        text = payload.decode("utf-8") if raw is not None else payload
        body = json.loads(text, parse_constant=refuse_constant)
    except (ValueError, TypeError, RecursionError):  # JSONDecodeError, UnicodeDecodeError too
        raise InvalidRequest("body", detail="it is not JSON") from None
    key = shape.conversation_key
    conversation = body.get(key) if isinstance(body, dict) else None
    if "string" in shape.fields.get(key, ()) and isinstance(conversation, str):
        conversation = [{"role": "user", "content": conversation}]  # the API's shorthand
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not (
            isinstance(conversation, list) and conversation):
        raise InvalidRequest("body", detail=f"its conversation is the {key!r} array")
    messages = conversation
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
    shape.check(body, messages)
    check_tools(body, shape)
    check_images(messages, shape)
    check_documents(messages, shape)
    check_top_level(shape, body)


def check_extra(dialect: str, extra: object, tools: tuple = (),
                current_steps: tuple = (), cache_breakpoints: bool = False) -> dict:
    """``extra`` (the application's top-level fields: a mapping, or None for none) as a new
    dict of JSON values, if ``dialect``'s provider takes each beside the writer's own fields
    and these tools and rounds in progress (and the cache marks the writer adds, with
    ``cache_breakpoints``): TypeError for a value that is not a mapping of
    names; ReservedFieldError for a field the writer writes; InvalidTurn for a value that is
    not JSON; InvalidRequest, in the provider's words, for a field it does not document, of a
    type it does not take, or breaking a rule across fields."""
    shape = SHAPES[check_dialect(dialect)]
    if extra is None:
        extra = {}
    if not isinstance(extra, Mapping):
        raise TypeError(f"extra must be a mapping of top-level fields, not "
                        f"{type(extra).__name__}")
    for name in extra:
        if not isinstance(name, str):
            raise TypeError(f"extra's field names must be strings, not {type(name).__name__}")
        if name in shape.written:
            raise ReservedFieldError(dialect, name, shape.written[name])
    try:
        fields = json_object(dict(extra), "extra") if extra else {}
    except TypeError as error:  # a value json cannot write: its type is named, not its value
        raise TypeError(f"extra holds a value JSON cannot write ({error})") from None
    check_top_level(shape, fields)
    shape.check_options(fields, tools, current_steps,
                        shape.written_breakpoints if cache_breakpoints else 0)
    return fields


def check_tools(body: dict, shape: Shape) -> None:
    """The tools: a list of objects within the count, names unique, each function tool's
    name of the dialect's pattern and its parameters' schema of ``"type": "object"``."""
    dialect = shape.name
    tools = body.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(tool, dict) for tool in tools):
        raise InvalidRequest("tools")
    most = limit(dialect, "tools")
    if most is not None and len(tools) > most:
        raise InvalidRequest("too-many-tools", detail=f"{len(tools)}, at most {most}")
    names: set[str] = set()
    for number, tool in enumerate(tools):
        function = shape.function_tool(tool)
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


def parts(messages: list[dict], shape: Shape):
    """(message index, part) of each content part: a message's, and inside a tool result
    (where the dialect's results hold parts of their own; the Responses API's
    function_call_output)."""
    for index, message in enumerate(messages):
        content = message.get("output" if message.get("type") == "function_call_output"
                              else "content")
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, dict):
                continue
            yield index, part
            inner = part.get("content") if part.get("type") == "tool_result" else None
            for nested in inner if shape.nests_result_parts and isinstance(inner, list) else ():
                if isinstance(nested, dict):
                    yield index, nested


def check_documents(messages: list[dict], shape: Shape) -> None:
    """Each document given inline: of the dialect's shape, and its data base64."""
    for index, part in parts(messages, shape):
        found = shape.document_data(part, index)
        if found is None:
            continue
        media_type, data = found
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise InvalidRequest("document", index, "its data is not base64") from None
        signature = DOCUMENT_SIGNATURES.get(media_type)
        if signature is not None and not raw.startswith(signature):
            raise InvalidRequest("pdf-signature", index, f"{len(raw)} bytes that do not "
                                 f"begin like {media_type}", dialect=shape.name)


def check_images(messages: list[dict], shape: Shape) -> None:
    """Media types, and the limits on images' count, bytes and pixels."""
    dialect = shape.name
    known, count, total, sides = limit(dialect, "media_types"), 0, 0, []
    most_base64 = limit(dialect, "image_base64")
    for index, part in parts(messages, shape):
        found = shape.image_data(part)
        if found is None:
            continue
        media_type, data = found
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
        if most_base64 is not None and len(data) > most_base64:  # the string, not the file
            raise InvalidRequest("image-base64", index, f"{len(data)} characters of base64, "
                                 f"at most {most_base64}", dialect=dialect, found=len(data))
        total += len(raw)
        sides.append((index, max(width, height)))
    most, most_bytes = limit(dialect, "images"), limit(dialect, "image_bytes")
    if most is not None and count > most:
        raise InvalidRequest("too-many-images", detail=f"{count}, at most {most}")
    if most_bytes is not None and total > most_bytes:
        raise InvalidRequest("image-bytes", detail=f"{total} bytes, at most {most_bytes}")
    side = limit(dialect, "image_side")
    if side is not None and shape.many_images is not None and count > shape.many_images:
        side = limit(dialect, "image_side_many")
    for index, longest in sides:
        if side is not None and longest > side:
            raise InvalidRequest("image-size", index, f"{longest} px, at most {side} with "
                                 f"{count} images")
