"""Small helpers for how the course shows results: plain text and counts."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby


class PlainText(str):
    """A str that a notebook shows as itself: no quotes, line breaks kept."""

    def __repr__(self) -> str:
        return str(self)


def turns(count: int) -> str:
    """``'1 turn'``, ``'2 turns'``."""
    return f"{count} turn{'' if count == 1 else 's'}"


def facts(count: int) -> str:
    """``'1 fact'``, ``'2 facts'``."""
    return f"{count} fact{'' if count == 1 else 's'}"


def join_labels(labels: Sequence[str]) -> str:
    """``['SYSTEM', 'U3', 'A3', 'U4']`` -> ``'SYSTEM | U3 A3 | U4'``: one group per turn."""
    if not labels:
        return "(nothing)"
    return " | ".join(" ".join(group)
                      for _, group in groupby(labels, key=lambda label: label.lstrip("UA")))
