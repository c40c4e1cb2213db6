"""Exercise 8, on the projection scenario's turns (notebook 08): the smallest
budget for notebook 08's pinned facts, a third one added, and the newest turn. The checker
is given the variant it checks against first (``variants``); ``ledgerlab.course.exercises``
says how every exercise is checked.
"""

from __future__ import annotations

from ledgerlab import BudgetError, fact_line, request_bytes, select

from ..display import turns as count_turns
from ..feedback import Exercise, Feedback, as_budget, correct, wrong
from .variants import Variant, active

# --- 8. Notebook 08's exercise: the smallest budget for three pinned facts and a turn -------

def facts_figures(v: Variant) -> dict[str, int]:
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


def _check_facts_budget(v: Variant, facts_budget: object) -> Feedback:
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


q8 = Exercise(
    8, "the smallest budget for three pinned facts and the newest turn", _check_facts_budget,
    fixture=active,
    hint="select(..., facts=EXERCISE_FACTS) returns fact_bytes, whatever the budget; the "
         "request is the mandatory input + the facts + the kept turns. Measure each part, or "
         "ask what one more fact adds to the facts message.",
)
