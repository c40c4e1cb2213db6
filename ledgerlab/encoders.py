"""Encoders: how real clients serialize the same request object into different bytes.

- ``"gson"`` (the default): the Java reference's ``JsonElement.toString()``:
  compact, raw UTF-8, with U+2028 and U+2029 escaped.
- ``"httpx"``: httpx 0.28+ ``json=``: compact, raw UTF-8, U+2028/U+2029 left raw.
- ``"requests"``: requests' ``json=``: ``json.dumps`` defaults, ASCII escapes
  and ``", "`` / ``": "`` separators.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring, encode_basestring_ascii
from types import MappingProxyType

from .checks import unknown_name


@dataclass(frozen=True)
class Encoder:
    """How one client turns a request object into bytes."""

    name: str
    ensure_ascii: bool
    item_separator: str
    key_separator: str
    escape_line_separators: bool
    # json's encoder with these settings, made once: json.dumps would make one per call.
    _json: json.JSONEncoder = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_json", json.JSONEncoder(
            ensure_ascii=self.ensure_ascii, allow_nan=False,
            separators=(self.item_separator, self.key_separator)))

    def dumps(self, obj: object) -> bytes:
        """Serialize any JSON value exactly as this client would send it."""
        return self.escape(self._json.encode(obj)).encode("utf-8")

    def quote(self, text: str) -> str:
        """One JSON string literal, quotes included, as ``dumps`` writes it."""
        return self.escape(self.basic_quote(text))

    @property
    def basic_quote(self):
        """json's own C string encoder for this preset, before ``escape``."""
        return encode_basestring_ascii if self.ensure_ascii else encode_basestring

    def escape(self, text: str) -> str:
        """The escapes json.dumps does not make: U+2028/U+2029 for gson.

        They can only occur inside string literals, so a plain replace on
        serialized JSON touches nothing else.
        """
        if self.escape_line_separators and ("\u2028" in text or "\u2029" in text):
            return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        return text


ENCODERS: Mapping[str, Encoder] = MappingProxyType({
    "gson": Encoder("gson", False, ",", ":", True),
    "httpx": Encoder("httpx", False, ",", ":", False),
    "requests": Encoder("requests", True, ", ", ": ", False),
})


def get_encoder(name: str) -> Encoder:
    """The encoder preset called ``name``; ValueError names the known ones."""
    try:
        return ENCODERS[name]
    except (KeyError, TypeError):
        raise unknown_name("encoder", name, ", ".join(sorted(ENCODERS))) from None
