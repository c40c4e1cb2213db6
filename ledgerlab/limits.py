"""The providers' documented limits and patterns, as data: one table, each value's source beside it.

``LIMITS[dialect][name]`` is a ``Limit``: its ``value`` (None where the provider documents
none) and its ``source``. ``check_request`` (``ledgerlab.rules``) refuses a body over any of
them, and ``select`` never builds one: a budget above the body limit, or mandatory input over
a limit, is refused (``ProviderLimitError``); a stored turn that would take the request over
a count is dropped like a turn over the budget. MB is 10**6 bytes.

A limit that depends on the model (Anthropic's 600 images for some models, context sizes) is
not here: the value is the one every model of the dialect takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """One documented value and where it is documented (None: the provider documents none)."""

    value: object
    source: str


MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")

LIMITS: dict[str, dict[str, Limit]] = {
    "openai-chat": {
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
    },
    "openai-responses": {
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
    },
    "anthropic-messages": {
        "body_bytes": Limit(32_000_000, "Anthropic API overview: 32 MB on the standard "
                                        "endpoints, else 413 request_too_large"),
        "messages": Limit(100_000, "Anthropic API overview: 100,000 messages per request"),
        "tools": Limit(None, "not documented (names must be unique)"),
        "calls_per_message": Limit(None, "not documented"),
        "images": Limit(100, "Anthropic vision guide: 100 images per request on 200k-context "
                             "models (600 on others; the lower is every model's)"),
        "image_bytes": Limit(None, "not documented beyond the body's 32 MB"),
        "image_side": Limit(8000, "Anthropic vision guide: images over 8000x8000 px are "
                                  "refused"),
        "image_side_many": Limit(2000, "Anthropic vision guide: over 20 images in a request, "
                                       "each at most 2000x2000 px"),
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
    },
}
# Over this many images, Anthropic's smaller side limit applies (its vision guide).
MANY_IMAGES = 20


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
        self.max_messages = limit(dialect, "messages")
        self.images = self.image_bytes = self.longest_side = self.messages = 0

    def add(self, images=(), messages: int = 0) -> None:
        for image in images:
            self.images += 1
            self.image_bytes += len(image.data)
            self.longest_side = max(self.longest_side, image.width, image.height)
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
        if self.side is not None and self.longest_side > self.side:
            return ProviderLimitError(dialect, "image_side", self.longest_side,
                                      "pixels on an image's side")
        if (self.side_many is not None and self.images > MANY_IMAGES
                and self.longest_side > self.side_many):
            return ProviderLimitError(dialect, "image_side_many", self.longest_side,
                                      f"pixels on an image's side with over {MANY_IMAGES} "
                                      f"images")
        return None
