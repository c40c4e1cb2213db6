"""Histories that more than one test file of the journal starts from."""

from __future__ import annotations

SECRET = "PRIVATE-MARKER forget me 接🙂"


def commit_three_turns(path):
    """Commit turns one, secret (whose text is SECRET) and three to the journal at ``path``,
    the history the forget and rewrite tests delete from."""
    from ledgerlab import Journal

    with Journal(path) as journal:
        journal.commit("one", "first question", "first answer")
        journal.commit("secret", SECRET, SECRET + " answer")
        journal.commit("three", "third question", "third answer")
    return path
