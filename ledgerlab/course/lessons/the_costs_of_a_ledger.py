"""06 · The costs of a ledger: disk growth and its cap, hiding a turn against deleting it.

The prediction and the quiz, on a real journal of the projection scenario's turns: what a
refused commit writes (nothing), how many lines a cap takes, and what a narrow request, forget
and a commit each do to the file. How a question is asked and checked is
``ledgerlab.course.feedback``; ``ledgerlab.course.questions`` gathers every lesson's.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from ledgerlab import Journal, JournalFull, encode_record, select

from .. import fixtures, measures, scenario
from ..feedback import Discussion, Question, Questionnaire
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------

ONE_MORE = ("four", "One more question.", "One more answer.")  # 06's refused, then retained turn


def _capped_file_sizes() -> tuple[int, int]:
    """File bytes of a journal at its 600-byte cap before and after the refused commit."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "capped.log"
        with Journal(path, max_bytes=600) as journal:
            for turn_id, turn in fixtures.SCENARIO_TURNS:
                journal.commit(turn_id, turn.question, turn.answer)
            journal.commit("three", fixtures.NEXT_STEP_QUESTION, fixtures.LOCAL_FIXTURE_REPLY)
            before = path.stat().st_size
            with contextlib.suppress(JournalFull):
                journal.commit(*ONE_MORE)
        return before, path.stat().st_size


def _scenario_lines_under_cap(cap: int) -> int:
    """How many commits of the scenario's first turn a journal capped at ``cap`` accepts."""
    return len(measures.journal_growth(fixtures.SCENARIO_TURNS[0][1], max_bytes=cap)) - 1


def _line(turn_id: str) -> int:
    """The bytes of the scenario's line ``turn_id`` ("one", "two") or of ``ONE_MORE``."""
    turn = dict(fixtures.SCENARIO_TURNS).get(turn_id)
    return len(encode_record(*((turn_id, turn.question, turn.answer) if turn else ONE_MORE)))


def _hidden_deleted_committed() -> int:
    """06's quiz, on a real journal: hide turn one in a request, forget("two"), commit one."""
    with tempfile.TemporaryDirectory() as folder, Journal(path := Path(folder) / "h") as journal:
        for turn_id, turn in fixtures.SCENARIO_TURNS:
            journal.commit(turn_id, turn.question, turn.answer)
        history = journal.history()
        select(fixtures.SCENARIO_SYSTEM, history, fixtures.NEXT_STEP_QUESTION,
               scenario.narrow_budget(history))
        journal.forget("two")
        journal.commit(*ONE_MORE)
        return path.stat().st_size


# --- The prediction and the quiz ---------------------------------------------------------

predict06 = Question(
    "A journal with a 600-byte cap is nearly full; the next commit's line would cross the cap "
    "and is refused. How many bytes of that line reach the file?",
    lambda: (lambda before, after: after - before)(*_capped_file_sizes()),
    explanation="a refused commit writes nothing, not even part of a line: the file is byte for "
                "byte the same.",
    hint="does the journal write what fits and stop, or write nothing?",
    mistakes=lambda: {600 - _capped_file_sizes()[0]: "the journal never writes part of a line "
                      "up to the cap: a partial line would be a torn tail."},
)


quiz06 = Questionnaire(heading(6), [
    Question("With a 1,000-byte cap instead of 4 MiB, how many commits of the scenario's turn "
             "one (170-byte lines) does the journal accept?",
             lambda: _scenario_lines_under_cap(1_000),
             explanation="each commit adds a whole 170-byte line; the one that would cross "
                         "1,000 bytes is refused, and nothing of it is written.",
             hint="add 170 bytes at a time: which commit would cross the cap?",
             mistakes=lambda: {_scenario_lines_under_cap(1_000) + 1: "that rounds up: the "
                               "last of those lines would cross the cap, and the journal never "
                               "writes part of a line.",
                               _line("one"): "that is the size of one line; the "
                               "question asks how many lines fit."}),
    Question(f"Section 4's journal holds turns one (a {_line('one')}-byte line) and two "
             f"({_line('two')} bytes). A narrow request hides turn one; then forget(\"two\") "
             f"runs (not \"one\", as in section 4), and a turn is committed whose line is "
             f"{_line('four')} bytes. How many bytes is the file?",
             _hidden_deleted_committed,
             explanation="the narrow request hid turn one from one request and changed nothing "
                         "on disk; forget removed turn two's line; the commit appended a line. "
                         "Only deletion shrinks the file.",
             hint="which of the three steps writes to the file: the request, forget, the "
                  "commit? Add up the lines left.",
             mistakes=lambda: {_line("four"): "that deletes turn one too: did the narrow "
                               "request write to the file, or build a request from it?",
                               _line("one") + _line("two") + _line("four"): "that keeps turn "
                               "two: forget removes its line from the file.",
                               _line("one"): "that is the file before the commit: a commit "
                               "appends its line."}),
    Discussion("Name two copies of a forgotten turn that forget() cannot reach.",
               "backups and snapshots; blocks a copy-on-write file system or an SSD has "
               "remapped; a request already sent to the provider."),
])
