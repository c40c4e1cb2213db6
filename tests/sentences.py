"""What a sentence must say, not its wording: its numbers and its names.

A test of a message, a caption or a page asserts ``says(text, 140, "budget", "gson")``
(or ``pytest.raises(..., match=saying("line 2", 140, "corrupt"))``) rather than one English
sentence, so that rewording a message breaks no test while a wrong
number, a missing name or a fact out of place still does. (``tests/`` is on ``sys.path`` as
the directory of the suite's root conftest, so every test directory imports it by name.)
"""

from __future__ import annotations

import re


def _pattern(fact: int | str) -> str:
    """A fact as a whole token: 140 is not found in 1140, 1,140 or 140.5; "turn" is not found
    in "turns"; an int is found written plainly or with thousands commas (4194304, 4,194,304).
    """
    if isinstance(fact, bool) or not isinstance(fact, (int, str)):
        raise TypeError(f"a fact is an int or a str, not {type(fact).__name__}")
    if isinstance(fact, int):
        forms = sorted({str(fact), f"{fact:,}"}, key=len, reverse=True)
        body = "|".join(re.escape(form) for form in forms)
        return rf"(?<![\w.])(?<!\d,)(?:{body})(?![\w])(?![.,]\d)"
    if not fact:
        raise ValueError("a fact may not be empty")
    start = r"(?<!\w)" if fact[0].isalnum() or fact[0] == "_" else ""
    end = r"(?!\w)" if fact[-1].isalnum() or fact[-1] == "_" else ""
    return start + re.escape(fact) + end


def says(text: str, *facts: int | str, in_order: bool = False) -> None:
    """Assert that ``text`` states every fact, each as a whole word or number; with
    ``in_order``, each after the one before it (so that a number stays beside its name:
    ``says(s, "needs", 140, "budget", 139, in_order=True)``)."""
    assert isinstance(text, str), f"says() reads a str, not {type(text).__name__}"
    missing, position = [], 0
    for fact in facts:
        found = re.compile(_pattern(fact)).search(text, position if in_order else 0)
        if found is None:
            missing.append(fact)
        elif in_order:
            position = found.end()
    where = " in this order" if in_order else ""
    assert not missing, f"{missing!r} not said{where} in:\n{text}"


def saying(*facts: int | str) -> str:
    """A pattern for ``pytest.raises(match=...)``: every fact, each a whole word or number, in
    this order."""
    return "(?s)" + ".*?".join(_pattern(fact) for fact in facts)
