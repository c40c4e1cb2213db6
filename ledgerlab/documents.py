"""Documents in a question: a PDF, its bytes in, its base64 on the wire.

All three dialects take a PDF as base64 inside the body: Anthropic as a ``document``
block, OpenAI Chat as a ``file`` part, the Responses API as an ``input_file`` part
(each dialect's module of ``ledgerlab.dialects`` writes its own). PDF is the one type all
three take that way (OpenAI Chat takes PDF only; Anthropic's base64 ``document`` source is
``application/pdf``), so it is the one ``Document`` accepts. Its limits (pages, request
size) are in each dialect's ``LIMITS`` (``ledgerlab.dialects``).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field

from .checks import InvalidTurn, check_text

# The media types a Document may have, and how each file begins.
DOCUMENT_SIGNATURES = {"application/pdf": b"%PDF-"}
# The name the OpenAI dialects send for a document given without one: both refuse a
# ``file`` or ``input_file`` part of base64 data without a ``filename`` ("Missing required
# parameter"), and Anthropic's ``document`` block has no such field.
DEFAULT_FILENAMES = {"application/pdf": "document.pdf"}


# A page object of a PDF (``/Type /Page``, not the page tree's ``/Pages``), and the page
# tree's count: ISO 32000, 7.7.3. In a compressed object stream neither shows.
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9])")
PAGE_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d{1,9})"
                        rb"|/Count\s+(\d{1,9})[^>]*?/Type\s*/Pages\b")


@dataclass(frozen=True)
class Document:
    """A PDF in a user's question: its media type, its raw bytes, and optionally a file name
    (OpenAI's ``file`` and ``input_file`` parts require one: a document without a name is sent
    there as ``DEFAULT_FILENAMES[media_type]``, ``document.pdf``; Anthropic's ``document``
    block has no such field, so it is not sent there).

    ``data`` that does not begin like a PDF (``%PDF-``) is refused, as the providers refuse
    it. The repr shows sizes only: a document's bytes and name may be private.
    """

    media_type: str
    data: bytes
    filename: str | None = None
    base64: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.media_type not in DOCUMENT_SIGNATURES:
            raise InvalidTurn(f"media_type must be one of {', '.join(DOCUMENT_SIGNATURES)}")
        if not isinstance(self.data, bytes):
            raise TypeError(f"document data must be bytes, not {type(self.data).__name__}")
        if not self.data.startswith(DOCUMENT_SIGNATURES[self.media_type]):
            raise InvalidTurn(f"document data ({len(self.data)} bytes) does not begin like "
                              f"{self.media_type}")
        if self.filename is not None and not check_text(self.filename, "filename").strip():
            raise InvalidTurn("a document's filename, where given, must not be blank")
        object.__setattr__(self, "base64", base64.b64encode(self.data).decode("ascii"))

    @property
    def sent_filename(self) -> str:
        """The name the OpenAI dialects send: its own, else ``DEFAULT_FILENAMES``'."""
        return DEFAULT_FILENAMES[self.media_type] if self.filename is None else self.filename

    @property
    def pages(self) -> int | None:
        """Its page count as the file states it (its page objects, else its page tree's
        ``/Count``), or None where neither can be read (in a compressed object stream, say):
        the token estimate of a PDF is by page."""
        found = len(PAGE_OBJECT.findall(self.data))
        if not found:
            found = max((int(first or second) for first, second
                         in PAGE_COUNT.findall(self.data)), default=0)
        return found or None

    def __repr__(self) -> str:
        name = "" if self.filename is None else f", filename={len(self.filename)} chars"
        return (f"Document({self.media_type}, {len(self.data)} bytes, "
                f"{len(self.base64)} in base64{name})")
