"""Exercise 11, on notebook 11's reasoning between tool calls: the smallest budget at which
``select`` keeps the stored turn that holds a Responses reasoning item.

The checker is given the variant it checks against first (``variants``). A student's variant
has a reasoning item of its own length (its stand-in ``encrypted_content``) and an answer of
its own, drawn from the variant's key, so the article's figure is no one's answer;
``ledgerlab.course.exercises`` says how every exercise is checked.
"""

from __future__ import annotations

import hashlib
import json

from ledgerlab import BudgetError, Reasoning, Turn, request_bytes, select

from .. import fixtures
from ..feedback import Exercise, Feedback, as_budget, correct, wrong
from ..reasoning import RESPONSES
from ..toolturns import TOOLS
from .variants import Variant, active

ANSWERS = ("Ship by Friday: that is the deadline.", "Friday is the deadline: ship then.",
           "Deliver on Friday, the deadline.", "The deadline is Friday: plan the release.",
           "Friday. Book the release for Friday morning.")
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def reasoned(v: Variant) -> tuple[str, tuple[Turn, ...], str]:
    """The system message, the history whose newest turn holds a reasoning item, and the next
    question, on ``v``: the article's fixture, or one whose reasoning item and answer are the
    student's own."""
    if not v.key:
        return fixtures.TOOL_SYSTEM, fixtures.REASONED_HISTORY, fixtures.REASONED_QUESTION
    draw = hashlib.sha256(f"reasoning:{v.key}".encode()).digest()
    blob = "".join(_BASE64[byte % 64] for byte in hashlib.sha256(draw).digest() * 8)
    length = 120 + int.from_bytes(draw[:2], "big") % 137  # a stand-in of its own length
    item = {**fixtures.REASONING_ITEM, "id": f"rs_{draw.hex()[:32]}",
            "encrypted_content": "gAAAAAB" + blob[:length]}
    # The call's item id is of the same response as the reasoning item's (the API pairs them).
    steps = (Reasoning(item, RESPONSES), *fixtures.loop_steps(f"fc_{draw.hex()[:16]}"
                                                              f"{draw.hex()[32:48]}"))
    turn = Turn(fixtures.TOOL_QUESTION, ANSWERS[draw[2] % len(ANSWERS)], steps=steps)
    return fixtures.TOOL_SYSTEM, (*fixtures.TOOL_HISTORY, turn), fixtures.REASONED_QUESTION


def reasoned_figures(v: Variant) -> dict[str, int]:
    """The right answer and the sizes a learner may measure instead."""
    system, history, question = reasoned(v)
    size = lambda turns, dialect=RESPONSES: len(request_bytes(  # noqa: E731
        system, turns, question, tools=TOOLS, dialect=dialect))
    newest = history[-1]
    bare = Turn(newest.question, newest.answer,
                steps=tuple(step for step in newest.steps if not isinstance(step, Reasoning)))
    item = next(step for step in newest.steps if isinstance(step, Reasoning))
    return {"answer": size(history[-1:]), "mandatory": size([]),
            "no_reasoning": size([bare]), "chat": size(history[-1:], "openai-chat"),
            "two_turns": size(history[-2:]), "every_turn": size(history),
            "item": len(item.item.encode()),
            "blob": len(json.loads(item.item)["encrypted_content"])}


def _check_reasoned_budget(v: Variant, reasoned_budget: object) -> Feedback:
    budget = as_budget(reasoned_budget)
    if isinstance(budget, Feedback):
        return budget
    f = reasoned_figures(v)
    known = {
        f["no_reasoning"]: "that is the turn without its reasoning item, as if a trimmer had "
                           "dropped it; select sends the turn whole, reasoning included.",
        f["chat"]: "that is the openai-chat request, which leaves reasoning out (OpenAI Chat "
                   "has no reasoning items); the exercise's dialect is openai-responses.",
        f["item"]: "that is the reasoning item alone; the system message, the tool, the "
                   "question and the rest of the turn travel with it.",
        f["blob"]: "that is the encrypted_content's length alone: the whole request is what "
                   "the budget measures.",
        f["mandatory"]: "that is the request with no stored turn: the turn that holds the "
                        "reasoning is not sent.",
    }
    if budget in known and budget != f["answer"]:
        return wrong(known[budget])
    try:
        chosen = select(*reasoned(v), budget, tools=TOOLS, dialect=RESPONSES)
    except BudgetError:
        return wrong(f"{budget} bytes is below the mandatory input ({f['mandatory']} bytes): "
                     f"select raises BudgetError.")
    if chosen.kept == 0:
        return wrong(f"at {budget} bytes select keeps no stored turn: the newest, with its "
                     f"reasoning item, does not fit. Measure the request that holds it.")
    if budget > f["answer"]:
        return wrong(f"{budget} bytes keeps the turn with its reasoning, but a smaller budget "
                     f"does too: find the smallest.")
    return correct(f"{budget} bytes: the request with the newest turn whole, its "
                   f"{f['item']}-byte reasoning item included ({f['no_reasoning']} without "
                   f"it, which select never sends). One byte less and the whole turn goes, "
                   f"never its reasoning alone.")


q11 = Exercise(
    11, "the smallest budget that keeps the turn with its reasoning",
    _check_reasoned_budget, fixture=active,
    hint="select keeps whole turns, newest first: measure the openai-responses request that "
         "holds the newest turn alone (request_bytes with dialect='openai-responses' and "
         "tools=TOOLS), its reasoning item included.",
)
