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


def split_steps(rows: Sequence) -> list[str]:
    """Where notebook 08's split (``measures.Split`` rows, None where rejected) changes as
    the budget grows: one phrase per change."""
    steps, last = [], None
    for row in rows:
        if row is None or (row.facts_kept, row.turns_kept) == last:
            continue
        last = row.facts_kept, row.turns_kept
        steps.append(f"from {row.budget}: {facts(row.facts_kept)} ({row.facts} bytes), "
                     f"{turns(row.turns_kept)} ({row.turns} bytes), {row.sent} sent")
    return steps
