"""OpenAI's Responses API (``"openai-responses"``): its body's pieces, its rules, its limits and
its token rules, each with its source.

- **Pieces** (``OpenAIResponses``): ``{"model", "instructions", "input": [...], "tools"}``;
  the class says why the system is ``instructions`` and the memory sections ``developer``
  messages.
- **Rules** (``check_responses``), with the API's own error texts:

  - each item is of a type the API lists; a message has a role it knows and content of text
    or of the part types its role takes; ``instructions``, where given, is a string
    (or null);
  - a ``function_call`` has its ``call_id``, a function name of the pattern, and
    ``arguments`` as JSON text;
  - every ``function_call_output`` answers a ``function_call`` before it ("No tool call
    found for function call output with call_id ..."), and every ``function_call`` is
    answered ("No tool output found for function call ..."); an output is text or input
    parts;
  - an item's own ``id``, where given, begins with its type's prefix (``fc`` for a
    ``function_call``, ``msg`` for a message: "Expected an ID that begins with 'fc'.");
  - a ``reasoning`` item keeps its ``id`` and ``summary`` and is followed at once by the
    item it produced: a ``function_call``, an assistant message or one of the API's own items
    (``web_search_call``, ``mcp_call``, ``custom_tool_call`` ...) ("Item ... of type
    'reasoning' was provided without its required following item").

  Which rules depend on ``store`` (the body's field; the API stores items unless it is
  ``false``): with items stored, the API pairs a reasoning item with the item after it by
  that item's own id, so that item must carry its ``id`` (and, where both ids show the
  response they came from, the same response's); and, in the tool loop in progress (the
  items after the last user message), when one round holds its reasoning item, a round
  whose ``function_call`` carries its own ``id`` (it came from the API) but holds no
  reasoning item is refused: the model reasons, so that call was returned with a reasoning
  item the body dropped ("Item ... of type 'function_call' was provided without its
  required 'reasoning' item"). With ``store: false`` nothing is looked up by id: a
  reasoning item must carry its ``encrypted_content`` ("Item with id 'rs_...' not found.
  Items are not persisted when `store` is set to false."), and pairing is by position only.
- **Top-level fields** (``FIELDS``): the ones its API reference documents, each with its JSON
  types (``input`` a string or items: a string is one user message). The writer writes
  ``model``, ``instructions``, ``input`` and ``tools`` (``WRITTEN``); the rest are the
  application's, through ``extra=`` (``store: false`` there makes ``select`` and
  ``request_body`` hold the rounds to the rules without stored items, as ``check_request``
  holds the body).
- **Limits** (``LIMITS``): 500 images and 50 MB of them (the images guide, both APIs); the
  rest not documented.
- **Token rules**: OpenAI's images guide, as Chat Completions' (``openai_chat``).
"""

from __future__ import annotations

import re

from ..checks import InvalidTurn
from ..steps import ITEM_ID_PREFIXES, PROVIDER_ITEM_TYPES, AssistantText, Reasoning
from .common import (MEDIA_TYPES, InvalidRequest, Limit, Shape, check_call_id, check_call_name,
                     data_url, known, sections)
from .openai_chat import (OPENAI_BASIS, OPENAI_CACHE, OPENAI_PDF_PAGE_TOKENS,
                          openai_image_tokens)

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
    "image_base64": Limit(None, "not documented per image (50 MB of images per request)"),
    "cache_breakpoints": Limit(None, "not checked: OpenAI's prompt caching guide says a "
                                     "request writes up to four breakpoints and considers "
                                     "the latest 80, and documents no refusal"),
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
    "item-id-prefix": ("Invalid 'input[N].id': '<id>'. Expected an ID that begins with "
                       "'fc'."),
    "reasoning-stored": ("Item with id '<rs id>' not found. Items are not persisted when "
                         "`store` is set to false. Try again with `store` set to true, or "
                         "remove this item from your input."),
}

# Its own words for shared rules.
WORDING = {
    "call-id": "Missing required parameter: 'input[N].call_id'",
    "tool-call-id": "Missing required parameter: 'input[N].call_id'",
    "arguments": "input[N].arguments must be a string (the JSON text)",
    "unknown-field": "Unrecognized request argument supplied: {field}",
    "field-type": "Invalid type for '{field}': expected {expected}, but got {got} instead.",
    "document-filename": "Missing required parameter: 'input[N].content[M].filename'",
}

# Its body's top-level fields and their JSON types, as its API reference documents them
# (platform.openai.com/docs/api-reference/responses/create; the same table in OpenAI's Python
# SDK, generated from its OpenAPI spec: src/openai/types/responses/response_create_params.py,
# as of 2026-08-21).
FIELDS: dict[str, tuple[str, ...]] = {
    "model": ("string",), "input": ("string", "array"),
    "background": ("boolean", "null"), "context_management": ("array", "null"),
    "conversation": ("string", "object", "null"), "include": ("array", "null"),
    "instructions": ("string", "null"), "max_output_tokens": ("integer", "null"),
    "max_tool_calls": ("integer", "null"), "metadata": ("object", "null"),
    "moderation": ("object", "null"), "parallel_tool_calls": ("boolean", "null"),
    "previous_response_id": ("string", "null"), "prompt": ("object", "null"),
    "prompt_cache_key": ("string", "null"), "prompt_cache_options": ("object",),
    "prompt_cache_retention": ("string", "null"), "reasoning": ("object", "null"),
    "safety_identifier": ("string", "null"), "service_tier": ("string", "null"),
    "store": ("boolean", "null"), "stream": ("boolean", "null"),
    "stream_options": ("object", "null"), "temperature": ("number", "null"),
    "text": ("object",), "tool_choice": ("string", "object"), "tools": ("array",),
    "top_logprobs": ("integer", "null"), "top_p": ("number", "null"),
    "truncation": ("string", "null"), "user": ("string",),
}
# The fields its writer writes, and what sets each (``extra=`` cannot).
WRITTEN = {"model": "model=", "instructions": "the system",
           "input": "the memory sections, the turns, the current question and current_steps",
           "tools": "tools="}
# The field that caps the reply: not written, so ``extra=`` may send it, kept within
# ``reserve_tokens`` under a token limit.
REPLY_FIELDS = ("max_output_tokens",)

# The input item types the API reference lists (a message may leave its type out): the ones
# ledgerlab writes, the API's own items a ProviderItem holds, and the compaction item.
OWN_ITEMS = PROVIDER_ITEM_TYPES[OPENAI_RESPONSES]
ITEMS = {"message", "function_call", "function_call_output", "reasoning", "item_reference",
         "compaction", *OWN_ITEMS}
# An item id names the response it came from: the ids OpenAI returns for the items of one
# response share the 16 hex digits after their type's prefix (its response's id too), as every
# id quoted with these errors shows (rs_0a4d512680f81369006a... with fc_0a4d512680f81369006a...:
# cline#12242, continue#10018, continue#10880). An id not of that form shows no response.
RESPONSE_KEY = re.compile(r"[a-z]+_([0-9a-f]{16})[0-9a-f]{16,}")
RESPONSE_ID_LENGTH = 2 + 32  # the shortest id of that form
ROLES = ("user", "assistant", "system", "developer")
INPUT_PARTS = {"input_text", "input_image", "input_file"}
ASSISTANT_PARTS = {"output_text", "refusal"}


def _kind(item: dict) -> object:
    return item.get("type", "message" if "role" in item else None)


def response_key(item_id: object) -> str | None:
    """The response an item id shows it came from (None: its id shows none)."""
    if not isinstance(item_id, str) or len(item_id) < RESPONSE_ID_LENGTH:
        return None  # too short to be of that form: no pattern to match
    found = RESPONSE_KEY.fullmatch(item_id)
    return found[1] if found else None


def _follows_reasoning(item: dict, kind: object) -> bool:
    """Can this item be the one a reasoning item produced: a call, an assistant message or
    one of the API's own items?"""
    return (kind == "function_call" or kind in OWN_ITEMS
            or kind == "message" and item.get("role") == "assistant")


def _check_item_id(item: dict, kind: str, index: int) -> None:
    """An item's own ``id``, where given: a string beginning with its type's prefix."""
    if "id" in item and (not isinstance(item["id"], str)
                         or not item["id"].startswith(ITEM_ID_PREFIXES[kind])):
        raise InvalidRequest("item-id-prefix", index, f"a {kind} item's id begins with "
                             f"{ITEM_ID_PREFIXES[kind]!r}", dialect=OPENAI_RESPONSES)


def _check_reasoning(item: dict, index: int, items: list[dict], kinds: list,
                     stored: bool) -> None:
    """A reasoning item: its shape, what ``store`` asks of it, and the item it produced
    after it at once (by that item's own id, where items are stored)."""
    if not isinstance(item.get("id"), str) or not isinstance(item.get("summary"), list):
        raise InvalidRequest("reasoning-shape", index, dialect=OPENAI_RESPONSES)
    if not stored and not isinstance(item.get("encrypted_content"), str):
        raise InvalidRequest("reasoning-stored", index, "with store false, a reasoning item "
                             "carries its encrypted_content", dialect=OPENAI_RESPONSES)
    following = index + 1 < len(items) and _follows_reasoning(items[index + 1],
                                                               kinds[index + 1])
    if not following:
        raise InvalidRequest("reasoning-followed", index, dialect=OPENAI_RESPONSES)
    if not stored:
        return  # nothing is looked up by id: paired by position
    paired = items[index + 1].get("id")
    if not isinstance(paired, str):
        raise InvalidRequest("reasoning-followed", index, "items are stored: the item after "
                             "it carries its own id", dialect=OPENAI_RESPONSES)
    own, theirs = response_key(item["id"]), response_key(paired)
    if own is not None and theirs is not None and own != theirs:
        raise InvalidRequest("reasoning-followed", index, "the item after it came from "
                             "another response", dialect=OPENAI_RESPONSES)


def items_stored(fields: dict) -> bool:
    """Does the API store this request's items: a body's (or ``extra=``'s) ``store`` is not
    false (absent or null, the API's default, stores them)?"""
    return fields.get("store") is not False


def check_responses(body: dict, items: list[dict]) -> None:
    """Raise InvalidRequest for the first rule ``items`` (the body's ``input``) breaks."""
    if body.get("instructions") is not None and not isinstance(body["instructions"], str):
        raise InvalidRequest("body", detail="instructions must be a string (or null)")
    stored = items_stored(body)
    kinds = [_kind(item) for item in items]
    calls: dict[str, int] = {}  # each call_id's function_call
    answered: set[str] = set()
    for index, (item, kind) in enumerate(zip(items, kinds)):
        if not known(kind, ITEMS):
            raise InvalidRequest("block-type", index, "an input item's type",
                                 dialect=OPENAI_RESPONSES)
        if kind == "message":
            _check_message(item, index)
            _check_item_id(item, "message", index)
        elif kind == "function_call":
            _check_item_id(item, "function_call", index)
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
            _check_reasoning(item, index, items, kinds, stored)
    for call_id, index in calls.items():
        if call_id not in answered:
            raise InvalidRequest("call-has-output", index, dialect=OPENAI_RESPONSES)
    if stored:  # the API links a stored call to its reasoning by its id
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


def _round_openings(items: list[dict], kinds: list, start: int = 0):
    """(index of a round's first function_call, the indexes of the items before it in its
    round: its reasoning, its assistant message, the API's own items) for each round of
    calls from ``start`` on."""
    opening: list[int] = []
    for index in range(start, len(items)):
        kind = kinds[index]
        if kind == "function_call":
            if index > start and kinds[index - 1] == "function_call":
                continue
            yield index, opening
            opening = []
        elif kind == "reasoning" or _follows_reasoning(items[index], kind):
            opening.append(index)
        else:  # an output, a user's or a developer's message: the next round starts after it
            opening = []


def _check_loop_reasoning(items: list[dict], kinds: list) -> None:
    """In the tool loop in progress, a round whose calls carry their ids and that lost its
    reasoning item, beside a round that kept its own."""
    start = 1 + max((index for index, (item, kind) in enumerate(zip(items, kinds))
                     if kind == "message" and item.get("role") == "user"), default=-1)
    # (index of a round's first function_call, does its round hold a reasoning item)
    rounds = [(index, any(kinds[before] == "reasoning" for before in opening))
              for index, opening in _round_openings(items, kinds, start)]
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
    round's opening in its order (its ``reasoning`` items and the API's own items as given,
    its text as an assistant message: with its ``id``, where known, an ``output_text`` part
    in the message's output shape), a ``function_call`` per call (its own ``id`` where known,
    ``call_id``, ``arguments`` as JSON text), a ``function_call_output`` per result
    (``output``: the text, or ``input_text`` and ``input_image`` parts), the answer an
    assistant message. Compaction items come first in ``input``, before the memory
    sections (the API drops what comes before a compaction item). Tools are flat
    ``{"type": "function", "name", "description", "parameters"}``. An error result is its
    output as is (there is no error field)."""

    name = OPENAI_RESPONSES
    limits, rules, wording, token_basis = LIMITS, RULES, WORDING, OPENAI_BASIS
    fields, written, reply_fields = FIELDS, WRITTEN, REPLY_FIELDS
    conversation_key = "input"
    omits_blank_system = True
    pdf_page_tokens = OPENAI_PDF_PAGE_TOKENS

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None, compactions=()):
        body = {"model": model}
        if system is not None:
            body["instructions"] = self.system(system)
        body["input"] = list(compactions)
        body["input"] += [self.developer(text) for text in sections(facts, evidence, summaries)]
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

    def document(self, media_type, data, filename):
        return {"type": "input_file", "filename": filename,
                "file_data": f"data:{media_type};base64,{data}"}

    def call(self, id, name, arguments, item_id=None):
        own = {} if item_id is None else {"id": item_id}
        return {"type": "function_call", **own, "call_id": id, "name": name,
                "arguments": arguments}

    def said(self, text, item_id=None):
        if item_id is None:
            return self.answer(text)
        return {"type": "message", "id": item_id, "role": "assistant",
                "content": [{"type": "output_text", "text": text}]}

    def result(self, call_id, content, is_error=False):
        return {"type": "function_call_output", "call_id": call_id, "output": content}

    def round(self, calls, results, opening=()):
        return [*opening, *calls, *results]

    def refuse_rounds(self, rounds, in_progress, extra):
        """What the API refuses of rounds it cannot pair. With items stored (its default):
        a reasoning item whose following item carries no id of its own (``ToolCall.item_id``,
        ``AssistantText.item_id``, a provider item's ``id``), or one of another response;
        and, in the turn in progress, a round whose calls carry their ids without a
        reasoning item of its own beside a round that kept one (``check_request``'s
        ``reasoning-followed`` and ``reasoning-required``). With ``store: false`` in
        ``extra``, paired by position (``check_steps`` holds it): a reasoning item without
        its ``encrypted_content`` (``reasoning-stored``)."""
        if not items_stored(extra):
            for round_ in rounds:
                for step in round_.reasoning:
                    if step.dialect == OPENAI_RESPONSES and not isinstance(
                            step.as_dict.get("encrypted_content"), str):
                        raise InvalidTurn("openai-responses refuses a reasoning item without "
                                          "its encrypted_content when store is false (ask "
                                          "for it with include: "
                                          "['reasoning.encrypted_content'])")
            return
        kept_reasoning, bare = False, False
        for round_ in rounds:
            has = any(step.dialect == OPENAI_RESPONSES for step in round_.reasoning)
            if has:
                written = [step for step in round_.opening if isinstance(step, AssistantText)
                           or step.dialect == OPENAI_RESPONSES] + list(round_.calls)
                for step, after in zip(written, written[1:]):
                    if not isinstance(step, Reasoning):
                        continue
                    if after.item_id is None:
                        raise InvalidTurn("openai-responses pairs a reasoning item with the "
                                          "item after it by that item's own id: give it "
                                          "(ToolCall.item_id, AssistantText.item_id, the "
                                          "provider item's id)")
                    own, theirs = response_key(step.item_id), response_key(after.item_id)
                    if own is not None and theirs is not None and own != theirs:
                        raise InvalidTurn("openai-responses refuses a reasoning item followed "
                                          "by an item of another response (their ids differ)")
            if in_progress and round_.calls:
                kept_reasoning = kept_reasoning or has
                bare = bare or (not has and round_.calls[0].item_id is not None)
        if kept_reasoning and bare:
            raise InvalidTurn("openai-responses refuses a round of the turn in progress whose "
                              "calls carry their item ids without its reasoning item, beside "
                              "a round that kept its own")

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
        """An ``input_file``'s ``file_data``: a data URL (a file id or URL is not inline), as
        (media type, base64 data); its ``filename`` required."""
        if part.get("type") != "input_file" or "file_data" not in part:
            return None
        if not isinstance(part.get("filename"), str):
            raise InvalidRequest("document-filename", index, dialect=OPENAI_RESPONSES)
        media_type, data = data_url(part["file_data"])
        if media_type is None:
            raise InvalidRequest("document", index, "file_data: a data URL")
        return media_type, data

    def image_tokens(self, width, height):
        return openai_image_tokens(width, height)
