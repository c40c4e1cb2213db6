"""01 · Storage vs context: the ledger on disk, the request in a call.

The prediction and the quiz, on the slice fixture (SYSTEM, U1 A1 to U3 A3, U4) and 01's
journal of it: what select writes (nothing), what a commit adds to the file, and what the
next request is built from. How a question is asked and checked is
``ledgerlab.course.feedback``; ``ledgerlab.course.questions`` gathers every lesson's.
"""

from __future__ import annotations

from ledgerlab import encode_record, select

from .. import fixtures
from ..feedback import Discussion, Question, Questionnaire
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------


def _history_after_select() -> int:
    history = list(fixtures.SLICE_HISTORY)
    select(fixtures.SLICE_SYSTEM, history, fixtures.SLICE_QUESTION, 175)
    return len(history)


def _slice_journal_bytes(turns: int) -> int:
    """Bytes of 01's journal (ids t1, t2, ..., turns U1 A1, U2 A2, ...) holding ``turns`` turns."""
    return sum(len(encode_record(f"t{n}", f"U{n}", f"A{n}")) for n in range(1, turns + 1))


def _slice_sent(budget: int, system: str = fixtures.SLICE_SYSTEM) -> int:
    return select(system, fixtures.SLICE_HISTORY, fixtures.SLICE_QUESTION, budget).size


# --- The prediction and the quiz ---------------------------------------------------------

predict01 = Question(
    "A 175-byte request keeps 1 of the 3 stored turns. After select() returns, how many turns "
    "does the ledger (history) hold?",
    _history_after_select,
    explanation="a call to select reads the history and writes nothing: the ledger still "
                "holds every turn, which is why a wider request can send them all again.",
    hint="what does select write? Look at its result: a Selection, not a new history.",
    mistakes=lambda: {1: "1 is how many turns the request keeps. The question is about the "
                         "ledger: does building a request change it?",
                      2: "2 is how many turns the request drops. Were they dropped from the "
                         "request, or from the ledger?",
                      0: "that would mean select moved the turns out of the ledger into the "
                         "request. Does select write to the history it reads?"},
)

quiz01 = Questionnaire(heading(1), [
    Question("The journal of section 'What lives on disk' holds three lines, 366 bytes. A fourth "
             "turn, U4 / A4, is committed under the id t4. How many bytes is the file then?",
             lambda: _slice_journal_bytes(4),
             explanation="the journal only appends: the three lines stay byte for byte, and the "
                         "fourth is as long as each of them (the same sizes of id, question and "
                         "answer).",
             hint="does a commit rewrite the file or add to it? How long is one line?",
             mistakes=lambda: {_slice_journal_bytes(3): "that is the file before the commit: "
                               "every confirmed turn adds a line.",
                               _slice_journal_bytes(1): "that is the new line alone; an "
                               "append-only file keeps the lines before it."}),
    Question("After the 175-byte call, the next call has a 250-byte budget. How many bytes is "
             "its request?",
             lambda: _slice_sent(250),
             explanation="the request is built afresh from the ledger, which still holds all "
                         "three turns: the two newest fit in 250 bytes, the oldest does not.",
             hint="what is the next request built from: the ledger or the last request? The "
                  "chart gives each turn's bytes.",
             mistakes=lambda: {_slice_sent(175): "that is the earlier projection again. The "
                               "next request is built from the ledger, not from the last "
                               "request, and the ledger still holds every turn.",
                               250: "that is the budget: a ceiling, not a target. select sends "
                                    "whole turns only.",
                               _slice_sent(400): "that is the request with all three turns; "
                               "does it fit in 250 bytes?"}),
    Discussion("Why can a turn trimmed from one request come back in the next?",
               "the request is a projection built fresh for each call from the ledger, and "
               "building it never changes the ledger: the trimmed turn is still stored."),
])
