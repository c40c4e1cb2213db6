"""OpenAI's Responses API (``"openai-responses"``): its body's pieces, its rules, its limits and
its token rules, each with its source.

- **Pieces** (``OpenAIResponses``): ``{"model", "instructions", "input": [...], "tools"}``;
  the class says why the system is ``instructions`` and the memory sections ``developer``
  messages.
- **Rules** (``check_responses``), with the API's own error texts:

  - each item is of a type the API lists; a message has a role it knows and content of text
    or of the part types its role takes; ``instructions``, where given, is a string;
  - a ``function_call`` has its ``call_id``, a function name of the pattern, and
    ``arguments`` as JSON text;
  - every ``function_call_output`` answers a ``function_call`` before it ("No tool call
    found for function call output with call_id ..."), and every ``function_call`` is
    answered ("No tool output found for function call ..."); an output is text or input
    parts;
  - a ``reasoning`` item keeps its ``id`` and ``summary`` and is followed at once by the
    item it produced, a ``function_call`` or an assistant message ("Item ... of type
    'reasoning' was provided without its required following item");
  - in the tool loop in progress (the items after the last user message), when one round
    holds its reasoning item, every round whose ``function_call`` carries its own ``id`` (as
    the API returned it) must hold its own ("Item ... of type 'function_call' was provided
    without its required 'reasoning' item").

  What a body alone cannot show: the API links a function_call to the reasoning item that
  produced it by what it stored, not by anything in the body. So a call whose reasoning was
  dropped from every round of the loop, or a call without its ``id``, is not refused here,
  though the API may refuse it. ``select`` keeps a turn's ``Reasoning`` with its calls, so
  it never drops one.
- **Limits** (``LIMITS``): 500 images and 50 MB of them (the images guide, both APIs); the
  rest not documented.
- **Token rules**: OpenAI's images guide, as Chat Completions' (``openai_chat``).
"""

from __future__ import annotations

from .common import (MEDIA_TYPES, InvalidRequest, Limit, Shape, check_call_id, check_call_name,
                     data_url, known, sections)
from .openai_chat import OPENAI_BASIS, OPENAI_CACHE, openai_image_tokens

OPENAI_RESPONSES = "openai-responses"

LIMITS: dict[str, Limit] = {
    "body_bytes": Limit(None, "not documented by OpenAI"),
    "messages": Limit(None, "not documented (input items)"),
    "tools": Limit(None, "not documented for the Responses API (Chat Completions' 128 "
                         "comes from its API error)"),
    "calls_per_message": Limit(None, "not applicable: each call is an input item"),
    "images": Limit(500, "OpenAI images guide (both APIs): up to 500 images per request"),
    "image_bytes": Limit(50_000_000, "OpenAI images guide (both APIs): 50 MB of image "
                                     "bytes per request"),
    "image_side": Limit(None, "not a refusal: OpenAI scales large images down"),
    "image_side_many": Limit(None, "not documented"),
    "call_id_pattern": Limit(None, "not documented"),
    "call_ids_unique": Limit(None, "not documented"),
    "call_id_length": Limit(None, "not documented"),
    "tool_name": Limit(r"[a-zA-Z0-9_-]{1,64}", "assumed as Chat Completions' function "
                                               "name: the Responses reference states no "
                                               "pattern"),
    "media_types": Limit(MEDIA_TYPES, "OpenAI images guide: PNG, JPEG, WEBP, "
                                      "non-animated GIF"),
    "document_pages": Limit(None, "not documented in OpenAI's file inputs guide"),
}

# The rules only the Responses API has, in its API's error texts.
RULES = {
    "call-has-output": "No tool output found for function call <call_id>.",
    "output-has-call": "No tool call found for function call output with call_id <call_id>.",
    "reasoning-required": ("Item '<fc id>' of type 'function_call' was provided without its "
                           "required 'reasoning' item: '<rs id>'."),
    "reasoning-followed": ("Item '<rs id>' of type 'reasoning' was provided without its "
                           "required following item."),
}

# Its own words for shared rules.
WORDING = {
    "call-id": "Missing required parameter: 'input[N].call_id'",
    "tool-call-id": "Missing required parameter: 'input[N].call_id'",
    "arguments": "input[N].arguments must be a string (the JSON text)",
}

# The input item types the API reference lists (a message may leave its type out).
ITEMS = {
    "message", "function_call", "function_call_output", "reasoning", "item_reference",
    "file_search_call", "web_search_call", "computer_call", "computer_call_output",
    "image_generation_call", "code_interpreter_call", "local_shell_call",
    "local_shell_call_output", "mcp_list_tools", "mcp_approval_request",
    "mcp_approval_response", "mcp_call", "custom_tool_call", "custom_tool_call_output",
    "compaction"}
ROLES = ("user", "assistant", "system", "developer")
INPUT_PARTS = {"input_text", "input_image", "input_file"}
ASSISTANT_PARTS = {"output_text", "refusal"}


def _kind(item: dict) -> object:
    return item.get("type", "message" if "role" in item else None)


def check_responses(body: dict, items: list[dict]) -> None:
    """Raise InvalidRequest for the first rule ``items`` (the body's ``input``) breaks."""
    if "instructions" in body and not isinstance(body["instructions"], str):
        raise InvalidRequest("body", detail="instructions must be a string")
    kinds = [_kind(item) for item in items]
    calls: dict[str, int] = {}  # each call_id's function_call
    answered: set[str] = set()
    for index, (item, kind) in enumerate(zip(items, kinds)):
        if not known(kind, ITEMS):
            raise InvalidRequest("block-type", index, "an input item's type",
                                 dialect=OPENAI_RESPONSES)
        if kind == "message":
            _check_message(item, index)
        elif kind == "function_call":
            call_id = item.get("call_id")
            check_call_id(call_id, index, OPENAI_RESPONSES)
            check_call_name(item.get("name"), index, OPENAI_RESPONSES)
            if not isinstance(item.get("arguments"), str):
                raise InvalidRequest("arguments", index, dialect=OPENAI_RESPONSES)
            calls[call_id] = index
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if not isinstance(call_id, str) or not call_id:
                raise InvalidRequest("tool-call-id", index, dialect=OPENAI_RESPONSES)
            if call_id not in calls:
                raise InvalidRequest("output-has-call", index, dialect=OPENAI_RESPONSES)
            output = item.get("output")
            if not (isinstance(output, str) or isinstance(output, list) and all(
                    isinstance(part, dict) and known(part.get("type"), INPUT_PARTS)
                    for part in output)):
                raise InvalidRequest("result-content", index, dialect=OPENAI_RESPONSES)
            answered.add(call_id)
        elif kind == "reasoning":
            if not isinstance(item.get("id"), str) or not isinstance(item.get("summary"), list):
                raise InvalidRequest("reasoning-shape", index, dialect=OPENAI_RESPONSES)
            following = index + 1 < len(items) and (
                kinds[index + 1] == "function_call" or kinds[index + 1] == "message"
                and items[index + 1].get("role") == "assistant")
            if not following:
                raise InvalidRequest("reasoning-followed", index, dialect=OPENAI_RESPONSES)
    for call_id, index in calls.items():
        if call_id not in answered:
            raise InvalidRequest("call-has-output", index, dialect=OPENAI_RESPONSES)
    _check_loop_reasoning(items, kinds)


def _check_message(item: dict, index: int) -> None:
    role, content = item.get("role"), item.get("content")
    if role not in ROLES:
        raise InvalidRequest("role", index)
    if isinstance(content, list):
        parts = ASSISTANT_PARTS if role == "assistant" else INPUT_PARTS
        if any(not isinstance(part, dict) or not known(part.get("type"), parts)
               for part in content):
            raise InvalidRequest("block-type", index, dialect=OPENAI_RESPONSES)
    elif not isinstance(content, str):
        raise InvalidRequest("body", index, "a message's content must be text or parts")


def _check_loop_reasoning(items: list[dict], kinds: list) -> None:
    """In the tool loop in progress, a round whose calls carry their ids and that lost its
    reasoning item, beside a round that kept its own."""
    start = 1 + max((index for index, (item, kind) in enumerate(zip(items, kinds))
                     if kind == "message" and item.get("role") == "user"), default=-1)
    rounds = []  # (index of a round's first function_call, does its reasoning precede it)
    for index in range(start, len(items)):
        if kinds[index] != "function_call" or (index > start
                                               and kinds[index - 1] == "function_call"):
            continue
        before = index - 1
        if before >= start and kinds[before] == "message":  # the round's text, if any
            before -= 1
        rounds.append((index, before >= start and kinds[before] == "reasoning"))
    if not any(kept for _, kept in rounds):
        return
    for index, kept in rounds:
        if not kept and isinstance(items[index].get("id"), str):
            raise InvalidRequest("reasoning-required", index, "its round lost the reasoning "
                                 "item another round of the tool loop keeps",
                                 dialect=OPENAI_RESPONSES)


class OpenAIResponses(Shape):
    """OpenAI's Responses API: ``{"model", "instructions", "input": [...], "tools"}``.

    The system is ``instructions``, the field the API documents for the system (or
    developer) message, so it stays the application's own text; a blank one is left out.
    The facts, evidence and summaries are ``developer`` messages at the start of
    ``input``, one per section, as OpenAI Chat's further ``system`` messages are: memory is
    kept apart from the instructions, each section its own item, in the same order. Items:
    a user message (its text, or ``input_text``, ``input_image``, ``input_file`` parts), a
    round's ``reasoning`` item as given, its text as an assistant message, a
    ``function_call`` per call (``call_id``, ``arguments`` as JSON text), a
    ``function_call_output`` per result (``output``: the text, or ``input_text`` and
    ``input_image`` parts), the answer an assistant message. Tools are flat
    ``{"type": "function", "name", "description", "parameters"}``. An error result is its
    output as is (there is no error field)."""

    name = OPENAI_RESPONSES
    limits, rules, wording, token_basis = LIMITS, RULES, WORDING, OPENAI_BASIS
    conversation_key = "input"
    omits_blank_system = True

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None):
        body = {"model": model}
        if system is not None:
            body["instructions"] = self.system(system)
        body["input"] = [self.developer(text) for text in sections(facts, evidence, summaries)]
        body["input"] += messages
        if tools:
            body["tools"] = tools
        return body

    def system(self, text):
        return text

    cache = OPENAI_CACHE  # one provider, one cache (its caching guide covers both APIs)

    def developer(self, text):
        """A memory section (facts, evidence, summaries): a developer message."""
        return {"role": "developer", "content": text}

    def section_after_turns(self, text):
        # The input list takes a developer message anywhere.
        return self.developer(text)

    def text(self, text):
        return {"type": "input_text", "text": text}

    def image(self, media_type, data):
        return {"type": "input_image", "image_url": f"data:{media_type};base64,{data}"}

    def document(self, media_type, data, filename=None):
        named = {} if filename is None else {"filename": filename}
        return {"type": "input_file", **named, "file_data": f"data:{media_type};base64,{data}"}

    def call(self, id, name, arguments):
        return {"type": "function_call", "call_id": id, "name": name, "arguments": arguments}

    def result(self, call_id, content, is_error=False):
        return {"type": "function_call_output", "call_id": call_id, "output": content}

    def round(self, calls, results, reasoning=(), text=None):
        said = [] if text is None else [self.answer(text)]
        return [*reasoning, *said, *calls, *results]

    def tool(self, name, description, schema):
        return {"type": "function", "name": name, "description": description,
                "parameters": schema}

    def check(self, body, messages):
        check_responses(body, messages)

    def function_tool(self, tool):
        """Flat function tools; the API's own types (web_search ...) pass untouched."""
        kind = tool.get("type")
        if kind != "function":
            if not isinstance(kind, str):
                raise InvalidRequest("tools")
            return None
        if not isinstance(tool.get("name"), str):
            raise InvalidRequest("tools")
        return tool["name"], tool.get("parameters", {"type": "object"})

    def image_data(self, part):
        if part.get("type") != "input_image":
            return None
        return data_url(part.get("image_url"))

    def document_data(self, part, index):
        """An ``input_file``'s ``file_data``: a data URL (a file id or URL is not inline)."""
        if part.get("type") != "input_file" or "file_data" not in part:
            return None
        media_type, data = data_url(part["file_data"])
        if media_type is None:
            raise InvalidRequest("document", index, "file_data: a data URL")
        return data

    def image_tokens(self, width, height):
        return openai_image_tokens(width, height)
