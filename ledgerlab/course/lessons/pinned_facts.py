"""08 · Pinned facts: explicit origins and budgets: an early fact kept in every request.

The predictions and the quiz, on the projection scenario with pinned facts (``PINNED``,
``fixtures.PINNED_FACTS``): what a fact costs with its origin, what it leaves of a budget, a
facts cap, a token limit, and what retain deletes with a turn; the explorer's settings
(``FACTS_EXPLORER``); and exercise 8, the smallest budget for three pinned facts and the
newest turn, checked against a variant, which ``ledgerlab.course.exercises`` gives it
(``q8``). ``ledgerlab.course.questions`` gathers the predictions and the quiz. How a question
is asked and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

from ledgerlab import BudgetError, Fact, fact_line, get_encoder, request_bytes, select

from .. import fixtures, scenario
from ..display import turns as count_turns
from ..feedback import (Discussion, Exercise, Feedback, Question, Questionnaire, as_budget,
                        correct, wrong)
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------

PINNED = (fixtures.SCENARIO_SYSTEM, fixtures.SCENARIO_HISTORY, fixtures.NEXT_STEP_QUESTION)
ROOM = 100_000  # a budget that holds every fact and turn of the fixture


def _pinned(budget: int = ROOM, count: int = 1, cap: int | None = None,
            tokens: int | None = None):
    """select over notebook 08's fixture with its first ``count`` facts."""
    return select(*PINNED, budget, facts=fixtures.PINNED_FACTS[:count], max_fact_bytes=cap,
                  max_tokens=tokens)


def _fact_line_bytes(fact: Fact = fixtures.PINNED_FACTS[0]) -> int:
    return len(fact_line(fact).encode())


def _fact_message_bytes(content: str) -> int:
    """A system message holding ``content``, as gson writes it, without the comma before it."""
    return len(get_encoder("gson").dumps({"role": "system", "content": content}))


def _fact_message_mistakes(fact: Fact = fixtures.PINNED_FACTS[0]) -> dict[int, str]:
    """What predict08's common miscounts leave out: a separator, or the origin."""
    line = fact_line(fact)
    origin = line.removesuffix(fact.text)  # '[one] '
    separators = (f"count the separators too: a comma joins the fact's message to the message "
                  f"before it, and a space follows the origin {origin.strip()!r}. Both travel.")
    return {_fact_message_bytes(line): separators,
            _fact_message_bytes(line.replace(origin, origin.strip(), 1)): separators,
            1 + _fact_message_bytes(fact.text): f"that leaves out the origin: the fact's line "
            f"starts with {origin!r}, the id of the turn it came from, and that travels in "
            f"front of the text.",
            _fact_message_bytes(fact.text): f"that is a message holding the text alone: the "
            f"origin {origin!r} travels in front of the text, and a comma joins the message to "
            f"the one before it."}


def _facts_left_after_retain() -> int:
    with tempfile.TemporaryDirectory() as folder:
        with scenario.pinned_journal(Path(folder) / "conversation.log") as journal:
            extra = fixtures.LANGUAGE_FACT
            journal.pin(extra.id, extra.text, origin=extra.origin)
            journal.retain(last=1)
            return len(journal.facts())


# --- The predictions and the quiz --------------------------------------------------------

predict08 = Question(
    "Pin the fact 'The project code is ORCHID-17.' from turn one. How many bytes does it add "
    "to the request, with a budget large enough for everything?",
    lambda: _pinned().fact_bytes,
    explanation="the fact travels as its own system message: the comma before it, the message's "
                "keys and quotes, then the line '[one] ' + the text. The same bytes at every "
                "budget, whatever turns are kept.",
    hint="the fact is a message like the others: what does {\"role\":\"system\",\"content\":...} "
         "cost around its line, and what is in front of the text?",
    mistakes=lambda: {len(fixtures.PINNED_FACTS[0].text.encode()): "that is the fact's text alone; "
                      "its origin is sent too, as '[one] ' in front of it, and the message "
                      "around it has bytes of its own.",
                      _fact_line_bytes(): "that is the fact's line, origin included; the "
                      "system message that carries it adds its keys, quotes, braces and the "
                      "comma before it.",
                      **_fact_message_mistakes()},
)

predict08_turns = Question(
    "The projection scenario's narrow budget (notebook 05's), 264 bytes, kept turn two. With "
    "the fact pinned, how many stored turns does select keep at 264 bytes?",
    lambda: _pinned(scenario.narrow_budget(list(fixtures.SCENARIO_HISTORY))).kept,
    explanation="the facts are paid first: 157 bytes of mandatory input plus the fact leave "
                "less than turn two needs, so no turn fits. The fact is in the request, turn "
                "two is not.",
    hint="add the fact's bytes to the 157 bytes of mandatory input, then see what is left "
         "of 264 for turn two.",
    mistakes=lambda: {1: "turn two fit 264 bytes before the fact was pinned. The fact's bytes "
                         "come out of the same budget, first: is there still room for turn two?",
                      2: "264 bytes never held both turns, even without the fact."},
)

quiz08 = Questionnaire(heading(8), [
    Question("Pin the two facts in the other order, Java 8 first, then ORCHID-17. With a "
             "1,000-byte budget and a 66-byte facts cap, how many facts does select keep?",
             lambda: select(*PINNED, 1_000, facts=fixtures.PINNED_FACTS[::-1],
                            max_fact_bytes=66).facts_kept,
             explanation="the Java 8 fact, now first, needs 63 bytes and fits; adding ORCHID-17 "
                         "would make the facts 101 bytes, over the cap. The order is the "
                         "priority: with it reversed, the other fact is the one kept.",
             hint="the cap holds a prefix of the facts. What does the first one need alone, "
                  "and the first two together?",
             mistakes=lambda: {0: "in section 4 no fact fitted 66 bytes because ORCHID-17 came "
                                  "first. Which fact comes first now, and does it fit?",
                               2: "both facts need 101 bytes together, over the 66-byte cap."}),
    Question("Under a token limit the facts count in tokens too. Both facts pinned, a "
             "1,000-byte budget, max_tokens=60 (o200k_base, nothing reserved for the reply): "
             "how many stored turns does select keep?",
             lambda: _pinned(1_000, 2, tokens=60).kept,
             explanation="1,000 bytes hold everything, but the tokens do not: the mandatory "
                         "input and the two facts are 50 tokens, paid first, and turn two needs "
                         "22 more. The token limit binds.",
             hint="request_tokens counts the request; compare the tokens of the mandatory input "
                  "plus the facts, then plus turn two, with 60.",
             mistakes=lambda: {2: "1,000 bytes hold both turns, but a token limit is a separate "
                                  "limit, and the facts' tokens are paid first.",
                               1: "that fits without the facts; the facts' tokens come out of "
                                  "the same 60, first."}),
    Question("A journal like section 3's (both turns, both facts pinned) gets a third fact "
             "from turn two. Then retain(last=1). How many pinned facts remain?",
             _facts_left_after_retain,
             explanation="with last=1, retain keeps turn two and drops turn one, with every "
                         "fact whose origin is turn one: ORCHID-17 goes, the two facts from turn "
                         "two stay.",
             hint="which turn does retain(last=1) drop, and which facts came from it?",
             mistakes=lambda: {3: "retain deletes the facts whose origin it drops, as forget "
                                  "does.",
                               1: "only the facts whose origin is the dropped turn go. How "
                                  "many of the three came from the turn retain keeps?",
                               0: "retain(last=1) keeps a turn, and the facts taken from the "
                                  "kept turn stay with it."}),
    Discussion("Why does a pinned fact carry the id of the turn it came from?",
               "so that deleting the turn deletes what was taken from it: forget and retain "
               "remove the facts whose origin they remove, and nothing derived from a forgotten "
               "turn stays on disk or in a request. The origin also tells the model, and a "
               "reader of the request, where the fact comes from."),
])


# --- The explorer ------------------------------------------------------------------------
# FactsExplorer's starting point (``ledgerlab.course.widgets`` takes its defaults from here):
# the projection scenario with its two pinned facts, at the narrow budget of notebook 05 (264
# bytes), with no facts cap (None: the cap starts where it keeps every fact), under gson.
FACTS_EXPLORER = {"system": fixtures.SCENARIO_SYSTEM, "history": fixtures.SCENARIO_HISTORY,
                  "current": fixtures.NEXT_STEP_QUESTION, "pinned": fixtures.PINNED_FACTS,
                  "budget": 264, "fact_cap": None, "encoder": "gson"}


# --- Exercise 8: the smallest budget for three pinned facts and the newest turn -------------
# An Exercise but the variant it checks against, which ``ledgerlab.course.exercises`` gives
# it (``q8``), as exercises 1 to 5 (``the_boundary_table``). The checker takes that variant,
# ``v``, first.

def facts_figures(v) -> dict[str, int]:
    """The right answer and the sums a learner may add up instead."""
    system, history, question = v.pinned
    *first, third = v.facts
    mandatory = len(request_bytes(system, [], question))
    with_newest = len(request_bytes(system, history[-1:], question))
    facts = select(system, history, question, 10**6, facts=v.facts).fact_bytes
    two_facts = select(system, history, question, 10**6, facts=first).fact_bytes
    alone = select(system, history, question, 10**6, facts=[third]).fact_bytes
    line = len(fact_line(third).encode())
    return {"answer": with_newest + facts, "mandatory": mandatory, "facts": facts,
            "newest": with_newest - mandatory, "no_facts": with_newest,
            "two_facts": with_newest + two_facts,
            "no_separator": with_newest + two_facts + line,
            "own_message": with_newest + two_facts + alone,
            "lines_only": with_newest + sum(len(fact_line(f).encode()) for f in v.facts)}


def _check_facts_budget(v, facts_budget: object) -> Feedback:
    budget = as_budget(facts_budget)
    if isinstance(budget, Feedback):
        return budget
    f = facts_figures(v)
    known = {
        f["no_facts"]: "that is the request with turn two and no fact (the projection "
                       "scenario's narrow request). The facts are paid first, out of the same "
                       "budget.",
        f["two_facts"]: "that makes room for the two facts of section 3; the last of "
                        "EXERCISE_FACTS is a third, pinned after them, and it costs bytes too.",
        f["no_separator"]: "close: the facts share one message, one line each, and the lines "
                           "are joined by a newline, which JSON writes as \\n (2 bytes).",
        f["own_message"]: "that gives the third fact a message of its own. The facts share "
                          "one system message: its envelope is paid once.",
        f["lines_only"]: "that counts the facts' lines, origins included, but not the system "
                         "message that carries them: its keys, quotes, braces, the comma "
                         "before it and the newlines between the lines.",
    }
    if budget in known and budget != f["answer"]:  # on a variant a sum may happen to be right
        return wrong(known[budget])
    try:
        chosen = select(*v.pinned, budget, facts=v.facts)
    except BudgetError:
        return wrong(f"{budget} bytes is below the mandatory input ({f['mandatory']} bytes): "
                     f"select raises BudgetError.")
    if chosen.facts_kept < len(v.facts) or chosen.kept == 0:
        return wrong(f"at {budget} bytes select keeps {chosen.facts_kept} of "
                     f"{len(v.facts)} facts and {count_turns(chosen.kept)}: the "
                     f"exercise asks for every fact and the newest turn.")
    if budget > f["answer"]:
        return wrong(f"{budget} bytes keeps every fact and {count_turns(chosen.kept)}, but a "
                     f"smaller budget does too: find the smallest.")
    return correct(f"{budget} = {f['mandatory']} mandatory + {f['facts']} for the three facts "
                   f"+ {f['newest']} for turn two. The facts' bytes are the same whatever "
                   f"turns are kept, so the parts add up; one byte less and turn two is "
                   f"dropped, never a fact.")


EXERCISE8 = partial(
    Exercise, 8, "the smallest budget for three pinned facts and the newest turn", _check_facts_budget,
    hint="select(..., facts=EXERCISE_FACTS) returns fact_bytes, whatever the budget; the "
         "request is the mandatory input + the facts + the kept turns. Measure each part, or "
         "ask what one more fact adds to the facts message.",
)
