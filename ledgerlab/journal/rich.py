"""A rich turn's keys in a journal record: its question's ``parts`` and its ``steps``.

Each part and each step is an object with exactly its type's keys, in order, all strings
(a result's ``content`` may instead be an array of parts; the optional keys, a document's
``filename`` and a call's or a text's ``item_id``, come last where they are given)::

    parts: {"type":"text","text"} | {"type":"image","media_type","data"}
           | {"type":"document","media_type","data"[,"filename"]}
    steps: {"type":"call","id","name","arguments"[,"item_id"]}
           | {"type":"result","call_id","content"} | {"type":"error","call_id","content"}
           | {"type":"text","text"[,"item_id"]} | {"type":"reasoning","dialect","item"}
           | {"type":"item","dialect","item"}

``data`` is the standard base64 of the bytes; ``error`` is a result whose tool failed
(``ToolResult.is_error``); ``content`` is a string or an array of text and image parts;
``item_id`` is the Responses API's own id of a call or a text (``ToolCall.item_id``,
``AssistantText.item_id``); ``item`` is the Reasoning's, or the ProviderItem's (``item``),
JSON text exactly as ledgerlab keeps it, so it comes back with the same keys, order and
values. A step or part of a new type is refused by name when read: the reader knows what
every key is.
"""

from __future__ import annotations

import base64

from ..checks import InvalidText, InvalidTurn
from ..documents import Document
from ..images import Image
from ..steps import AssistantText, ProviderItem, Reasoning, ToolCall, ToolResult
from ..turns import question_text

# The keys of each kind of part and step object, exactly, in order.
PART_KEYS = {"text": ["type", "text"], "image": ["type", "media_type", "data"],
             "document": ["type", "media_type", "data"]}
STEP_KEYS = {"call": ["type", "id", "name", "arguments"],
             "result": ["type", "call_id", "content"],
             "error": ["type", "call_id", "content"],
             "text": ["type", "text"],
             "reasoning": ["type", "dialect", "item"],
             "item": ["type", "dialect", "item"]}
# Keys that may follow a kind's keys (parts', steps'), and keys whose value may be an array.
OPTIONAL_PART_KEYS = {"document": ["filename"]}
OPTIONAL_STEP_KEYS = {"call": ["item_id"], "text": ["item_id"]}
ARRAY_KEYS = {"content"}
# A result's content parts: text and images.
RESULT_PART_KEYS = {kind: PART_KEYS[kind] for kind in ("text", "image")}


class Pairs(list):
    """A JSON object's key/value pairs, told apart from a JSON array."""


def json_type(value: object) -> str:
    """What a decoded JSON value is, as JSON names it (never its content)."""
    if isinstance(value, Pairs):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "number"


def check_strings(pairs: list, where: str, arrays: set[str] = frozenset()) -> None:
    """Refuse a value of ``pairs`` that is not a JSON string (or, for a key in ``arrays``,
    an array), naming its key."""
    for key, value in pairs:
        if not isinstance(value, str) and not (
                key in arrays and isinstance(value, list) and not isinstance(value, Pairs)):
            raise ValueError(f"payload {where}{key} must be a string, not a JSON "
                             f"{json_type(value)}")


def objects(value: object, key: str, shapes: dict[str, list[str]],
            optional: dict[str, list[str]]) -> list[tuple[str, list]]:
    """A payload's ``parts`` or ``steps``: a non-empty array of objects, each of one of
    ``shapes`` (by its ``type``), with exactly that shape's keys (then its optional ones),
    in order, all strings but an array where ``ARRAY_KEYS`` allows one. Return each
    object's type and its pairs."""
    if not isinstance(value, list) or isinstance(value, Pairs):
        raise ValueError(f"payload {key} must be an array, not a JSON {json_type(value)}")
    if not value:
        raise ValueError(f"payload {key} is an empty array (the encoder leaves the key out)")
    items = []
    for number, item in enumerate(value, 1):
        where = f"{key}[{number}]"
        if not isinstance(item, Pairs):
            raise ValueError(f"payload {where} must be an object, not a JSON {json_type(item)}")
        kind = item[0][1] if item and item[0][0] == "type" else None
        if not isinstance(kind, str) or kind not in shapes:
            raise ValueError(f"payload {where} is not a "
                             f"{' or '.join(f'{{type: {name}}}' for name in shapes)} object")
        names, keys = [name for name, _ in item], shapes[kind]
        if names[:len(keys)] != keys or names[len(keys):] not in (
                [], optional.get(kind, [None])):
            raise ValueError(f"payload {where} is not a {{{', '.join(keys)}}} object")
        check_strings(item, where + ".", ARRAY_KEYS if key == "steps" else frozenset())
        items.append((kind, item))
    return items


def media_data(text: str, where: str) -> bytes:
    """An image's or a document's bytes from its base64, which must be exactly what the
    encoder writes."""
    try:
        data = base64.b64decode(text, validate=True)
    except ValueError:  # binascii.Error, or a character that is not ASCII
        raise ValueError(f"payload {where}.data is not valid base64") from None
    if base64.b64encode(data).decode("ascii") != text:
        raise ValueError(f"payload {where}.data is not canonical base64")
    return data


def decode_parts(value: object, key: str = "parts", shapes=PART_KEYS) -> tuple:
    """Parts (text, images, documents) from a payload's array of part objects."""
    parts: list = []
    for number, (kind, pairs) in enumerate(objects(value, key, shapes, OPTIONAL_PART_KEYS), 1):
        fields = dict(pairs)
        if kind == "text":
            parts.append(fields["text"])
            continue
        data = media_data(fields["data"], f"{key}[{number}]")
        try:
            parts.append(Image(fields["media_type"], data) if kind == "image" else
                         Document(fields["media_type"], data, fields.get("filename")))
        except (InvalidText, InvalidTurn) as error:
            raise ValueError(f"payload {key}[{number}] is not a valid {kind}: {error}") from None
    return tuple(parts)


def decode_question(question: str, value: object) -> tuple:
    """The question's parts from the payload's ``parts``; its ``question`` must be their text."""
    parts = decode_parts(value)
    if question_text(parts) != question:
        raise ValueError("payload question is not the text of its parts")
    return parts


def decode_steps(value: object) -> tuple:
    steps = []
    for number, (kind, pairs) in enumerate(objects(value, "steps", STEP_KEYS,
                                                   OPTIONAL_STEP_KEYS), 1):
        fields = dict(pairs)
        try:
            if kind == "call":
                steps.append(ToolCall(fields["id"], fields["name"], fields["arguments"],
                                      fields.get("item_id")))
            elif kind in ("result", "error"):
                content = fields["content"]
                if not isinstance(content, str):
                    content = decode_parts(content, f"steps[{number}].content",
                                           RESULT_PART_KEYS)
                steps.append(ToolResult(fields["call_id"], content, kind == "error"))
            elif kind == "text":
                steps.append(AssistantText(fields["text"], fields.get("item_id")))
            else:
                opaque = Reasoning if kind == "reasoning" else ProviderItem
                steps.append(opaque(fields["item"], fields["dialect"]))
                if steps[-1].item != fields["item"]:  # what ledgerlab writes, exactly
                    raise ValueError(f"payload steps[{number}].item is not compact JSON")
        except (InvalidText, InvalidTurn) as error:
            raise ValueError(f"payload steps[{number}] is invalid: {error}") from None
    return tuple(steps)


def part_payload(part) -> dict:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if isinstance(part, Image):
        return {"type": "image", "media_type": part.media_type, "data": part.base64}
    named = {} if part.filename is None else {"filename": part.filename}
    return {"type": "document", "media_type": part.media_type, "data": part.base64, **named}


def step_payload(step) -> dict:
    if isinstance(step, ToolCall):
        own = {} if step.item_id is None else {"item_id": step.item_id}
        return {"type": "call", "id": step.id, "name": step.name, "arguments": step.arguments,
                **own}
    if isinstance(step, ToolResult):
        content = step.content if isinstance(step.content, str) else [
            part_payload(part) for part in step.content]
        return {"type": "error" if step.is_error else "result", "call_id": step.call_id,
                "content": content}
    if isinstance(step, AssistantText):
        own = {} if step.item_id is None else {"item_id": step.item_id}
        return {"type": "text", "text": step.text, **own}
    kind = "reasoning" if isinstance(step, Reasoning) else "item"
    return {"type": kind, "dialect": step.dialect, "item": step.item}
