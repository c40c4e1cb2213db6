"""Small helpers for how the course shows results: plain text and counts."""

from __future__ import annotations


class PlainText(str):
    """A str that a notebook shows as itself: no quotes, line breaks kept."""

    def __repr__(self) -> str:
        return str(self)


def turns(count: int) -> str:
    """``'1 turn'``, ``'2 turns'``."""
    return f"{count} turn{'' if count == 1 else 's'}"
