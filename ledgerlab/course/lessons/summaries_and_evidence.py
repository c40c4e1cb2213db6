"""09 · Summaries and evidence: memory with origins, within a budget and deleted with a turn.

The predictions and the quiz, and exercise 10, the smallest budget that sends the evidence, the
summary of turns one and two, and the newest turn. The fixture is the scenario's journal after
the article's step 3 (turns one, two, three),
asked the wide question, with a summary of turns one and two and an evidence item
(``fixtures``). Every answer is computed from ``select`` and a real journal when it is
checked. The exercise is checked against a variant, which ``ledgerlab.course.exercises`` gives
it (``q10``); ``ledgerlab.course.questions`` gathers the predictions and the quiz. How a
question is asked and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

import json
import tempfile
from functools import partial
from pathlib import Path

from ledgerlab import (BudgetError, Evidence, Journal, Summary, byte_breakdown, get_encoder,
                       request_bytes, select)

from .. import fixtures
from ..display import turns as count_turns
from ..feedback import Exercise, Feedback, Question, Questionnaire, as_budget, correct, wrong
from ..syllabus import heading

MEMORY = (fixtures.SCENARIO_SYSTEM, fixtures.MEMORY_HISTORY, fixtures.MEMORY_QUESTION)
# Quiz 09's second evidence item (same source) and second summary (of turn three alone).
TLS_13_EVIDENCE = Evidence("tls-13", "Use TLS 1.3 where possible.", source="docs/java8-clients.md")
LATE_SUMMARY = Summary("late", "The user asked for the next step.", covers=("three",))

# --- What the answers are computed from ------------------------------------------------


def with_memory(budget: int, *, summaries=(fixtures.EARLY_SUMMARY,), **options):
    """select over notebook 09's fixture, the summary offered (with the history's ids)."""
    return select(*MEMORY, budget, summaries=summaries, ids=fixtures.MEMORY_IDS, **options)


def newest_turns_budget(count: int) -> int:
    """The bytes of the request with the newest ``count`` turns and nothing else."""
    system, history, question = MEMORY
    return len(request_bytes(system, history[len(history) - count:], question))


def summary_bytes(summary: Summary = fixtures.EARLY_SUMMARY) -> int:
    """What a summary adds to a request that sends it (its message, separator included)."""
    system, _, question = MEMORY
    return byte_breakdown(system, [], question, summaries=[summary])["summaries"]


def sent_summary_line(summary: Summary = fixtures.EARLY_SUMMARY) -> str:
    """The summary's line as the request carries it, read back from the request."""
    system, _, question = MEMORY
    body = json.loads(request_bytes(system, [], question, summaries=[summary]))
    return body["messages"][1]["content"]


def _message_bytes(content: str) -> int:
    """A system message holding ``content``, as gson writes it, without the comma before it."""
    return len(get_encoder("gson").dumps({"role": "system", "content": content}))


def _summary_mistakes() -> dict[int, str]:
    """What predict09's common miscounts leave out: the message, a separator, the covers."""
    summary, line = fixtures.EARLY_SUMMARY, sent_summary_line()
    covers = line.removesuffix(summary.text)  # '[turns: one, two] '
    return {len(summary.text.encode()): "that is the summary's text alone; the ids of the turns "
            "it covers travel in front of it, and the message around it has bytes of its own.",
            len(line.encode()): "that is the summary's line, its covers included; the system "
            "message that carries it adds its keys, quotes, braces and the comma before it.",
            _message_bytes(line): "count the separators too: a comma joins the summary's "
            "message to the message before it.",
            1 + _message_bytes(summary.text): f"that leaves out the covers: the line starts "
            f"with {covers!r}, the ids of the turns the summary came from."}


def _summaries_after_forget(summaries: tuple[Summary, ...], turn_id: str) -> int:
    """How many of ``summaries`` a journal of notebook 09's turns holds after forget."""
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder) / "conversation.log")
        try:
            for stored_id, turn in fixtures.MEMORY_TURNS:
                journal.commit(stored_id, turn.question, turn.answer)
            for summary in summaries:
                journal.add_summary(summary.id, summary.text, covers=summary.covers)
            journal.forget(turn_id)
            return len(journal.summaries())
        finally:
            journal.close()


def _evidence_bytes(evidence) -> int:
    return with_memory(100_000, summaries=(), evidence=evidence).evidence_bytes


# --- The predictions and the quiz --------------------------------------------------------

predict09 = Question(
    "The summary 'Code ORCHID-17, Java 8 client.' covers turns one and two. How many bytes "
    "does it add to a request that sends it?",
    summary_bytes,
    explanation="the summary travels as a system message of its own: the comma before it, "
                "the message's keys and quotes, then its line, '[turns: one, two] ' + the "
                "text. The ids of the turns it covers are its origins, and they travel too.",
    hint="a summary is a message like a fact's: what does {\"role\":\"system\",\"content\":...} "
         "cost around its line, and what stands in front of the text?",
    mistakes=_summary_mistakes,
)

predict09_room = Question(
    "Give the request room for turns two and three: the narrow request plus turn two. With the "
    "summary of turns one and two offered, how many summaries does select send?",
    lambda: len(with_memory(newest_turns_budget(2)).summary_ids),
    explanation="the budget keeps turns two and three, and the summary covers turn two: select "
                "never sends a summary beside a turn it covers (the model would read turn two "
                "twice, and the budget would pay for it twice). ORCHID-17 is in no kept turn, "
                "so it is out of the request again.",
    hint="which turns does this budget keep, and which turns does the summary cover?",
    mistakes=lambda: {1: "a summary is not a turn that rides along: it stands in for the turns "
                         "it covers. Is every turn it covers dropped at this budget?"},
)

predict09_forget = Question(
    "The journal holds turns one, two and three and the summary of turns one and two. After "
    "journal.forget('one'), how many summaries does it hold?",
    lambda: _summaries_after_forget((fixtures.EARLY_SUMMARY,), "one"),
    explanation="the summary may carry any sentence of any turn it covers (here, ORCHID-17 "
                "from turn one), so forget deletes it with the turn, from the summaries file "
                "too. That turn two is still stored does not keep it.",
    hint="journal.derived_from('one') lists what forget('one') deletes with the turn.",
    mistakes=lambda: {1: "turn two is still stored, but the summary's text may hold what turn "
                         "one said: a summary is deleted with any turn it covers."},
)

quiz09 = Questionnaire(heading(9), [
    Question(f"A summaries budget one byte smaller than the summary needs (max_summary_bytes="
             f"{summary_bytes() - 1}). At the budget that carried ORCHID-17 back (the narrow "
             f"request plus the summary), how many stored turns does select keep?",
             lambda: with_memory(newest_turns_budget(1) + summary_bytes(),
                                 max_summary_bytes=summary_bytes() - 1).kept,
             explanation="the summary does not fit its own budget, so it is not sent; the "
                         "turns fill the rest by the whole-turn rule: turn three fits, turns "
                         "two and three together do not.",
             hint="first decide whether the summary is sent, then which newest turns fit.",
             mistakes=lambda: {0: "a summary over its summaries budget is not sent, so it does "
                                  "not take turn three's room.",
                               2: "that needs room for turns two and three: compare the "
                                  "request that holds both with this budget."}),
    Question("A second summary, 'late', covers turn three alone. The journal stores both "
             "summaries, then forget('one'). How many summaries remain?",
             lambda: _summaries_after_forget((fixtures.EARLY_SUMMARY, LATE_SUMMARY), "one"),
             explanation="forget deletes the summaries that cover the forgotten turn: the "
                         "summary of turns one and two goes, the one of turn three stays.",
             hint="for each summary, ask: does it cover turn one?",
             mistakes=lambda: {2: "the summary of turns one and two covers the forgotten turn.",
                               0: "forget deletes only the summaries that cover the forgotten "
                                  "turn. Which turn does the second one cover?"}),
    Question("A second evidence item from the same source: 'Use TLS 1.3 where possible.', after "
             "the TLS 1.2 note. With room for everything, how many bytes do the two items add "
             "to the request?",
             lambda: _evidence_bytes((fixtures.TLS_EVIDENCE, TLS_13_EVIDENCE)),
             explanation="the evidence shares one system message, one '[source: ...] text' "
                         "line per item: the second item adds its line and the newline before "
                         "it, which JSON writes as \\n (2 bytes), not a message of its own. "
                         "Each line names its source, even when two share it.",
             hint="measure the first item's bytes, then ask what one more line in the same "
                  "message adds.",
             mistakes=lambda: {
                 _evidence_bytes((fixtures.TLS_EVIDENCE,)) + _evidence_bytes((TLS_13_EVIDENCE,)):
                     "that gives each item a message of its own: the evidence shares one "
                     "system message, whose envelope is paid once.",
                 _evidence_bytes((fixtures.TLS_EVIDENCE, TLS_13_EVIDENCE)) - 2:
                     "close: the lines are joined by a newline, which JSON writes as \\n."}),
])


# --- Exercise 10: the smallest budget for the evidence, the summary and the newest turn -----
# An Exercise but the variant it checks against, which ``ledgerlab.course.exercises`` gives
# it (``q10``), as exercises 1 to 5 (``the_boundary_table``). The checker takes that variant,
# ``v``, first: the article's fixture, or a student's own, whose turn two, turn three and
# summary text are their own.

MEMORY_IDS = fixtures.MEMORY_IDS  # the ids of the three turns, as select's ids= takes them
EVIDENCE = fixtures.TLS_EVIDENCE  # the same for every variant: it is not stored in the journal


def summary_figures(v) -> dict[str, int]:
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


def _check_summary_budget(v, summary_budget: object) -> Feedback:
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


EXERCISE10 = partial(
    Exercise, 10, "the smallest budget for the evidence, the summary and the newest turn",
    _check_summary_budget,
    hint="byte_breakdown(..., evidence=[EVIDENCE], summaries=[SUMMARY]) gives what each part "
         "adds; the request is the mandatory input + the evidence + the summary + the kept "
         "turns. Then check that turn two is not kept as well.",
)
