"""Notebook 08's fixture: the article's scenario with two facts pinned, and a trace search.

The scenario is notebook 05's: turn ``one`` gives the project code, turn ``two``
the Java version, and the next question is "Explain the next step." Each fact
comes from one of those turns, its ``origin``; ORCHID-17 comes first, so it is
the fact kept when only one fits.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path

from ledgerlab import Fact, Journal, article

SYSTEM = article.SCENARIO_SYSTEM
QUESTION = article.NEXT_STEP_QUESTION
HISTORY = tuple(turn for _, turn in article.SCENARIO_TURNS)
FACTS = (
    Fact("project-code", "The project code is ORCHID-17.", origin="one"),
    Fact("java-version", "The client runs on Java 8.", origin="two"),
)
# Exercise 8's third fact, pinned after the two others; and quiz 08's, from turn two.
DEADLINE = Fact("deadline", "The deadline is Friday.", origin="one")
LANGUAGE = Fact("language", "Reply in English.", origin="two")


def pinned_journal(path: str | os.PathLike[str]) -> Journal:
    """A new journal at ``path`` holding the scenario's two turns and ``FACTS``, open."""
    journal = Journal(path)
    for turn_id, turn in article.SCENARIO_TURNS:
        journal.commit(turn_id, turn.question, turn.answer)
    for fact in FACTS:
        journal.pin(fact.id, fact.text, origin=fact.origin)
    return journal


def _decoded_lines(data: bytes) -> list[bytes]:
    """The base64 payload of every line that decodes, whatever record it holds."""
    decoded = []
    for line in data.splitlines():
        try:
            decoded.append(base64.b64decode(line.split(b" ")[0], validate=True))
        except (binascii.Error, ValueError):
            continue
    return decoded


def trace(directory: str | os.PathLike[str], text: str) -> dict[str, bool]:
    """For each file in ``directory``: is ``text`` in its bytes or in any line decoded?

    True or False only, never the text: what a check that a deletion left no trace
    may show. ``text`` is looked for as UTF-8 and as JSON writes it (for ASCII text
    without quotes or backslashes the two are the same).
    """
    needle = text.encode("utf-8")
    found = {}
    for path in sorted(Path(directory).iterdir()):
        if path.is_file():
            data = path.read_bytes()
            found[path.name] = needle in data or any(needle in line
                                                     for line in _decoded_lines(data))
    return found
