"""What a dialect is, and what every dialect shares.

A dialect is a ``Shape``: one method per piece of a request, returning that piece as a JSON
object (the body around the messages, a user message and its parts, a document, a tool
call, its result, a round of them with its reasoning and text, the final answer, a tool's
entry); its rules (``check``, and the hooks ``check_request``'s shared checks call); its
documented limits (``limits``, each ``Limit`` with its source); its rules' words (``rules``,
``wording``); and its token rules (``image_tokens``, ``token_basis``). Each dialect's module
(``openai_chat``, ``anthropic``, ``openai_responses``) defines its subclass and its tables;
``ledgerlab.dialects`` registers them (``register``), which fills the tables here that name a
dialect's limits, wording and rules by its name.

Shared by every dialect, here:

- ``Limit``, ``limit``, ``ProviderLimitError``, ``check_budget`` and ``RequestTally``: a
  provider's documented limits, and a request held to them (MB is 10**6 bytes). A limit that
  depends on the model (Anthropic's 600 images for some models, context sizes) is not in a
  table: the value is the one every model of the dialect takes;
- ``RULES`` (the rules more than one dialect has; each dialect adds its own), ``WORDING``,
  ``InvalidRequest`` and the checks of a call's id and a tool's name;
- the body's top-level fields: each dialect's table of the fields its API reference
  documents and their JSON types (``Shape.fields``), the ones its writer writes itself
  (``Shape.written``), and ``check_top_level``, which refuses an unknown field or one of a
  wrong type by name; ``ReservedFieldError`` for ``extra=`` naming a written one;
- ``TokenCount``: a token count that says whether it is exact, and by which rules;
- what every dialect refuses before a body is built (``refuse_for_dialect``,
  ``refuse_reused_ids``); ``ledgerlab.request`` builds the body from the pieces.

A round's ``Reasoning`` and ``ProviderItem`` go, as given, into the requests of their own
dialect and no other, and so does a ``Compaction``; a call id a dialect refuses is written
mapped (``wire_call_id``).
Memory beyond the facts has its own sections, after the facts and
before the turns, in every dialect where the facts go: the evidence (``evidence_line``:
``[source: where] text``), then the summaries (``summary_line``: ``[turns: id, id] text``),
oldest first, so they sit next to the turns they stand for and the order stays
chronological. A request without them is the same bytes as before they existed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..checks import InvalidText, InvalidTurn, check_int, id_tag
from ..images import Image
from ..memory import Compaction, Evidence, Summary
from ..steps import MAPPED_ID_DIGITS, MAPPED_ID_PREFIX, AssistantText, full_rounds
from ..turns import ProviderTool, ToolCall, ToolResult, Turn


@dataclass(frozen=True)
class Limit:
    """One documented value and where it is documented (None: the provider documents none)."""

    value: object
    source: str


@dataclass(frozen=True)
class CacheRate:
    """One model's input price and how its provider bills the cached prefix of a request.

    ``input`` is US dollars per million uncached input tokens; ``read`` a cached token's
    price and each of ``writes`` a written token's, as multiples of ``input``; ``writes`` maps
    each lifetime the provider offers (its name in the API) to ``(seconds, multiple)``, the
    default first. A cached prefix holds a whole number of ``block`` tokens (1: any length)."""

    model: str
    input: float
    read: float
    writes: dict
    block: int = 1


@dataclass(frozen=True)
class PromptCache:
    """How a provider caches requests' prefixes, as its documentation says on ``checked``.

    ``automatic``: every request's prefix is cached (OpenAI); else only up to the
    ``cache_control`` breakpoints a request marks, at most ``breakpoints`` of them
    (Anthropic). ``minimum``: ``(model id prefix, tokens)`` per model family, the fewest
    tokens a cached prefix holds (below it nothing is cached, and no error says so).
    ``rates``: a few named models' prices, a dated snapshot. ``lookback``: how many content
    blocks before a breakpoint the provider looks for an earlier entry (None: not limited)."""

    source: str
    checked: str
    automatic: bool
    minimum: tuple
    rates: tuple
    breakpoints: int | None = None
    lookback: int | None = None

    def rate(self, model: str) -> CacheRate:
        """The price table's row for ``model``; ValueError naming the models it has."""
        for rate in self.rates:
            if rate.model == model:
                return rate
        raise ValueError(f"no cache price for model {model!r}; known: "
                         f"{', '.join(rate.model for rate in self.rates)}")

    def minimum_for(self, model: str) -> int:
        """The fewest tokens a cached prefix holds for ``model`` (its family's, by the
        longest matching prefix; the largest listed for a model of no listed family)."""
        matches = [(len(prefix), tokens) for prefix, tokens in self.minimum
                   if model.startswith(prefix)]
        return max(matches)[1] if matches else max(tokens for _, tokens in self.minimum)


# The image media types all three dialects take (each table gives its own source).
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
PDF = "application/pdf"
DATA_URL = re.compile(r"data:([^;,]*);base64,(.*)", re.DOTALL)


def data_url(url: object) -> tuple[str | None, str | None]:
    """A data URL's (media type, base64 data); (None, None) for another URL or none."""
    found = DATA_URL.fullmatch(url) if isinstance(url, str) else None
    return (found[1], found[2]) if found else (None, None)


class Shape:
    """One dialect: its pieces, its rules, its limits and its token rules. The defaults are
    what the dialects share."""

    name = ""
    # Its documented limits (its ``LIMITS`` entry), the rules only it has (keyed as in
    # ``RULES``), and its provider's own words for a rule where they differ from RULES'.
    limits: dict[str, Limit] = {}
    rules: dict[str, str] = {}
    wording: dict[str, str] = {}
    # What a request's token count in this dialect rests on ({tokenizer}: its name).
    token_basis = ""
    # Where the body holds its conversation.
    conversation_key = "messages"
    # Does the body carry the reply's reserve as a required ``max_tokens``?
    requires_max_tokens = False
    # The reply's reserve when none is given (``RequestOptions.reserve_tokens``).
    default_reserve = 0
    # Does the provider refuse empty or whitespace-only text (``refuse_blank`` refuses it)?
    refuses_empty_text = False
    # Is a blank system left out of the body (where it is a field of its own)?
    omits_blank_system = False
    # Are a call's arguments sent as their JSON text (else as the object, ``call.input``)?
    arguments_as_text = True
    # Does a tool result block hold parts of its own (images and documents checked there too)?
    nests_result_parts = False
    # Over this many images, the limit ``image_side_many`` applies (None: no such rule).
    many_images: int | None = None
    # The body's top-level fields its API reference documents, each with the JSON types it
    # takes (its module's ``FIELDS``, with their source and date); those its writer writes
    # itself, each with what sets it (``extra=`` cannot); the fields that cap the reply,
    # where the writer leaves them to ``extra=`` (held within ``reserve_tokens``).
    fields: dict[str, tuple[str, ...]] = {}
    written: dict[str, str] = {}
    reply_fields: tuple[str, ...] = ()
    # Does a request whose messages hold tool calls or results need a tools array?
    rounds_need_tools = False
    # A PDF page's tokens, an estimate by the provider's documented rule (its text and an
    # image of the page): each dialect's module gives its figure and its source.
    pdf_page_tokens = 0
    # How its provider caches a request's prefix (``PromptCache``), and whether a request
    # marks the cached prefix itself (``cache_breakpoints=True``: ``with_breakpoints`` and
    # ``breakpoint_on``).
    cache: PromptCache | None = None
    takes_cache_breakpoints = False
    written_breakpoints = 0  # how many marks ``cache_breakpoints=True`` writes, at most

    # --- The body's pieces ---------------------------------------------------------------

    def body(self, model, max_tokens, system, facts, messages: list, tools: list,
             evidence=None, summaries=None, compactions=()) -> dict:
        """The whole request: ``facts``, ``evidence`` and ``summaries`` are each section's
        text or None, ``messages`` the conversation after the system's part, ``tools`` the
        tools' entries (none: no key), ``compactions`` this dialect's compaction items
        (``Compaction.as_dict``), sent before the turns they stand for. ``system`` is None
        where ``system_text`` leaves a blank system out."""
        raise NotImplementedError

    def system(self, text) -> object:
        """The system's part of the body (what ``byte_breakdown`` counts as the system)."""
        raise NotImplementedError

    def section_after_turns(self, text) -> dict:
        """A memory section sent after the stored turns, before the current question (the
        evidence, with ``evidence_after_turns``): a message of the conversation, so that
        what changes with each question comes after the bytes the provider has cached."""
        raise NotImplementedError

    def user(self, content) -> dict:
        """A user message: ``content`` is the question's text or its list of parts."""
        return {"role": "user", "content": content}

    def answer(self, text) -> dict:
        """The assistant's final answer of a turn."""
        return {"role": "assistant", "content": text}

    def text(self, text) -> dict:
        """A text part of a question (or of a tool result)."""
        return {"type": "text", "text": text}

    def image(self, media_type, data) -> dict:
        """An image part of a question (or of a tool result); ``data`` is its base64."""
        raise NotImplementedError

    def document(self, media_type, data, filename) -> dict:
        """A document (PDF) part of a question; ``data`` is its base64, ``filename`` the name
        it is sent under (``Document.sent_filename``; a dialect without the field drops it)."""
        raise NotImplementedError

    def call(self, id, name, arguments, item_id=None) -> dict:
        """One tool call; ``arguments`` is ``call.arguments`` or ``call.input`` (see
        ``arguments_as_text``); ``item_id`` the Responses API's own id of the item (None:
        none; only ``openai-responses`` writes it)."""
        raise NotImplementedError

    def said(self, text, item_id=None) -> dict:
        """The assistant's text beside a round's calls, as a piece of its opening."""
        return self.text(text)

    def result(self, call_id, content, is_error=False) -> dict:
        """What a tool returned for one call: ``content`` its text or its list of parts."""
        raise NotImplementedError

    def round(self, calls: list, results: list, opening: Sequence = ()) -> list:
        """The messages (or items) of one round: its opening (this dialect's reasoning and
        provider items as given, and its text as ``said`` writes it, in their order), its
        calls, then its results. A round may have no calls (a final round of provider
        items)."""
        raise NotImplementedError

    def tool(self, name, description, schema) -> dict:
        """A tool's entry in the tools array; ``schema`` is its parameters' object."""
        raise NotImplementedError

    # --- Its rules -----------------------------------------------------------------------

    def check(self, body: dict, messages: list[dict]) -> None:
        """InvalidRequest for the first of this dialect's own rules the body breaks
        (``messages``: its conversation); ``check_request`` then runs the shared checks."""
        raise NotImplementedError

    def function_tool(self, tool: dict) -> tuple[object, object] | None:
        """A function tool's (name, schema) in this dialect's shape; None for a provider's
        own tool type, which passes untouched; InvalidRequest ("tools") for neither."""
        raise NotImplementedError

    def image_data(self, part: dict) -> tuple[str | None, str | None] | None:
        """An image part's (media type, base64 data), (None, None) where its bytes are not
        in the body (a URL, a file id); None for a part that is not an image."""
        raise NotImplementedError

    def document_data(self, part: dict, index: int) -> tuple[str, object] | None:
        """A document part's (media type, base64 data) to check, None where there is none
        (not a document, or not inline); InvalidRequest ("document") for one of a wrong
        shape."""
        raise NotImplementedError

    def refuse_blank(self, question: str | tuple) -> None:
        """InvalidText if the provider refuses a question or a text part this empty (where
        ``refuses_empty_text``); nothing by default."""

    def refuse_rounds(self, rounds: tuple, in_progress: bool, extra: dict) -> None:
        """InvalidTurn for rounds this dialect cannot send as they are beside the request's
        ``extra=`` fields (``in_progress``: the rounds of the turn in progress); nothing by
        default."""

    def check_fields(self, body: dict) -> None:
        """InvalidRequest for the first of this dialect's rules across top-level fields that
        ``body`` breaks (``check_top_level`` has checked each field on its own); ``body`` may
        be a request's top-level fields alone. Nothing by default."""

    def check_options(self, extra: dict, tools: tuple, current_steps: tuple,
                      cache_marks: int = 0) -> None:
        """InvalidRequest for a rule of this dialect that ``extra=`` breaks with what every
        request of these options holds (its tools, the rounds in progress, the ``cache_marks``
        the writer adds with ``cache_breakpoints``), so that no body of it is built. Nothing
        by default."""

    # --- Its token rules -----------------------------------------------------------------

    def image_tokens(self, width: int, height: int) -> int:
        """An image's tokens by this provider's documented rule."""
        raise NotImplementedError


# --- The registry's tables: ``ledgerlab.dialects`` registers each dialect once ------------

SHAPES: dict[str, Shape] = {}
LIMITS: dict[str, dict[str, Limit]] = {}
# Each dialect's own words for a rule, where they differ from RULES' (API error texts
# quoted in issue threads, or the provider's documentation).
WORDING: dict[str, dict[str, str]] = {}
# The rules, keyed: what each asks, in the providers' words where they are known. These are
# the rules of more than one dialect; each dialect's module adds the rules only it has.
RULES = {
    "body": "the body must be one JSON object with a model and a non-empty messages array",
    "role": "each message's role must be one the API knows for its place",
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
    "result-content": "a tool result's content must be text, or the part types the dialect "
                      "takes in a result",
    "document": "a document must be a base64 PDF (application/pdf) of the dialect's shape",
    "pdf-signature": "a PDF's decoded bytes must begin with %PDF-",
    "image-base64": "each image's base64 must be within the provider's per-image limit",
    "unknown-field": "each top-level field must be one the API documents",
    "field-type": "each top-level field must be of a JSON type the API documents for it",
    "document-filename": "a document given as base64 data needs its filename",
    "reasoning-shape": ("a reasoning item must keep the fields the provider returned: a "
                        "thinking block its thinking and signature, a redacted_thinking "
                        "block its data, a reasoning item its id"),
}


def register(shape: Shape) -> None:
    """Name a dialect: its shape, its limits, its wording, and the rules only it has."""
    if shape.name in SHAPES or RULES.keys() & shape.rules.keys():
        raise ValueError(f"{shape.name} is registered, or names a rule already named")
    SHAPES[shape.name] = shape
    LIMITS[shape.name] = shape.limits
    WORDING[shape.name] = shape.wording
    RULES.update(shape.rules)


# --- Limits ------------------------------------------------------------------------------

def limit(dialect: str, name: str) -> object:
    """The value of ``name`` for ``dialect`` (None: not documented)."""
    return LIMITS[dialect][name].value


class ProviderLimitError(ValueError):
    """A request would break a provider's documented limit: ``limit`` names it (a key of
    ``LIMITS``), ``value`` is what the request has, ``allowed`` the provider's value."""

    def __init__(self, dialect: str, name: str, value: int, what: str = "") -> None:
        self.dialect, self.limit, self.value = dialect, name, value
        self.allowed = limit(dialect, name)
        what = what or name.replace("_", " ")
        super().__init__(f"{dialect} allows at most {self.allowed} {what}, got {value} "
                         f"({LIMITS[dialect][name].source})")


def check_budget(dialect: str, budget: int) -> int:
    """``budget`` if the provider's body limit allows it, else ProviderLimitError with both."""
    body = limit(dialect, "body_bytes")
    if body is not None and budget > body:
        raise ProviderLimitError(dialect, "body_bytes", budget,
                                 "bytes in a request body, but the budget asks for")
    return budget


def name_pattern(dialect: str, name: str) -> re.Pattern | None:
    """The compiled pattern ``name`` of ``dialect`` (None: none documented)."""
    pattern = limit(dialect, name)
    return None if pattern is None else _compiled(pattern)


_PATTERNS: dict[str, re.Pattern] = {}


def _compiled(pattern: str) -> re.Pattern:
    if pattern not in _PATTERNS:
        _PATTERNS[pattern] = re.compile(pattern)
    return _PATTERNS[pattern]


class RequestTally:
    """The images and messages a request holds so far, against ``dialect``'s limits.

    ``add`` counts more; ``within`` says whether every limit still holds. Counts only grow,
    so once a limit breaks, more of the same cannot mend it."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.max_images, self.max_image_bytes = limit(dialect, "images"), limit(dialect,
                                                                             "image_bytes")
        self.side, self.side_many = limit(dialect, "image_side"), limit(dialect,
                                                                        "image_side_many")
        self.many = SHAPES[dialect].many_images
        self.max_messages = limit(dialect, "messages")
        self.max_base64 = limit(dialect, "image_base64")
        self.images = self.image_bytes = self.longest_side = self.messages = 0
        self.largest_base64 = 0

    def plus(self, images=(), messages: int = 0) -> RequestTally:
        """A new tally: this one's counts and these (this one is unchanged)."""
        more = object.__new__(RequestTally)
        more.__dict__.update(self.__dict__)
        more.add(images, messages)
        return more

    def add(self, images=(), messages: int = 0) -> None:
        for image in images:
            self.images += 1
            self.image_bytes += len(image.data)
            self.longest_side = max(self.longest_side, image.width, image.height)
            self.largest_base64 = max(self.largest_base64, len(image.base64))
        self.messages += messages

    def broken(self) -> ProviderLimitError | None:
        """The first limit the counts break, as the error to raise; None if none."""
        dialect = self.dialect
        if self.max_messages is not None and self.messages > self.max_messages:
            return ProviderLimitError(dialect, "messages", self.messages, "messages")
        if self.max_images is not None and self.images > self.max_images:
            return ProviderLimitError(dialect, "images", self.images, "images")
        if self.max_image_bytes is not None and self.image_bytes > self.max_image_bytes:
            return ProviderLimitError(dialect, "image_bytes", self.image_bytes,
                                      "bytes of images")
        if self.max_base64 is not None and self.largest_base64 > self.max_base64:
            return ProviderLimitError(dialect, "image_base64", self.largest_base64,
                                      "characters of base64 in one image")
        if self.side is not None and self.longest_side > self.side:
            return ProviderLimitError(dialect, "image_side", self.longest_side,
                                      "pixels on an image's side")
        if (self.side_many is not None and self.images > self.many
                and self.longest_side > self.side_many):
            return ProviderLimitError(dialect, "image_side_many", self.longest_side,
                                      f"pixels on an image's side with over {self.many} "
                                      f"images")
        return None


# --- Rules -------------------------------------------------------------------------------

class InvalidRequest(ValueError):
    """A request body breaks a provider's rule: ``rule`` is its key in RULES, ``index``
    the message at fault (or the tool, for a tool's rule; None when the fault is not in
    one), ``wording`` the provider's own words for it, ``field`` the top-level field at
    fault (None when it is not one field).

    ``fill`` completes the wording's blanks (``{field}``, a number found): names and
    numbers only, never a value of the request."""

    def __init__(self, rule: str, index: int | None = None, detail: str = "",
                 dialect: str | None = None, item: str = "message", **fill: object) -> None:
        self.rule, self.index, self.field = rule, index, fill.get("field")
        self.wording = WORDING.get(dialect, {}).get(rule, RULES[rule])
        if fill:
            self.wording = self.wording.format_map(fill)
        where = "" if index is None else f" ({item} {index})"
        more = f"; {detail}" if detail else ""
        words = "" if self.wording == RULES[rule] else f" (the API: {self.wording})"
        super().__init__(f"{rule}{where}: {RULES[rule]}{words}{more}")


def known(kind: object, kinds: set[str]) -> bool:
    return isinstance(kind, str) and kind in kinds


def check_call_id(call_id: object, index: int, dialect: str) -> None:
    """The id of a call: present, a string, of the dialect's pattern and length."""
    if not isinstance(call_id, str) or not call_id:
        raise InvalidRequest("call-id", index, dialect=dialect)
    pattern, length = name_pattern(dialect, "call_id_pattern"), limit(dialect, "call_id_length")
    if pattern is not None and not pattern.fullmatch(call_id):
        raise InvalidRequest("call-id-pattern", index, dialect=dialect)
    if length is not None and len(call_id) > length:
        raise InvalidRequest("call-id-length", index, f"{len(call_id)} characters",
                             dialect=dialect)


def check_call_name(name: object, index: int | None, dialect: str,
                    item: str = "message") -> None:
    if not isinstance(name, str) or not name_pattern(dialect, "tool_name").fullmatch(name):
        raise InvalidRequest("tool-name", index, dialect=dialect, item=item)


# --- The body's top-level fields ----------------------------------------------------------

class ReservedFieldError(ValueError):
    """``extra=`` names a top-level field the body's writer writes itself (``field``), which
    it cannot override: the option or argument that sets it is named."""

    def __init__(self, dialect: str, field: str, written_by: str) -> None:
        self.dialect, self.field, self.written_by = dialect, field, written_by
        super().__init__(f"extra cannot set {field!r}: the {dialect} body's writer writes "
                         f"it, from {written_by}")


def json_type(value: object) -> str:
    """The JSON type of a parsed JSON value: object, array, string, integer, number,
    boolean or null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    for kind, name in ((int, "integer"), (float, "number"), (str, "string"), (list, "array")):
        if isinstance(value, kind):
            return name
    return "object"


def check_top_level(shape: Shape, fields: dict) -> None:
    """InvalidRequest for the first top-level field (of a body, or of ``extra=``) that the
    dialect's API reference does not document ("unknown-field"), or whose JSON type it does
    not take ("field-type"; an integer is a number), each named in the provider's words;
    then the dialect's rules across fields (``Shape.check_fields``)."""
    for name, value in fields.items():
        kinds = shape.fields.get(name)
        if kinds is None:
            raise InvalidRequest("unknown-field", detail=f"field {name!r}", dialect=shape.name,
                                 field=name)
        kind = json_type(value)
        if kind not in kinds and not (kind == "integer" and "number" in kinds):
            expected = " or ".join(kinds)
            raise InvalidRequest("field-type", detail=f"field {name!r} is {kind}, not "
                                 f"{expected}", dialect=shape.name, field=name,
                                 expected=expected, got=kind)
    shape.check_fields(fields)


# --- Token counts ------------------------------------------------------------------------

class TokenCount(int):
    """A token count: an ``int`` that says whether it is ``exact`` and its ``basis``, the
    rules it was counted by. Its repr is the number's, so it prints as before.

    Only a text's own tokens under a tiktoken encoding are exact (``text_tokens``); every
    count of a request is an estimate, because each provider says its own rules are: OpenAI's
    cookbook ("How to count tokens with tiktoken") checks its message rule against the API
    and still calls its counts "an estimate, not a timeless guarantee"; Anthropic's
    tokenizer is not published, and its guides give image and tool figures as
    approximations."""

    exact: bool
    basis: str

    def __new__(cls, value: int, *, exact: bool, basis: str) -> TokenCount:
        # A count is a whole number: int() would turn 2.5 into 2 and infinity into an
        # OverflowError.
        check_int(value, "value", minimum=0)
        if not isinstance(exact, bool):
            raise TypeError(f"exact must be a bool, not {type(exact).__name__}")
        if not isinstance(basis, str):
            raise TypeError(f"basis must be a str, not {type(basis).__name__}")
        count = super().__new__(cls, value)
        count.exact, count.basis = exact, basis
        return count

    def __getnewargs_ex__(self):  # copy and pickle keep the label
        return (int(self),), {"exact": self.exact, "basis": self.basis}


# --- A request's messages, built from a shape's pieces -------------------------------------

def sections(*texts) -> list:
    """The sections after the system's part that a request has (each text, or None: none)."""
    return [text for text in texts if text is not None]


def evidence_line(evidence: Evidence) -> str:
    """How one evidence item reads in its section: its source, then its text."""
    return f"[source: {evidence.source}] {evidence.text}"


def summary_line(summary: Summary) -> str:
    """How one summary reads in its section: the ids of the turns it covers, then its text."""
    return f"[turns: {', '.join(summary.covers)}] {summary.text}"


def lines_content(lines) -> str:
    """A section's text: its lines joined by newlines (as the facts' are)."""
    return "\n".join(lines)


def system_text(shape: Shape, system: str) -> str | None:
    """The system as the body carries it: None (left out) where the dialect leaves a blank
    system out (Anthropic refuses empty text; the Responses API's instructions are
    optional) and it is empty or only whitespace."""
    return None if shape.omits_blank_system and not system.strip() else system


def tool_entry(shape: Shape, tool) -> dict:
    """A tool's entry in the tools array: a ProviderTool's own, else the shape's."""
    if isinstance(tool, ProviderTool):
        return tool.as_dict
    return shape.tool(tool.name, tool.description, tool.schema)


def refuse_for_dialect(dialect: str, steps: tuple = (), tools: tuple = (),
                       rounds: tuple | None = None, in_progress: bool = True,
                       extra: dict | None = None) -> None:
    """InvalidTurn if a call or a tool breaks a rule of ``dialect`` (its ``LIMITS``: its
    tool name pattern, calls per message, tools per request, a provider tool of another
    dialect; the dialect's own ``refuse_rounds``) or a result holds what the dialect does
    not take (a blank text part where text must not be blank), so that no body of it is
    built. A call id the dialect's pattern or length refuses is not refused: it is written
    as ``wire_call_id`` maps it. ``rounds`` are the steps' ``full_rounds`` where the caller
    has them; ``in_progress``: they are the turn in progress's; ``extra`` the request's
    checked ``extra=`` fields (None: none), which may change the rules (the Responses API's
    ``store``)."""
    shape = SHAPES[dialect]
    if shape.refuses_empty_text:
        for step in steps:
            if type(step) is ToolResult and type(step.content) is tuple:
                shape.refuse_blank(step.content)
    names, most_calls = name_pattern(dialect, "tool_name"), limit(dialect, "calls_per_message")
    rounds = full_rounds(steps) if rounds is None else rounds
    shape.refuse_rounds(rounds, in_progress, extra or {})
    for round_ in rounds:
        calls = round_.calls
        if most_calls is not None and len(calls) > most_calls:
            raise ProviderLimitError(dialect, "calls_per_message", len(calls),
                                     "tool calls in one message")
        for call in calls:
            if not names.fullmatch(call.name):
                raise InvalidTurn(f"{dialect} refuses a tool name of {len(call.name)} "
                                  f"characters: it must match ^{names.pattern}$")
    most_tools = limit(dialect, "tools")
    if most_tools is not None and len(tools) > most_tools:
        raise ProviderLimitError(dialect, "tools", len(tools), "tools in a request")
    for tool in tools:
        if isinstance(tool, ProviderTool):
            if tool.dialect != dialect:
                raise InvalidTurn(f"a provider tool of {tool.dialect} cannot go in a "
                                  f"{dialect} request")
        elif not names.fullmatch(tool.name):
            raise InvalidTurn(f"{dialect} refuses a tool name of {len(tool.name)} "
                              f"characters: it must match ^{names.pattern}$")


def message_count(shape: Shape, turn: Turn | None = None, steps: tuple = ()) -> int:
    """How many messages a turn (its question, rounds and answer), or a current question
    and its rounds ``steps``, puts in the dialect's messages array."""
    rounds = full_rounds(steps) if turn is None else turn.full_rounds
    answer = 0 if turn is None else len(answer_messages(shape, turn.answer))
    return 1 + len(round_messages(shape, rounds)) + answer


def turn_name(turn: Turn) -> str:
    """A stored turn as an error names it: its id's tag (a turn made by hand has none)."""
    return "a stored turn without an id" if turn.id is None else f"turn {id_tag(turn.id)}"


def refuse_reused_ids(dialect: str, turns: Sequence[Turn], current_steps: tuple) -> None:
    """InvalidTurn if ``dialect`` wants each call id once in a request and two of the turns
    (or a turn and the rounds in progress) share one, as written (``wire_call_id``)."""
    if not limit(dialect, "call_ids_unique"):
        return
    shape = SHAPES[dialect]
    seen = {wire_call_id(shape, step.id) for step in current_steps if isinstance(step, ToolCall)}
    for turn in turns:
        for step in turn.steps:
            if isinstance(step, ToolCall):
                wire = wire_call_id(shape, step.id)
                if wire in seen:
                    raise InvalidTurn(f"{dialect} refuses call id {id_tag(step.id)} of "
                                      f"{turn_name(turn)}: another turn of the request, or "
                                      f"the turn in progress, uses it too")
                seen.add(wire)


# --- Call ids across providers ------------------------------------------------------------

_ID_RULES: dict[str, tuple] = {}


def wire_call_id(shape: Shape, call_id: str) -> str:
    """A call's id as ``shape``'s dialect writes it: the id itself where the dialect's pattern
    and length take it, else ``call_`` and the first 32 hex digits of the SHA-256 of its UTF-8
    (a history recorded with another provider: ``functions.x:0`` in Anthropic's dialect, an id
    over 40 characters in OpenAI Chat). The same for a call and its result, and the same in
    every request (it depends on the id alone); 37 characters of ``[a-z0-9_]``, which every
    dialect's pattern and length take."""
    rule = _ID_RULES.get(shape.name)
    if rule is None:  # read once per dialect: every call and result of a request asks
        rule = _ID_RULES[shape.name] = (name_pattern(shape.name, "call_id_pattern"),
                                        limit(shape.name, "call_id_length"))
    pattern, length = rule
    if (pattern is None or pattern.fullmatch(call_id)) and (length is None
                                                           or len(call_id) <= length):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()
    return MAPPED_ID_PREFIX + digest[:MAPPED_ID_DIGITS]


# --- A round's pieces, as every dialect builds them --------------------------------------

def arguments(shape: Shape, call: ToolCall) -> object:
    """A call's arguments as the dialect sends them: the JSON text or the object."""
    return call.arguments if shape.arguments_as_text else call.input


def question_content(shape: Shape, question: str | tuple) -> object:
    """A question (or a result's content) as a message's content: its text, or its parts as
    content blocks."""
    if isinstance(question, str):
        return question
    return [part_piece(shape, part) for part in question]


def part_piece(shape: Shape, part) -> dict:
    """A part of a question or of a result: a text, an image or a document."""
    if isinstance(part, str):
        return shape.text(part)
    if isinstance(part, Image):
        return shape.image(part.media_type, part.base64)
    return shape.document(part.media_type, part.base64, part.sent_filename)


def opening_pieces(shape: Shape, opening: tuple) -> list[dict]:
    """A round's opening as the dialect writes it: its own reasoning and provider items as
    given (another dialect's are left out), its text as ``said``."""
    pieces = []
    for step in opening:
        if isinstance(step, AssistantText):
            pieces.append(shape.said(step.text, step.item_id))
        elif step.dialect == shape.name:
            pieces.append(step.as_dict)
    return pieces


def round_messages(shape: Shape, rounds: tuple) -> list[dict]:
    """The messages of tool rounds (``Round``s): each round's opening, its calls (their ids
    as ``wire_call_id`` writes them), then the results that answer them."""
    messages = []
    for round_ in rounds:
        messages.extend(shape.round(
            [shape.call(wire_call_id(shape, call.id), call.name, arguments(shape, call),
                        call.item_id) for call in round_.calls],
            [shape.result(wire_call_id(shape, answer.call_id),
                          question_content(shape, answer.content), answer.is_error)
             for answer in round_.results],
            opening_pieces(shape, round_.opening)))
    return messages


def answer_messages(shape: Shape, answer: str) -> list[dict]:
    """A stored turn's final answer as the dialect writes it: its message, or none where the
    dialect refuses empty text and the answer has none (Anthropic documents an empty
    ``end_turn`` answer after tool results; its API takes consecutive messages of one role
    as one turn, so the answer is left out rather than refused)."""
    if shape.refuses_empty_text and not answer.strip():
        return []
    return [shape.answer(answer)]


def turn_messages(shape: Shape, turn: Turn, extra: dict | None = None) -> list[dict]:
    """A stored turn's messages: its question, its tool rounds, its answer (checked against
    the dialect's rules beside the request's ``extra=`` fields first, so that no body of a
    turn it refuses is built; the error names the turn)."""
    if not isinstance(turn, Turn):
        raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
    try:
        if shape.refuses_empty_text:
            shape.refuse_blank(turn.question)
        rounds = ()
        if turn.steps:
            rounds = turn.full_rounds
            refuse_for_dialect(shape.name, turn.steps, rounds=rounds, in_progress=False,
                               extra=extra)
    except (InvalidText, InvalidTurn) as error:
        raise type(error)(f"{turn_name(turn)}: {error}") from None
    return [shape.user(question_content(shape, turn.question)),
            *round_messages(shape, rounds), *answer_messages(shape, turn.answer)]


def compaction_pieces(shape: Shape, summaries: Sequence) -> list[dict]:
    """The compaction items among ``summaries`` that ``shape``'s dialect sends, as given."""
    return [item.as_dict for item in summaries
            if isinstance(item, Compaction) and item.dialect == shape.name]


def sent_in(shape: Shape, item: object) -> bool:
    """Does a request in ``shape``'s dialect send this memory item: a Summary, or a
    Compaction of this dialect (another's is left out)?"""
    return not isinstance(item, Compaction) or item.dialect == shape.name


def refuse_rounds_without_tools(dialect: str, turns: Sequence[Turn], current_steps: tuple,
                                tools: tuple) -> None:
    """InvalidTurn if ``dialect`` wants a tools array beside tool calls and results, and a
    request without tools would hold a kept turn's rounds or rounds in progress."""
    shape = SHAPES[dialect]
    if not shape.rounds_need_tools or tools:
        return
    for number, steps in enumerate([*(turn.steps for turn in turns), current_steps]):
        if any(isinstance(step, ToolCall) for step in steps):
            where = ("the rounds in progress" if number == len(turns)
                     else f"kept turn {number}, 0 the oldest kept")
            raise InvalidTurn(f"{dialect} refuses tool calls and results in a request "
                              f"without tools ({where}): pass the tools, with "
                              f"extra={{'tool_choice': {{'type': 'none'}}}} to keep the "
                              f"model from calling them")


def max_tokens_field(shape: Shape, reserve_tokens: int) -> int | None:
    """The body's ``max_tokens`` where the dialect requires it (the reply's reserve), else None."""
    if not shape.requires_max_tokens:
        return None
    if reserve_tokens < 1:
        raise ValueError(f"{shape.name} needs reserve_tokens of at least 1: it is the "
                         f"body's required max_tokens, the tokens kept for the reply")
    return reserve_tokens
