"""OpenAI Chat Completions (``"openai-chat"``): its body's pieces, its rules, its limits and
its token rules, each with its source.

- **Pieces** (``OpenAIChat``): the system message first, pinned facts a second ``system``
  message (then the evidence and summaries, one more each), a round an ``assistant``
  message with ``tool_calls`` then one ``tool`` message per call, an image a ``data:`` URL
  part, a document a ``file`` part; no reasoning (Chat Completions has no reasoning items).
- **Rules** (``check_chat``): roles, content of text or known parts, a ``tool`` message
  answering a call of the ``tool_calls`` message just before it, every call answered before
  any other message, call ids unique in a message and at most 40 characters, arguments as
  JSON text, a function's parameters of ``"type": "object"``; OpenAI's own error texts in
  ``WORDING``.
- **Top-level fields** (``FIELDS``): the ones its API reference documents, each with its JSON
  types; an unknown one, or one of another type, is refused in its API's words. The writer
  writes ``model``, ``messages`` and ``tools`` (``WRITTEN``); the rest are the application's,
  through ``extra=``.
- **Limits** (``LIMITS``): 128 tools, 128 calls in a message, 500 images and 50 MB of them.
- **Token rules**: the images guide's tile and patch rules (``openai_image_tokens``); the
  Responses API counts by the same guide.
- **Its cache** (``OPENAI_CACHE``, the Responses API's too): automatic on exact prefixes of
  1,024 tokens and more, in 128-token blocks before GPT-5.6; reads at 0.1x to 0.5x by model,
  writes free before GPT-5.6 and 1.25x from it; prices of a few models, dated.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from .common import (MEDIA_TYPES, PDF, CacheRate, InvalidRequest, Limit, PromptCache, Shape,
                     check_call_id, check_call_name, data_url, known, sections)

OPENAI_CHAT = "openai-chat"

# --- Its cache: the prompt caching guide and the pricing page (both APIs, one cache) ---------
# Every request of 1,024 tokens or more is cached, its longest prefix matching an earlier
# request's read: before the GPT-5.6 family in blocks of 128 tokens, and written at no extra
# fee; from GPT-5.6 written at 1.25x, to a length of any token (its managed breakpoint), and
# kept at least 30 minutes. In memory an entry is cleared after 5 to 10 minutes unused (at
# most an hour; 300 s here), or kept 24 hours with ``prompt_cache_retention: "24h"``, at the
# same price. ``prompt_cache_key`` (a top-level field, sent through ``extra=``) steers routing;
# the simulated bill does not model it.
_FREE_WRITES = {"in_memory": (300, 1.0), "24h": (86_400, 1.0)}
_PAID_WRITES = {"in_memory": (1_800, 1.25), "24h": (86_400, 1.25)}
OPENAI_CACHE = PromptCache(
    source=("developers.openai.com/api/docs/guides/prompt-caching (1,024-token minimum, 128-token "
            "blocks before GPT-5.6, writes 1.25x and 30 minutes from GPT-5.6, retention) and "
            "developers.openai.com/api/docs/pricing (input and cached input per model)"),
    checked="2026-12-06",
    automatic=True,
    minimum=(("", 1024),),
    rates=(CacheRate("gpt-5.6-sol", 5.0, 0.1, _PAID_WRITES),
           CacheRate("gpt-5.6-terra", 2.5, 0.1, _PAID_WRITES),
           CacheRate("gpt-5.4", 2.5, 0.1, _FREE_WRITES, block=128),
           CacheRate("gpt-4.1", 2.0, 0.25, _FREE_WRITES, block=128),
           CacheRate("gpt-4o", 2.5, 0.5, _FREE_WRITES, block=128)),
)

LIMITS: dict[str, Limit] = {
    "body_bytes": Limit(None, "not documented by OpenAI"),
    "messages": Limit(None, "not documented (2048 seen in an API error in 2024)"),
    "tools": Limit(128, "API error quoted in issue threads: 'tools' array too long, "
                        "maximum length 128"),
    "calls_per_message": Limit(128, "API error quoted in issue threads: 128 tool_calls "
                                    "per message"),
    "images": Limit(500, "OpenAI images guide: up to 500 images per request"),
    "image_bytes": Limit(50_000_000, "OpenAI images guide: 50 MB of image bytes per "
                                     "request"),
    "image_side": Limit(None, "not a refusal: OpenAI scales large images down"),
    "image_side_many": Limit(None, "not documented"),
    "image_base64": Limit(None, "not documented per image (50 MB of images per request)"),
    "cache_breakpoints": Limit(None, "not checked: OpenAI's prompt caching guide says a "
                                     "request writes up to four breakpoints and considers "
                                     "the latest 80, and documents no refusal"),
    "call_id_pattern": Limit(None, "not documented"),
    "call_ids_unique": Limit(None, "not documented"),
    "call_id_length": Limit(40, "API error: 'string too long. Expected a string with "
                                "maximum length 40' (Portkey gateway#1062, autogen#6377)"),
    "tool_name": Limit(r"[a-zA-Z0-9_-]{1,64}", "API reference, function name: "
                                               "^[a-zA-Z0-9_-]{1,64}$"),
    "media_types": Limit(MEDIA_TYPES, "OpenAI images guide: PNG, JPEG, WEBP, "
                                      "non-animated GIF"),
    "document_pages": Limit(None, "not documented in OpenAI's file inputs guide (PDF "
                                  "only, as a file part)"),
}

# The rules only Chat Completions has, in its API's words.
RULES = {
    "tool-after-call": ("messages with role 'tool' must be a response to a preceding "
                        "message with 'tool_calls'"),
    "calls-answered": ("An assistant message with 'tool_calls' must be followed by tool "
                       "messages responding to each 'tool_call_id'"),
    "too-many-calls": "the tool calls of one message must be within the provider's count",
    "tools-empty": ("Invalid 'tools': empty array. Expected an array with minimum length 1, "
                    "but got an empty array instead."),
    "tool-calls-empty": ("Invalid 'messages[N].tool_calls': empty array. Expected an array "
                         "with minimum length 1, but got an empty array instead."),
    "max-tokens-both": ("Setting 'max_tokens' and 'max_completion_tokens' at the same time is "
                        "not supported."),
}

# Its own words for shared rules (API error texts quoted in issue threads, its reference).
WORDING = {
    "call-id": "Missing required parameter: 'messages[N].tool_calls[M].id'",
    "tool-call-id": "Missing required parameter: 'messages[N].tool_call_id'",
    "call-id-length": ("string too long. Expected a string with maximum length "
                       f"{LIMITS['call_id_length'].value}"),
    "schema-object": "schema must be a JSON Schema of 'type: \"object\"'",
    "tool-name": f"function name must match ^{LIMITS['tool_name'].value}$",
    "arguments": "tool_calls[M].function.arguments must be a string (the JSON text)",
    "block-type": "content parts are text, image_url, input_audio, file (refusal from "
                  "the assistant)",
    "media-type": "image_url data URLs of image/png, image/jpeg, image/gif, image/webp",
    "unknown-field": "Unrecognized request argument supplied: {field}",
    "field-type": "Invalid type for '{field}': expected {expected}, but got {got} instead.",
    "document-filename": "Missing required parameter: 'messages[N].content[M].file.filename'",
}

# Its body's top-level fields and their JSON types, as its API reference documents them
# (platform.openai.com/docs/api-reference/chat/create; the same table in OpenAI's Python SDK,
# generated from its OpenAPI spec: src/openai/types/chat/completion_create_params.py, as of
# 2026-08-21). Deprecated ones (functions, function_call, max_tokens) are still taken.
FIELDS: dict[str, tuple[str, ...]] = {
    "messages": ("array",), "model": ("string",),
    "audio": ("object", "null"), "frequency_penalty": ("number", "null"),
    "function_call": ("string", "object"), "functions": ("array",),
    "logit_bias": ("object", "null"), "logprobs": ("boolean", "null"),
    "max_completion_tokens": ("integer", "null"), "max_tokens": ("integer", "null"),
    "metadata": ("object", "null"), "modalities": ("array", "null"),
    "moderation": ("object", "null"), "n": ("integer", "null"),
    "parallel_tool_calls": ("boolean",), "prediction": ("object", "null"),
    "presence_penalty": ("number", "null"), "prompt_cache_key": ("string", "null"),
    "prompt_cache_options": ("object",), "prompt_cache_retention": ("string", "null"),
    "reasoning_effort": ("string", "null"), "response_format": ("object",),
    "safety_identifier": ("string", "null"), "seed": ("integer", "null"),
    "service_tier": ("string", "null"), "stop": ("string", "array", "null"),
    "store": ("boolean", "null"), "stream": ("boolean", "null"),
    "stream_options": ("object", "null"), "temperature": ("number", "null"),
    "tool_choice": ("string", "object"), "tools": ("array",),
    "top_logprobs": ("integer", "null"), "top_p": ("number", "null"), "user": ("string",),
    "verbosity": ("string", "null"), "web_search_options": ("object",),
}
# The fields its writer writes, and what sets each (``extra=`` cannot).
WRITTEN = {"model": "model=", "messages": "the system, the memory sections, the turns and "
           "the current question", "tools": "tools="}
# The fields that cap the reply: not written (the body has none without them), so
# ``extra=`` may send one, kept within ``reserve_tokens`` under a token limit.
REPLY_FIELDS = ("max_completion_tokens", "max_tokens")

# The content part types of each role.
OPENAI_PARTS = {"system": {"text"}, "developer": {"text"}, "tool": {"text"},
                "user": {"text", "image_url", "input_audio", "file"},
                "assistant": {"text", "refusal"}}


def check_chat(body: dict, messages: list[dict]) -> None:
    """Raise InvalidRequest for the first of Chat Completions' own rules ``messages`` breaks."""
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
            raise InvalidRequest("block-type", index, dialect=OPENAI_CHAT)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str):
                raise InvalidRequest("tool-call-id", index, dialect=OPENAI_CHAT)
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
        if calls == []:
            raise InvalidRequest("tool-calls-empty", index)
        if calls:
            most = LIMITS["calls_per_message"].value
            if len(calls) > most:
                raise InvalidRequest("too-many-calls", index, f"{len(calls)}, at most {most}")
            for call in calls:
                if not isinstance(call, dict) or call.get("type") not in ("function", "custom"):
                    raise InvalidRequest("block-type", index, "a tool call's type",
                                         dialect=OPENAI_CHAT)
                check_call_id(call.get("id"), index, OPENAI_CHAT)
                if call["type"] == "function":
                    function = call.get("function")
                    if not isinstance(function, dict):
                        raise InvalidRequest("arguments", index, dialect=OPENAI_CHAT)
                    check_call_name(function.get("name"), index, OPENAI_CHAT)
                    if not isinstance(function.get("arguments"), str):
                        raise InvalidRequest("arguments", index, dialect=OPENAI_CHAT)
            ids = [call["id"] for call in calls]
            if len(set(ids)) < len(ids):
                raise InvalidRequest("call-id-unique", index, "in one message",
                                     dialect=OPENAI_CHAT)
            waiting, answerable, calls_at = set(ids), set(ids), index
    if waiting:
        raise InvalidRequest("calls-answered", calls_at, f"{len(waiting)} call(s) unanswered")


def check_chat_fields(fields: dict) -> None:
    """Chat Completions' rules across top-level fields: no empty tools array, and not both
    reply caps."""
    if fields.get("tools") == []:
        raise InvalidRequest("tools-empty", field="tools")
    if fields.get("max_tokens") is not None and fields.get("max_completion_tokens") is not None:
        raise InvalidRequest("max-tokens-both", field="max_tokens")


# --- OpenAI's image rules: the images and vision guide, "Calculating costs" --------------------
# (platform.openai.com/docs/guides/images-vision#calculating-costs). Two rules, each named
# there for the models it applies to.
#
# The tile rule, at "detail": "high" (the body sends no `detail`, so the API's "auto"
# applies; "high" is its upper bound): fit in 2048x2048, then the shortest side down to
# 768 px (never up), then base tokens + tile tokens for each 512-px tile.
IMAGE_TILE = 512
IMAGE_FIT = 2048
IMAGE_SHORT_SIDE = 768
OPENAI_TILE_TOKENS = {  # model: (base tokens, tokens per tile), the guide's table
    "gpt-4o": (85, 170), "gpt-4.1": (85, 170), "gpt-4.5-preview": (85, 170),
    "gpt-4o-mini": (2833, 5667),
    "o1": (75, 150), "o1-pro": (75, 150), "o3": (75, 150),
    "computer-use-preview": (65, 129),
    "gpt-5": (70, 140), "gpt-5-chat-latest": (70, 140),
}
# The default when no model is named: GPT-4o's figures (85 + 170 a tile), the guide's
# worked examples (1024x1024 is 765 tokens, 2048x4096 is 1105).
OPENAI_DEFAULT_IMAGE_MODEL = "gpt-4o"
# The patch rule: 32-px patches cover the image; over 1536 of them, the image is scaled
# down to fit 1536; then the patches times the model's multiplier (the guide: 1024x1024 is
# 1024 patches, 1800x2400 is 1452). How a fraction of a token rounds is not documented:
# it is rounded up here.
IMAGE_PATCH = 32
IMAGE_MAX_PATCHES = 1536
OPENAI_PATCH_MULTIPLIER = {"gpt-4.1-mini": Fraction("1.62"), "gpt-4.1-nano": Fraction("2.46"),
                           "o4-mini": Fraction("1.72"), "gpt-5-mini": Fraction("1.62"),
                           "gpt-5-nano": Fraction("2.46")}
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")  # "gpt-4o-2024-08-06" is "gpt-4o"'s


def openai_image_tokens(width: int, height: int, model: str | None = None) -> int:
    """An image's tokens by OpenAI's rule for ``model`` (None: GPT-4o's); ValueError for a
    model the guide does not name, rather than a guess."""
    name = _SNAPSHOT.sub("", OPENAI_DEFAULT_IMAGE_MODEL if model is None else model)
    if name in OPENAI_TILE_TOKENS:
        base, per_tile = OPENAI_TILE_TOKENS[name]
        return base + per_tile * _tiles(width, height)
    if name in OPENAI_PATCH_MULTIPLIER:
        return math.ceil(_patches(width, height) * OPENAI_PATCH_MULTIPLIER[name])
    known_models = ", ".join(sorted([*OPENAI_TILE_TOKENS, *OPENAI_PATCH_MULTIPLIER]))
    raise ValueError(f"OpenAI's images guide gives no image rule for model {model!r}; "
                     f"it gives one for: {known_models}")


def _tiles(width: int, height: int) -> int:
    """The 512-px tiles of the image once fitted in 2048x2048 and its short side at most 768."""
    w, h = Fraction(width), Fraction(height)
    if max(w, h) > IMAGE_FIT:
        scale = IMAGE_FIT / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > IMAGE_SHORT_SIDE:
        scale = IMAGE_SHORT_SIDE / min(w, h)
        w, h = w * scale, h * scale
    return math.ceil(w / IMAGE_TILE) * math.ceil(h / IMAGE_TILE)


def _patches(width: int, height: int) -> int:
    """The 32-px patches of the image, scaled down as the guide writes it when over 1536."""
    patches = math.ceil(width / IMAGE_PATCH) * math.ceil(height / IMAGE_PATCH)
    if patches <= IMAGE_MAX_PATCHES:
        return patches
    shrink = math.sqrt(IMAGE_PATCH ** 2 * IMAGE_MAX_PATCHES / (width * height))
    across, down = width * shrink / IMAGE_PATCH, height * shrink / IMAGE_PATCH
    shrink *= min(math.floor(across) / across, math.floor(down) / down)
    # The resized image is whole pixels (the guide's example: 1056x1408); the margin keeps
    # a side the guide gives as a whole number of patches from rounding up to one more.
    resized_width = math.floor(width * shrink + 1e-6)
    resized_height = math.floor(height * shrink + 1e-6)
    return min(math.ceil(resized_width / IMAGE_PATCH) * math.ceil(resized_height / IMAGE_PATCH),
               IMAGE_MAX_PATCHES)


# --- Its PDF rule: the file inputs guide (platform.openai.com/docs/guides/pdf-files): "we put
# into the model's context both the extracted text and an image of each page". It gives no
# figure for the text: Anthropic's upper figure for a page's text (3,000 tokens, its PDF
# guide) stands in; the page's image is counted at the tile rule's most for a page fitted in
# 2048 x 2048 with its short side at 768 px (768 x 2048: 8 tiles, 1,445 tokens at GPT-4o's
# figures). An estimate that errs high.
OPENAI_PDF_PAGE_TEXT = 3000
OPENAI_PDF_PAGE_TOKENS = OPENAI_PDF_PAGE_TEXT + OPENAI_TILE_TOKENS[OPENAI_DEFAULT_IMAGE_MODEL][0] \
    + OPENAI_TILE_TOKENS[OPENAI_DEFAULT_IMAGE_MODEL][1] * 8

# What a request's count rests on, in every OpenAI dialect (and any dialect not registered:
# OpenAI's other API shapes, the same tokenizer and image rule; their own per-item framing
# is not documented, so it is an estimate too).
OPENAI_BASIS = ("OpenAI's cookbook rule for chat messages under {tokenizer} (its own "
                "estimate); images by GPT-4o's tile rule; PDFs a page by its file inputs "
                "guide's text and page image; tools by the cookbook's estimate; tool rounds "
                "by ledgerlab's estimate")


class OpenAIChat(Shape):
    """Reasoning and provider items are left out (Chat Completions has neither); a result is
    text, or text parts: its API reference lists no image part for a ``tool`` message, and a
    user message takes images, so a result's images are moved to one user message after the
    round's ``tool`` messages (each result's after a text part ``[tool result <call id>]``);
    an error result is its content as is (there is no error field)."""

    name = OPENAI_CHAT
    limits, rules, wording, token_basis = LIMITS, RULES, WORDING, OPENAI_BASIS
    fields, written, reply_fields = FIELDS, WRITTEN, REPLY_FIELDS
    pdf_page_tokens = OPENAI_PDF_PAGE_TOKENS

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None, compactions=()):
        system_messages = [self.system(system)]
        system_messages += [self.system(text) for text in sections(facts, evidence, summaries)]
        body = {"model": model, "messages": system_messages + messages}
        if tools:
            body["tools"] = tools
        return body

    cache = OPENAI_CACHE

    def system(self, text):
        return {"role": "system", "content": text}

    def section_after_turns(self, text):
        # Chat Completions takes a system message anywhere in the conversation.
        return self.system(text)

    def image(self, media_type, data):
        return {"type": "image_url", "image_url": {"url": f"data:{media_type};base64,{data}"}}

    def document(self, media_type, data, filename):
        return {"type": "file", "file": {"filename": filename,
                                         "file_data": f"data:{media_type};base64,{data}"}}

    def call(self, id, name, arguments, item_id=None):
        return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}

    def result(self, call_id, content, is_error=False):
        return {"role": "tool", "tool_call_id": call_id, "content": content}

    def round(self, calls, results, opening=()):
        # Its opening holds its text alone (the one piece Chat writes of it).
        text = next((piece["text"] for piece in opening), None)
        if not calls:
            return [] if text is None else [self.answer(text)]
        moved = []  # a result's images, for the user message after the tool messages
        messages = [{"role": "assistant", "content": text, "tool_calls": calls}]
        for result in results:
            content = result["content"]
            if isinstance(content, list) and any(part["type"] == "image_url"
                                                 for part in content):
                moved.append(self.text(f"[tool result {result['tool_call_id']}]"))
                moved += [part for part in content if part["type"] == "image_url"]
                texts = [part for part in content if part["type"] != "image_url"]
                result = dict(result, content=texts or "")
            messages.append(result)
        if moved:
            messages.append(self.user(moved))
        return messages

    def tool(self, name, description, schema):
        return {"type": "function",
                "function": {"name": name, "description": description, "parameters": schema}}

    def check(self, body, messages):
        check_chat(body, messages)

    def check_fields(self, body):
        check_chat_fields(body)

    def function_tool(self, tool):
        """Function tools; a custom tool (its own ``custom`` object) passes untouched."""
        kind = tool.get("type")
        if kind == "custom" and isinstance(tool.get("custom"), dict):
            return None
        function = tool.get("function")
        if kind != "function" or not isinstance(function, dict) or not isinstance(
                function.get("name"), str):
            raise InvalidRequest("tools")
        return function["name"], function.get("parameters", {"type": "object"})

    def image_data(self, part):
        if part.get("type") != "image_url":
            return None
        url = part.get("image_url")
        return data_url(url.get("url") if isinstance(url, dict) else None)

    def document_data(self, part, index):
        """A ``file`` part's ``file_data``: a PDF data URL (a file id is not inline), as
        (media type, base64 data); its ``filename`` required."""
        if part.get("type") != "file":
            return None
        file = part.get("file")
        if not isinstance(file, dict):
            raise InvalidRequest("document", index)
        if "file_data" not in file:
            return None
        if not isinstance(file.get("filename"), str):
            raise InvalidRequest("document-filename", index, dialect=OPENAI_CHAT)
        media_type, data = data_url(file["file_data"])
        if media_type != PDF:
            raise InvalidRequest("document", index, "file_data: a PDF data URL")
        return media_type, data

    def image_tokens(self, width, height):
        return openai_image_tokens(width, height)
