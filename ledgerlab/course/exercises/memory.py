"""Exercise 10, on notebook 09's summary and evidence: the smallest budget that sends the
evidence, the summary of turns one and two, and the newest turn.

The checker is given the variant it checks against first (``variants``: the article's
fixture, or a student's own, whose turn two, turn three and summary text are their own);
``ledgerlab.course.exercises`` says how every exercise is checked.
"""

from __future__ import annotations

import json

from ledgerlab import BudgetError, byte_breakdown, get_encoder, request_bytes, select

from .. import fixtures
from ..display import turns as count_turns
from ..feedback import Exercise, Feedback, as_budget, correct, wrong
from .variants import Variant, active

MEMORY_IDS = fixtures.MEMORY_IDS  # the ids of the three turns, as select's ids= takes them
EVIDENCE = fixtures.TLS_EVIDENCE  # the same for every variant: it is not stored in the journal


def _message_bytes(content: str) -> int:
    """A system message holding ``content``, as gson writes it, without the comma before it."""
    return len(get_encoder("gson").dumps({"role": "system", "content": content}))


def summary_figures(v: Variant) -> dict[str, int]:
    """The right answer and the sums a learner may add up instead."""
    system, history, question = v.memory
    size = lambda turns, **memory: len(request_bytes(system, turns, question, **memory))  # noqa: E731
    mandatory, newest = size([]), size(history[-1:]) - size([])
    parts = byte_breakdown(system, [], question, evidence=[EVIDENCE], summaries=[v.summary])
    evidence, summary = parts["evidence"], parts["summaries"]
    line = json.loads(request_bytes(system, [], question, summaries=[v.summary]))["messages"][1]
    with_turn = mandatory + newest
    return {"answer": with_turn + evidence + summary, "mandatory": mandatory,
            "evidence": evidence, "summary": summary, "newest": newest,
            "no_evidence": with_turn + summary, "no_summary": with_turn + evidence,
            "no_turn": mandatory + evidence + summary,
            "line_only": with_turn + evidence + len(line["content"].encode()),
            "no_covers": with_turn + evidence + 1 + _message_bytes(v.summary.text),
            "two_turns": size(history[-2:], evidence=[EVIDENCE]),
            "every_turn": size(history, evidence=[EVIDENCE])}


def _check_summary_budget(v: Variant, summary_budget: object) -> Feedback:
    budget = as_budget(summary_budget)
    if isinstance(budget, Feedback):
        return budget
    f = summary_figures(v)
    covers = ("a summary never travels beside a turn it covers: at that budget turn two is "
              "kept, so the summary of turns one and two is not sent.")
    known = {
        f["no_evidence"]: "that makes room for the summary and the newest turn; the evidence "
                          "is offered too, and it is paid before the summaries.",
        f["no_summary"]: "that makes room for the evidence and the newest turn; the summary "
                         "needs bytes of its own.",
        f["no_turn"]: "at that budget the evidence and the summary are sent, but the newest "
                      "turn is dropped: they are paid first, and the turn needs room beside "
                      "them.",
        f["line_only"]: "that counts the summary's line, covers included, but not the system "
                        "message that carries it: its keys, quotes, braces and the comma "
                        "before it.",
        f["no_covers"]: "that leaves out the summary's covers: its line starts with the ids of "
                        "the turns it came from, in brackets, and they travel too.",
        f["two_turns"]: covers, f["every_turn"]: covers,
    }
    if budget in known and budget != f["answer"]:  # on a variant a sum may happen to be right
        return wrong(known[budget])
    try:
        chosen = select(*v.memory, budget, evidence=[EVIDENCE], summaries=[v.summary],
                        ids=MEMORY_IDS)
    except BudgetError:
        return wrong(f"{budget} bytes is below the mandatory input ({f['mandatory']} bytes): "
                     f"select raises BudgetError.")
    sent = bool(chosen.summary_ids)
    if chosen.kept > 1:
        return wrong(f"at {budget} bytes select keeps {count_turns(chosen.kept)}, and "
                     f"{covers.split(': ', 1)[0]}: look below this budget.")
    if not (sent and chosen.evidence_kept and chosen.kept == 1):
        return wrong(f"at {budget} bytes select sends {chosen.evidence_kept} of 1 evidence "
                     f"item, {len(chosen.summary_ids)} of 1 summary and "
                     f"{count_turns(chosen.kept)}: the exercise asks for all three.")
    if budget > f["answer"]:
        return wrong(f"{budget} bytes sends the evidence, the summary and the newest turn, but "
                     f"a smaller budget does too: find the smallest.")
    return correct(f"{budget} = {f['mandatory']} mandatory + {f['evidence']} for the evidence + "
                   f"{f['summary']} for the summary + {f['newest']} for turn three. One byte "
                   f"less and turn three is dropped, never the summary; from "
                   f"{f['two_turns']} bytes turns two and three are kept, and the summary, "
                   f"which covers turn two, is not sent.")


q10 = Exercise(
    10, "the smallest budget for the evidence, the summary and the newest turn",
    _check_summary_budget, fixture=active,
    hint="byte_breakdown(..., evidence=[EVIDENCE], summaries=[SUMMARY]) gives what each part "
         "adds; the request is the mandatory input + the evidence + the summary + the kept "
         "turns. Then check that turn two is not kept as well.",
)
