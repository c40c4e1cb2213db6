"""The checks every value of a conversation passes when it is made, and the id tags that
name an id in a message without revealing it."""

from __future__ import annotations

import hashlib
import hmac
import os


class InvalidText(ValueError):
    """A text field is not a str, or not valid Unicode (a lone surrogate).

    The message names the field and its length, never its content.
    """


def check_text(value: object, field: str) -> str:
    """Return ``value`` if it is a str that UTF-8 can encode, else raise InvalidText."""
    if not isinstance(value, str):
        raise InvalidText(f"{field} must be str, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        # Java would silently write '?' here; we refuse instead.
        raise InvalidText(
            f"{field} is not valid Unicode: lone surrogate at index {error.start} "
            f"of {len(value)} code points"
        ) from None
    return value


def utf16_units(text: str) -> int:
    """What Java's ``String.length()`` reports: UTF-16 code units, not bytes (a lone
    surrogate is one unit, as in Java)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def unknown_name(kind: str, name: object, known: str) -> ValueError:
    """The error for a ``kind`` name (an encoder's, a dialect's ...) that is none of
    ``known``: it shows a str, cut short, and only the type of anything else (the repr of a
    deeply nested list never ends, and a huge one would fill the screen)."""
    if not isinstance(name, str):
        shown = f"(a {type(name).__name__}, not a str)"
    elif len(name) > _SHOWN_NAME:
        shown = f"{name[:_SHOWN_NAME]!r}... ({len(name)} characters)"
    else:
        shown = repr(name)
    return ValueError(f"unknown {kind} {shown}; known {kind}s: {known}")


_SHOWN_NAME = 40  # characters of an unknown name an error shows


def check_int(value: object, name: str, *, minimum: int) -> int:
    """Return ``value`` if it is an int (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


# Made once per process. An unkeyed hash of an id is reversed by hashing guesses
# (t17, t4242, 2024-05-17 in about 2 s); keyed, a tag found in a log, an error or a
# notebook output names nothing outside the process that printed it.
_TAG_KEY = os.urandom(32)


def id_tag(record_id: str) -> str:
    """A short name for an id that does not reveal it: the same id has the same tag
    within one process (errors, reprs and output can be matched up), and another in
    the next (a tag cannot be checked against guessed ids offline)."""
    digest = hmac.new(_TAG_KEY, record_id.encode("utf-8"), hashlib.sha256).hexdigest()
    return "id#" + digest[:12]


def check_id(record_id: object, field: str = "id") -> str:
    """An id is a non-empty str that UTF-8 can encode."""
    check_text(record_id, field)
    if not record_id:
        raise InvalidText(f"{field} must not be empty")
    return record_id


class InvalidTurn(ValueError):
    """A turn, a tool round, a tool or an image is malformed.

    The message says what is wrong in counts, sizes and id tags, never in text.
    """
