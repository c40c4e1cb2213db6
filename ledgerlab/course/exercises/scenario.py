"""Exercises 6 and 8, on the projection scenario's turns (notebooks 05 and 08).

A journal whose third line a crash tore (what does opening it leave?), and the smallest
budget for notebook 08's pinned facts, a third one added, and the newest turn.
``ledgerlab.course.exercises`` says how every exercise is checked.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ledgerlab import BudgetError, Journal, request_bytes, select
from ledgerlab.journal import encode_record
from ledgerlab.wire import fact_line

from .. import fixtures
from ..display import turns as count_turns
from ..feedback import (NEGATIVE, Exercise, Feedback, as_budget, as_integral, correct, not_whole,
                        wrong)

TORN_AFTER = 40  # bytes of the third journal line that reached the disk


# --- 6. A torn tail in the journal ---------------------------------------------------

def _scenario_lines() -> list[bytes]:
    return [encode_record(turn_id, turn.question, turn.answer)
            for turn_id, turn in fixtures.SCENARIO_TURNS]


def torn_journal() -> bytes:
    """Journal bytes: the scenario's turns one and two, then a third line torn by a crash."""
    third = encode_record("three", fixtures.NEXT_STEP_QUESTION, fixtures.LOCAL_FIXTURE_REPLY)
    return b"".join(_scenario_lines()) + third[:TORN_AFTER]


def reopened(data: bytes) -> tuple[int, int]:
    """Turns and file bytes after a real Journal opens a file holding ``data``."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "torn.log"
        path.write_bytes(data)
        with Journal(path) as journal:
            return len(journal), path.stat().st_size


def _check_torn(turns_after_open: object, file_bytes_after_open: object) -> Feedback:
    turns, size = as_integral(turns_after_open), as_integral(file_bytes_after_open)
    if turns is None:
        return not_whole(turns_after_open, "turns")
    if size is None:
        return not_whole(file_bytes_after_open, "bytes")
    if turns < 0 or size < 0:
        return wrong(NEGATIVE)
    data = torn_journal()
    kept, good = reopened(data)  # the truth: what a real journal does with the file
    if (turns, size) == (good, kept):
        return wrong("your two answers look swapped: check() takes the turns first, then the "
                     "file's bytes.")
    if turns == 0 or size == 0:
        return wrong("the journal does not refuse this file: the bytes after the last newline "
                     "were never acknowledged, so they are a crash's trace, not corruption.")
    if turns < kept and size == good:
        return wrong(f"{count_turns(turns)}, but your file size keeps more complete lines than "
                     f"that: every complete line (newline included) is an acknowledged turn; "
                     f"only the bytes after the last newline are cut.")
    if turns != kept:
        return wrong(f"{count_turns(turns)}: the last line was cut short, and a line is a turn "
                     f"only if all of it, newline included, reached the disk.")
    if size == len(data):
        return wrong(f"{size} bytes is the file before opening: the journal does not keep the "
                     f"torn tail behind its turns.")
    if size != good:
        return wrong(f"{size} bytes: after open the file holds exactly the complete lines, "
                     f"each with its newline.")
    return correct(f"{kept} turns and {good} bytes: the {len(data) - good}-byte torn tail is "
                   f"cut (and the cut synced); the third turn was never acknowledged.")


q6 = Exercise(
    6, "a torn tail in the journal", _check_torn,
    hint="Write the bytes to a file in a temporary directory (tempfile.TemporaryDirectory) "
         "and open a Journal on it: len(journal) and the file's size afterwards. "
         "ledgerlab.journal.examine(data) shows each line's offset, length and problem.",
)


# --- 8. Notebook 08's exercise: the smallest budget for three pinned facts and a turn -------

PINNED = (fixtures.SCENARIO_SYSTEM, fixtures.SCENARIO_HISTORY, fixtures.NEXT_STEP_QUESTION)
EXERCISE_FACTS = fixtures.PINNED_FACTS + (fixtures.DEADLINE_FACT,)


def _facts_figures() -> dict[str, int]:
    """The right answer and the sums a learner may add up instead."""
    system, history, question = PINNED
    mandatory = len(request_bytes(system, [], question))
    with_newest = len(request_bytes(system, history[-1:], question))
    facts = select(system, history, question, 10**6, facts=EXERCISE_FACTS).fact_bytes
    two_facts = select(system, history, question, 10**6, facts=fixtures.PINNED_FACTS).fact_bytes
    alone = select(system, history, question, 10**6, facts=[fixtures.DEADLINE_FACT]).fact_bytes
    line = len(fact_line(fixtures.DEADLINE_FACT).encode())
    return {"answer": with_newest + facts, "mandatory": mandatory, "facts": facts,
            "newest": with_newest - mandatory, "no_facts": with_newest,
            "two_facts": with_newest + two_facts,
            "no_separator": with_newest + two_facts + line,
            "own_message": with_newest + two_facts + alone,
            "lines_only": with_newest + sum(len(fact_line(f).encode()) for f in EXERCISE_FACTS)}


def _check_facts_budget(facts_budget: object) -> Feedback:
    budget = as_budget(facts_budget)
    if isinstance(budget, Feedback):
        return budget
    f = _facts_figures()
    known = {
        f["no_facts"]: "that is the request with turn two and no fact (notebook 05's narrow "
                       "request). The facts are paid first, out of the same budget.",
        f["two_facts"]: "that makes room for the two facts of section 3; the deadline is a "
                        "third fact, pinned after them, and it costs bytes too.",
        f["no_separator"]: "close: the facts share one message, one line each, and the lines "
                           "are joined by a newline, which JSON writes as \\n (2 bytes).",
        f["own_message"]: "that gives the third fact a message of its own. The facts share "
                          "one system message: its envelope is paid once.",
        f["lines_only"]: "that counts the facts' lines, origins included, but not the system "
                         "message that carries them: its keys, quotes, braces, the comma "
                         "before it and the newlines between the lines.",
    }
    if budget in known:
        return wrong(known[budget])
    try:
        chosen = select(*PINNED, budget, facts=EXERCISE_FACTS)
    except BudgetError:
        return wrong(f"{budget} bytes is below the mandatory input ({f['mandatory']} bytes): "
                     f"select raises BudgetError.")
    if chosen.facts_kept < len(EXERCISE_FACTS) or chosen.kept == 0:
        return wrong(f"at {budget} bytes select keeps {chosen.facts_kept} of "
                     f"{len(EXERCISE_FACTS)} facts and {count_turns(chosen.kept)}: the "
                     f"exercise asks for every fact and the newest turn.")
    if budget > f["answer"]:
        return wrong(f"{budget} bytes keeps every fact and {count_turns(chosen.kept)}, but a "
                     f"smaller budget does too: find the smallest.")
    return correct(f"{budget} = {f['mandatory']} mandatory + {f['facts']} for the three facts "
                   f"+ {f['newest']} for turn two. The facts' bytes are the same whatever "
                   f"turns are kept, so the parts add up; one byte less and turn two is "
                   f"dropped, never a fact.")


q8 = Exercise(
    8, "the smallest budget for three pinned facts and the newest turn", _check_facts_budget,
    hint="select(..., facts=EXERCISE_FACTS) returns fact_bytes, whatever the budget; the "
         "request is the mandatory input + the facts + the kept turns. Measure each part, or "
         "ask what one more fact adds to the facts message.",
)
