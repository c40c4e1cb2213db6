"""Anthropic Messages (``"anthropic-messages"``): its body's pieces, its rules, its limits and
its token rules, each with its source.

- **Pieces** (``AnthropicMessages``): ``system`` and the required ``max_tokens`` are fields
  (the system a string, or text blocks when memory sections follow it; a blank one left
  out), a round one assistant message ``[thinking..., text, tool_use...]`` and one user
  message of its ``tool_result`` blocks, an image a base64 source block. Anthropic refuses
  empty or whitespace-only text (``NON_EMPTY``), so such a question raises InvalidText
  (``refuse_empty``) and such a stored answer is left out (``common.answer_messages``).
- **Rules** (``check_anthropic``): ``max_tokens``, no empty text, the first message the
  user's, consecutive messages of one role combined, every ``tool_use`` answered by a
  ``tool_result`` first in the next message, ids of its pattern and once a request, a
  ``tool_result``'s content blocks, thinking blocks kept whole and, with thinking on, first
  in the tool loop in progress (``check_thinking``), tool blocks only beside a tools array,
  no trailing whitespace at the end of a final assistant message; its API's error texts in
  ``WORDING``.
- **Top-level fields** (``FIELDS``): the ones its API reference documents (and its beta
  fields), each with its JSON types, at most 4 ``cache_control`` breakpoints in all
  (``check_breakpoints``). The writer writes ``model``, ``max_tokens``, ``system``,
  ``messages`` and ``tools`` (``WRITTEN``); the rest are the application's, through
  ``extra=``.
- **Limits** (``LIMITS``): a 32 MB body, 100,000 messages, 100 images of at most 8000 px a
  side (2000 px over ``MANY_IMAGES``), each image's base64 at most 5 MB (5,242,880
  characters: about 3.75 MiB of image).
- **Token rules**: the vision guide's width x height / 750 (``anthropic_image_tokens``), the
  PDF guide's figures a page (``ANTHROPIC_PDF_PAGE_TOKENS``, an estimate) and the tool-use
  system prompt (``anthropic_tool_prompt``).
- **Its cache** (``CACHE``): up to 4 ``cache_control`` breakpoints a request; writes at 1.25x
  (5 minutes) or 2x (1 hour), reads at 0.1x; a minimum per model family; prices of a few
  models, dated. ``cache_breakpoints=True`` writes two (``with_breakpoints``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..checks import InvalidText
from ..steps import PROVIDER_ITEM_TYPES, full_rounds
from ..turns import ProviderTool
from .common import (MEDIA_TYPES, PDF, CacheRate, InvalidRequest, Limit, PromptCache, Shape,
                     check_call_id, check_call_name, known, sections)

ANTHROPIC = "anthropic-messages"

LIMITS: dict[str, Limit] = {
    "body_bytes": Limit(32_000_000, "Anthropic API overview: 32 MB on the standard "
                                    "endpoints, else 413 request_too_large"),
    "messages": Limit(100_000, "Anthropic API overview: 100,000 messages per request"),
    "tools": Limit(None, "not documented (names must be unique)"),
    "calls_per_message": Limit(None, "not documented"),
    "images": Limit(100, "Anthropic vision guide: 100 images per request on 200k-context "
                         "models (600 on others; the lower is every model's)"),
    "image_bytes": Limit(None, "not documented per request beyond the body's 32 MB (each "
                               "image's base64 has its own limit: image_base64)"),
    "image_side": Limit(8000, "Anthropic vision guide: images over 8000x8000 px are "
                              "refused"),
    "image_side_many": Limit(2000, "Anthropic vision guide: over 20 images in a request, "
                                   "each at most 2000x2000 px"),
    "image_base64": Limit(5_242_880, "Messages API error on the base64 string, not the file: "
                                     "'image exceeds 5 MB maximum: 8259148 bytes > 5242880 "
                                     "bytes' (anthropics/claude-code#19631, January 2026); "
                                     "later 2026 reports see 10 MiB on the direct API "
                                     "(kolega-code#354): 5 MiB is every endpoint's"),
    "cache_breakpoints": Limit(4, "prompt caching guide: at most 4 cache_control breakpoints "
                                  "a request; API error 'A maximum of 4 blocks with "
                                  "cache_control may be provided. Found 5.' (the top-level "
                                  "automatic one counts: coder/mux#3112)"),
    "call_id_pattern": Limit(r"[a-zA-Z0-9_-]+", "Messages API: 'tool_use.id: String "
                                                "should match pattern' ^[a-zA-Z0-9_-]+$ "
                                                "(Roo-Code#10649, nanobot#4356)"),
    "call_id_length": Limit(None, "not documented"),
    "call_ids_unique": Limit(True, "Messages API: a tool_use id appears once in a "
                                   "request (two turns reusing one are refused)"),
    "tool_name": Limit(r"[a-zA-Z0-9_-]{1,128}", "Messages API, tool name: "
                                                "^[a-zA-Z0-9_-]{1,128}$ (64 in early 2025)"),
    "media_types": Limit(MEDIA_TYPES, "Anthropic vision guide: image/jpeg, image/png, "
                                      "image/gif, image/webp"),
    "document_pages": Limit(100, "Anthropic PDF support: 100 pages per request, 32 MB "
                                 "request (not checked here: counting a PDF's pages "
                                 "needs a PDF parser)"),
}
# Over this many images, the smaller side limit applies (its vision guide).
MANY_IMAGES = 20

# Anthropic's API refuses a request holding an empty message or text block; these are its
# own words (``RULES["non-empty"]`` quotes them too).
NON_EMPTY = ("all messages must have non-empty content except for the optional final "
             "assistant message; text content blocks must contain non-whitespace text")

# The rules only the Messages API has, in its API's words where they are known.
RULES = {
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
    "is-error": "a tool result's is_error must be a boolean",
    "thinking-first": ("When `thinking` is enabled, a final `assistant` message must start "
                       "with a thinking block (preceeding the lastmost set of `tool_use` and "
                       "`tool_result` blocks)"),
    "tools-defined": "Requests which include tool_use or tool_result blocks must define tools.",
    "final-whitespace": "final assistant content cannot end with trailing whitespace",
    "cache-breakpoints": "A maximum of 4 blocks with cache_control may be provided.",
}

# --- Its cache: the prompt caching guide and the pricing page --------------------------------
# The prefix is cached in the order tools, system, messages, up to a block marked
# ``"cache_control": {"type": "ephemeral"}``: at most 4 such breakpoints a request. A request
# reads an entry written by an earlier one when the entry's prefix is its own; the lookup goes
# back at most about 20 content blocks from each breakpoint. An entry lives 5 minutes (or 1
# hour with ``"ttl": "1h"``), each hit refreshing it. Below a model family's minimum, nothing
# is cached and no error says so.
BREAKPOINT = {"type": "ephemeral"}
WRITES = {"5m": (300, 1.25), "1h": (3600, 2.0)}
CACHE = PromptCache(
    source=("platform.claude.com/docs/en/build-with-claude/prompt-caching (breakpoints, "
            "lifetimes, lookback, minimums) and platform.claude.com/docs/en/about-claude/pricing "
            "(base input prices; writes 1.25x for 5 minutes, 2x for 1 hour; reads 0.1x)"),
    checked="2026-12-06",
    automatic=False,
    minimum=(("claude-opus-5", 512), ("claude-fable-5", 512), ("claude-mythos-5", 512),
             ("claude-sonnet-5", 1024), ("claude-sonnet-4", 1024), ("claude-opus-4", 1024),
             ("claude-opus-4-5", 4096), ("claude-opus-4-6", 4096), ("claude-opus-4-7", 4096),
             ("claude-opus-4-8", 1024), ("claude-haiku-4-5", 4096), ("claude-3-5-haiku", 2048),
             ("claude-3-haiku", 2048)),
    rates=(CacheRate("claude-opus-5", 5.0, 0.1, WRITES),
           CacheRate("claude-opus-4-8", 5.0, 0.1, WRITES),
           CacheRate("claude-sonnet-4-5", 3.0, 0.1, WRITES),
           CacheRate("claude-haiku-4-5", 1.0, 0.1, WRITES)),
    breakpoints=LIMITS["cache_breakpoints"].value,
    lookback=20,
)

# Its own words for a rule (API error texts quoted in issue threads, its documentation).
WORDING = {
    "call-id": "messages.N.content.M.tool_use.id: Field required",
    "tool-call-id": "messages.N.content.M.tool_result.tool_use_id: Field required",
    "call-id-pattern": ("messages.N.content.M.tool_use.id: String should match pattern "
                        f"'^{LIMITS['call_id_pattern'].value}$'"),
    "call-id-unique": "tool_use ids must be unique",
    "schema-object": "tools.N.custom.input_schema.type: Field required",
    "tool-name": f"tools.N.name: String should match pattern "
                 f"'^{LIMITS['tool_name'].value}$'",
    "arguments": "messages.N.content.M.tool_use.input: Input should be a valid dictionary",
    "too-large": "413 request_too_large",
    "thinking-first": ("messages.N.content.0.type: Expected `thinking` or "
                       "`redacted_thinking`, but found `tool_use`. When `thinking` is "
                       "enabled, a final `assistant` message must start with a thinking "
                       "block (preceeding the lastmost set of `tool_use` and `tool_result` "
                       "blocks). We recommend you include thinking blocks from previous "
                       "turns. To avoid this requirement, disable `thinking`."),
    "image-base64": ("messages.N.content.M.image.source.base64: image exceeds 5 MB maximum: "
                     f"{{found}} bytes > {LIMITS['image_base64'].value} bytes"),
    "pdf-signature": "messages.N.content.M.pdf.source.base64.data: The PDF specified was not "
                     "valid.",
    "cache-breakpoints": ("A maximum of 4 blocks with cache_control may be provided. "
                          "Found {found}."),
    "unknown-field": "{field}: Extra inputs are not permitted",
    "field-type": "{field}: Input should be a valid {expected}",
}

# Its body's top-level fields and their JSON types, as its API reference documents them
# (platform.claude.com/docs/en/api/messages/create; the same table in Anthropic's Python SDK,
# generated from its OpenAPI spec: src/anthropic/types/message_create_params.py and, for the
# beta fields, types/beta/message_create_params.py, as of 2026-08-07). The beta fields need
# the anthropic-beta header, which a body does not show: they pass here, and the API refuses
# them without it. (``user_profile_id`` and ``betas`` are headers, not fields.)
FIELDS: dict[str, tuple[str, ...]] = {
    "model": ("string",), "messages": ("array",), "max_tokens": ("integer",),
    "cache_control": ("object", "null"), "container": ("string", "object", "null"),
    "inference_geo": ("string", "null"), "metadata": ("object",),
    "output_config": ("object",), "service_tier": ("string",),
    "stop_sequences": ("array",), "stream": ("boolean",), "system": ("string", "array"),
    "temperature": ("number",), "thinking": ("object",), "tool_choice": ("object",),
    "tools": ("array",), "top_k": ("integer",), "top_p": ("number",),
    # beta
    "context_management": ("object", "null"), "diagnostics": ("object", "null"),
    "fallback_credit_token": ("string", "object", "null"),
    "fallbacks": ("array", "string", "null"), "mcp_servers": ("array",),
    "output_format": ("object", "null"), "speed": ("string", "null"),
}
# The fields its writer writes, and what sets each (``extra=`` cannot).
WRITTEN = {"model": "model=", "max_tokens": "reserve_tokens=",
           "system": "the system and the memory sections",
           "messages": "the turns, the current question and current_steps", "tools": "tools="}

# Its content block types, and those a tool_result's content takes (its Messages API
# reference): the ones ledgerlab writes, the server and MCP tool blocks a ProviderItem holds
# (``steps.PROVIDER_ITEM_TYPES``), and the ``compaction`` block a Compaction holds.
ANTHROPIC_BLOCKS = {
    "text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
    "redacted_thinking", "compaction", *PROVIDER_ITEM_TYPES[ANTHROPIC]}
RESULT_BLOCKS = {"text", "image", "document", "search_result"}
THINKING_ON = ("enabled", "adaptive")


def refuse_empty(question: str | tuple) -> None:
    """InvalidText if a question or one of its text parts is empty or only whitespace
    (Anthropic refuses it; a whitespace part beside real text is refused too, which is
    stricter than the API, and simpler). An empty answer is not refused: it is left out
    (``common.answer_messages``)."""
    texts = (question,) if type(question) is str else question
    if any(type(text) is str and not text.strip() for text in texts):
        raise InvalidText(f"anthropic-messages refuses empty content ({NON_EMPTY}): a question "
                          f"or one of its text parts is empty or only whitespace")


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


def check_anthropic(body: dict, messages: list[dict]) -> None:
    """Raise InvalidRequest for the first of the Messages API's own rules the body breaks."""
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidRequest("max-tokens")
    system = body.get("system")
    if system is not None and (_blank(system) if isinstance(system, str) else (
            not isinstance(system, list) or not system or any(
                not isinstance(block, dict) or block.get("type") != "text"
                or _blank(block.get("text")) for block in system))):
        raise InvalidRequest("non-empty", detail="in the system")
    tool_blocks_at = None  # the first message holding a tool_use or tool_result block
    for index, message in enumerate(messages):
        content = message.get("content")
        if not isinstance(content, (str, list)):
            raise InvalidRequest("body", index, "a message's content must be text or blocks")
        final_answer = index == len(messages) - 1 and message.get("role") == "assistant"
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if any(not isinstance(block, dict) or not known(block.get("type"), ANTHROPIC_BLOCKS)
               for block in blocks):
            raise InvalidRequest("block-type", index, dialect=ANTHROPIC)
        texts = [block.get("text") for block in blocks if block.get("type") == "text"]
        if final_answer and content == "":
            continue  # the optional final assistant message may be empty (a prefill)
        if not blocks or "" in texts or (len(texts) == len(blocks) and not any(
                isinstance(text, str) and text.strip() for text in texts)):
            raise InvalidRequest("non-empty", index)
        last = blocks[-1].get("text") if blocks[-1]["type"] == "text" else None
        if final_answer and isinstance(last, str) and last != last.rstrip():
            raise InvalidRequest("final-whitespace", index, dialect=ANTHROPIC)
        if tool_blocks_at is None and any(block["type"] in ("tool_use", "tool_result")
                                          for block in blocks):
            tool_blocks_at = index
        for block in blocks:
            if block["type"] == "tool_use":
                check_call_id(block.get("id"), index, ANTHROPIC)
                check_call_name(block.get("name"), index, ANTHROPIC)
                if not isinstance(block.get("input"), dict):
                    raise InvalidRequest("arguments", index, dialect=ANTHROPIC)
            elif block["type"] == "tool_result":
                if not isinstance(block.get("tool_use_id"), str):
                    raise InvalidRequest("tool-call-id", index, dialect=ANTHROPIC)
                _check_result_blocks(block, index)
            elif block["type"] == "compaction" and block.get("content") == "":
                raise InvalidRequest("non-empty", index, "a compaction block's content")
            elif block["type"] in ("thinking", "redacted_thinking") and any(
                    not isinstance(block.get(key), str) for key in
                    (("thinking", "signature") if block["type"] == "thinking" else ("data",))):
                raise InvalidRequest("reasoning-shape", index, dialect=ANTHROPIC)
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
            raise InvalidRequest("call-id-unique", index, dialect=ANTHROPIC)
        every_use.update(uses)
        previous_uses, previous_at = set(uses), index
    if previous_uses:
        raise InvalidRequest("use-answered", previous_at,
                             f"{len(previous_uses)} tool_use(s) unanswered")
    if tool_blocks_at is not None and not body.get("tools"):  # after the pairs: a trimmer's
        raise InvalidRequest("tools-defined", tool_blocks_at, dialect=ANTHROPIC)  # orphan first
    check_thinking(body, _combined(messages))


def _check_result_blocks(block: dict, index: int) -> None:
    """A tool_result's content: text, or blocks of the types it takes, none blank; and its
    is_error a boolean where given."""
    if "is_error" in block and not isinstance(block["is_error"], bool):
        raise InvalidRequest("is-error", index, dialect=ANTHROPIC)
    content = block.get("content", "")
    if isinstance(content, str):
        return
    if not isinstance(content, list) or any(
            not isinstance(part, dict) or not known(part.get("type"), RESULT_BLOCKS)
            for part in content):
        raise InvalidRequest("result-content", index, dialect=ANTHROPIC)
    if any(part["type"] == "text" and _blank(part.get("text")) for part in content):
        raise InvalidRequest("non-empty", index, "a text block in a tool_result")


def check_thinking(body: dict, turns: list[tuple[int, str, list]]) -> None:
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
                             dialect=ANTHROPIC)


def _marked(block: object) -> bool:
    return isinstance(block, dict) and block.get("cache_control") is not None


def _breakpoint_places(body: dict):
    """Where each ``cache_control`` breakpoint of a body (or of its top-level fields alone)
    is: None at the top level, in a tool or in the system, else its message's index."""
    if body.get("cache_control") is not None:  # automatic caching: one of the four
        yield None
    for entry in body.get("tools") or ():
        if _marked(entry):
            yield None
    system = body.get("system")
    for block in system if isinstance(system, list) else ():
        if _marked(block):
            yield None
    messages = body.get("messages")
    for index, message in enumerate(messages if isinstance(messages, list) else ()):
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if _marked(block):
                yield index
            inner = block.get("content") if isinstance(block, dict) else None
            for nested in inner if isinstance(inner, list) else ():
                if _marked(nested):
                    yield index


def check_breakpoints(body: dict, written: int = 0) -> None:
    """At most 4 ``cache_control`` breakpoints in the whole request (``LIMITS``), counting
    ``written`` more that the writer will add (``cache_breakpoints=True``); the fifth's
    message is named, where it is in one."""
    most = LIMITS["cache_breakpoints"].value
    places = list(_breakpoint_places(body))
    found = len(places) + written
    if found > most:
        ours = f" and {written} cache_breakpoints=True writes" if written else ""
        raise InvalidRequest("cache-breakpoints", places[most] if len(places) > most else None,
                             f"{len(places)}{ours}, at most {most}", dialect=ANTHROPIC,
                             found=found)


def check_thinking_steps(extra: dict, current_steps: tuple) -> None:
    """With thinking on in ``extra``, the last round in progress must hold its thinking, as
    ``check_thinking`` asks of the body's tool loop in progress."""
    thinking = extra.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") not in THINKING_ON:
        return
    rounds = full_rounds(current_steps)
    if rounds and not any(item.dialect == ANTHROPIC for item in rounds[-1].reasoning):
        raise InvalidRequest("thinking-first", detail="the last round of current_steps holds "
                             "no thinking block", dialect=ANTHROPIC)


# --- Its image rule: the vision guide, "Evaluate image size" and "Calculate image costs" -----
# (docs.anthropic.com/en/docs/build-with-claude/vision). An image whose long edge is over
# 1568 px, or that is over about 1,600 tokens, is scaled down (aspect kept) until it is
# within both; then tokens = width x height / 750. The guide's examples: 200x200 about 54,
# 1000x1000 about 1334, 1092x1092 about 1590 (each the quotient rounded up), and the largest
# sizes it does not resize (1092x1092, 951x1268, 896x1344, 819x1456, 784x1568) "use
# approximately 1,600 tokens".
ANTHROPIC_LONG_EDGE = 1568
ANTHROPIC_PIXELS_PER_TOKEN = 750
ANTHROPIC_IMAGE_TOKENS = 1600

# --- Its tool-use system prompt: the tool use guide's pricing section
# (docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview#pricing), in its version that
# lists Claude Opus 4.5. With at least one tool, the API adds a system prompt of this many
# tokens, by model and tool choice: (auto or none, any or tool). Without a `tool_choice` in
# ``extra=``, the API's default, auto, applies. Keyed by model id prefix; any other
# model (the Claude 4 family, Claude Sonnet 3.7, Claude Sonnet 3.5 of October 2024, and any
# name not listed) counts as 346 / 313, the table's figure for those.
ANTHROPIC_TOOL_PROMPT = {
    "claude-3-5-sonnet-20240620": (294, 261),
    "claude-3-5-haiku": (264, 340),
    "claude-3-opus": (530, 281),
    "claude-3-sonnet": (159, 235),
    "claude-3-haiku": (264, 340),
}
ANTHROPIC_TOOL_PROMPT_OTHERS = (346, 313)

# --- Its PDF rule: PDF support, "Estimate your costs"
# (docs.anthropic.com/en/docs/build-with-claude/pdf-support): "Each page typically uses
# 1,500-3,000 tokens per page depending on content density", and each page is also converted
# into an image, counted by the image rule. A page is counted at the top of that text range
# plus the image rule's ceiling (``ANTHROPIC_IMAGE_TOKENS``): an estimate that errs high.
ANTHROPIC_PDF_PAGE_TEXT = 3000
ANTHROPIC_PDF_PAGE_TOKENS = ANTHROPIC_PDF_PAGE_TEXT + ANTHROPIC_IMAGE_TOKENS


def anthropic_image_tokens(width: int, height: int) -> int:
    """An image's tokens by Anthropic's vision guide: within 1568 px on its long edge and
    about 1,600 tokens, then width x height / 750, rounded up."""
    area = Fraction(width * height)
    if max(width, height) > ANTHROPIC_LONG_EDGE:
        area *= Fraction(ANTHROPIC_LONG_EDGE, max(width, height)) ** 2
    return min(math.ceil(area / ANTHROPIC_PIXELS_PER_TOKEN), ANTHROPIC_IMAGE_TOKENS)


def anthropic_tool_prompt(model: str | None, tool_choice: object = None) -> int:
    """The tokens of the system prompt Anthropic adds when tools are given, by the body's
    ``tool_choice`` (None: auto, the API's default; ``{"type": "any"}`` or ``"tool"``: the
    table's second figure)."""
    forced = isinstance(tool_choice, dict) and tool_choice.get("type") in ("any", "tool")
    for prefix in sorted(ANTHROPIC_TOOL_PROMPT, key=len, reverse=True):
        if model is not None and model.startswith(prefix):
            return ANTHROPIC_TOOL_PROMPT[prefix][forced]
    return ANTHROPIC_TOOL_PROMPT_OTHERS[forced]


# What a request's count rests on: Anthropic's tokenizer is not published.
ANTHROPIC_BASIS = ("an estimate: Anthropic's tokenizer is not published, so {tokenizer} and "
                   "OpenAI's message rule stand in; images by Anthropic's width x height / 750 "
                   "rule; PDFs by its PDF guide's figures a page; with tools, Anthropic's "
                   "tool-use system prompt")


class AnthropicMessages(Shape):
    """A round is one assistant message ``[thinking..., server blocks..., text, tool_use...]``
    (its opening in its order, then its calls) and one user message of its ``tool_result``
    blocks; an error result carries ``"is_error": true``. A final round of provider items
    alone is one assistant message (the API takes it and the answer after it as one turn).
    Compaction blocks are one user message before the turns (the messages begin with the
    user's; the API takes it and the first turn's question as one turn, and drops what comes
    before a compaction block). An empty answer is left out (``answer_messages``)."""

    name = ANTHROPIC
    limits, rules, wording, token_basis = LIMITS, RULES, WORDING, ANTHROPIC_BASIS
    fields, written = FIELDS, WRITTEN
    rounds_need_tools = True
    requires_max_tokens = True
    # max_tokens is required: without a reserve of its own a request sends 1024, the value
    # of the Messages API's own examples (docs.anthropic.com, "Messages").
    default_reserve = 1024
    refuses_empty_text = True
    omits_blank_system = True
    arguments_as_text = False
    nests_result_parts = True
    many_images = MANY_IMAGES
    pdf_page_tokens = ANTHROPIC_PDF_PAGE_TOKENS
    cache = CACHE
    takes_cache_breakpoints = True
    written_breakpoints = 2  # the stable prefix's (``with_breakpoints``), the newest turn's

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None, compactions=()):
        # A blank system (None) is left out: Anthropic refuses an empty text block.
        more = sections(facts, evidence, summaries)
        blocks = [self.text(text) for text in (system, *more) if text is not None]
        body = {"model": model, "max_tokens": max_tokens}
        if blocks:
            body["system"] = self.system(system) if not more else blocks
        body["messages"] = [self.user(list(compactions))] if compactions else []
        body["messages"] += messages
        if tools:
            body["tools"] = tools
        return body

    def system(self, text):
        return text

    def with_breakpoints(self, body):
        """``body`` with a cache breakpoint at the end of its stable prefix: on the system's
        last block (without a system, on the last tool). The other, on the newest kept turn,
        is ``breakpoint_on`` its last message."""
        system = body.get("system")
        if system is not None:
            blocks = [self.text(system)] if isinstance(system, str) else list(system)
            body["system"] = blocks[:-1] + [{**blocks[-1], "cache_control": BREAKPOINT}]
        elif body.get("tools"):
            body["tools"] = body["tools"][:-1] + [{**body["tools"][-1],
                                                    "cache_control": BREAKPOINT}]
        return body

    def breakpoint_on(self, message):
        """``message`` with a cache breakpoint on its last content block."""
        content = message["content"]
        blocks = [self.text(content)] if isinstance(content, str) else list(content)
        return {**message, "content": blocks[:-1] + [{**blocks[-1],
                                                       "cache_control": BREAKPOINT}]}

    def section_after_turns(self, text):
        # System text is a top-level field only: after the turns a section is a user message,
        # which the API combines with the question's (consecutive messages of one role are
        # one turn), as its guides place documents in the user's turn.
        return self.user(text)

    def image(self, media_type, data):
        return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                            "data": data}}

    def document(self, media_type, data, filename):
        return {"type": "document", "source": {"type": "base64", "media_type": media_type,
                                               "data": data}}

    def call(self, id, name, arguments, item_id=None):
        return {"type": "tool_use", "id": id, "name": name, "input": arguments}

    def result(self, call_id, content, is_error=False):
        block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
        if is_error:
            block["is_error"] = True
        return block

    def round(self, calls, results, opening=()):
        content = [*opening, *calls]
        messages = [{"role": "assistant", "content": content}] if content else []
        if results:
            messages.append({"role": "user", "content": results})
        return messages

    def tool(self, name, description, schema):
        return {"name": name, "description": description, "input_schema": schema}

    def check(self, body, messages):
        check_anthropic(body, messages)

    def check_fields(self, body):
        check_breakpoints(body)

    def check_options(self, extra, tools, current_steps, cache_marks=0):
        provider_tools = [tool.as_dict for tool in tools if isinstance(tool, ProviderTool)]
        check_breakpoints({**extra, "tools": provider_tools}, cache_marks)
        check_thinking_steps(extra, current_steps)

    def function_tool(self, tool):
        """Custom tools (no type, or ``custom``); a server tool (its own type, with a name)
        passes untouched."""
        kind = tool.get("type")
        if kind not in (None, "custom"):
            if not isinstance(kind, str) or not isinstance(tool.get("name"), str):
                raise InvalidRequest("tools")
            return None
        if not isinstance(tool.get("name"), str) or not isinstance(tool.get("input_schema"),
                                                                   dict):
            raise InvalidRequest("tools")
        return tool["name"], tool["input_schema"]

    def image_data(self, part):
        if part.get("type") != "image":
            return None
        source = part.get("source")
        if isinstance(source, dict) and source.get("type") == "base64":
            return source.get("media_type"), source.get("data")
        return None, None

    def document_data(self, part, index):
        """A base64 ``document`` source: a PDF (another source is not inline), as (media
        type, base64 data)."""
        if part.get("type") != "document":
            return None
        source = part.get("source")
        if not isinstance(source, dict):
            raise InvalidRequest("document", index)
        if source.get("type") != "base64":
            return None
        if source.get("media_type") != PDF:
            raise InvalidRequest("document", index, "a base64 source is a PDF")
        data = source.get("data")
        if not isinstance(data, str):
            raise InvalidRequest("document", index)
        return PDF, data

    def refuse_blank(self, question):
        refuse_empty(question)

    def image_tokens(self, width, height):
        return anthropic_image_tokens(width, height)
