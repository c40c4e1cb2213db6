"""11 · Images, tool loops and reasoning: what a trimmer may not cut from a turn in progress.

The predictions and the quiz, on the article's question answered through a lookup tool
(``fixtures.TOOL_HISTORY``): an image's bytes against its tokens, a tool loop in
progress, and the reasoning a model returns between tool calls. Each asks for a number, not
one of a few words: after one "Not yet", a choice
between two or three words leaves the answer. Every answer is measured from the library
(``select``, ``request_bytes``, ``ledgerlab.course.toolturns``) when it is checked.

Exercise 11, the smallest budget at which ``select`` keeps the stored turn that holds a
Responses reasoning item, is checked against a variant, which ``ledgerlab.course.exercises``
gives it (``q11``). A student's variant has a reasoning item of its own length (its stand-in
``encrypted_content``) and an answer of its own, drawn from the variant's key, so the
article's figure is no one's answer. ``ledgerlab.course.questions`` gathers the predictions
and the quiz; how a question is asked and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

import hashlib
import json
from functools import partial

from ledgerlab import BudgetError, Reasoning, Turn, request_bytes, request_tokens, select

from .. import fixtures, reasoning, toolturns
from ..feedback import (Discussion, Exercise, Feedback, Question, Questionnaire, as_budget,
                        correct, wrong)
from ..reasoning import RESPONSES
from ..syllabus import heading
from ..toolturns import TOOLS

# --- What the answers are computed from ------------------------------------------------

IMAGE_WINDOW = 400  # the token window the photo's request is sent under


def _smallest_budget(current, steps: tuple = ()) -> int:
    """The smallest byte budget at which select sends a request for ``current`` (with the
    rounds ``steps`` in progress): BudgetError names it, one byte below it."""
    try:
        select(fixtures.TOOL_SYSTEM, fixtures.TOOL_HISTORY, current, 1,
               tools=toolturns.TOOLS, current_steps=steps)
    except BudgetError as error:
        return error.mandatory_bytes
    raise AssertionError("a one-byte budget sent a request")


def _photo_budget() -> int:
    """The photo question's smallest budget, after checking that the window is not what binds."""
    question = toolturns.photo_question()
    tokens = request_tokens(fixtures.TOOL_SYSTEM, [], question, tools=toolturns.TOOLS)
    if tokens > IMAGE_WINDOW:
        raise AssertionError("the photo's request no longer fits its token window")
    return _smallest_budget(question)


def _screenshot_tiles(width: int, height: int) -> int:
    return 85 + 170 * (-(-width // 512)) * (-(-height // 512))


# --- The predictions and the quiz --------------------------------------------------------

predict11_image = Question(
    f"The photo travels in the current question, so it is mandatory input. Under a "
    f"{IMAGE_WINDOW}-token window, what is the smallest byte budget at which select sends the "
    f"request?",
    _photo_budget,
    explanation="the window is not what binds: the image's tokens depend on its pixels only "
                "(GPT-4o's tile rule), and the whole request stays inside it. Its bytes do "
                "bind: it travels as base64, 4 bytes for every 3 of the file, with the rest of "
                "the request around it, and no stored turn fits beside it.",
    hint="first the window: does the request's token count fit? Then the bytes: not the "
         "image's file size, but what the body carries, the image as JSON text and the "
         "system message, the tools and the question's text around it.",
    mistakes=lambda: {len(fixtures.photo().data): "that is the file's size, but the file is not "
                      "what goes over the wire: how does JSON carry an image?",
                      len(fixtures.photo().base64): "that is the image's base64 alone: the "
                      "system message, the tools and the question's text travel with it.",
                      request_tokens(fixtures.TOOL_SYSTEM, [], toolturns.photo_question(),
                                     tools=toolturns.TOOLS): "that is the request's tokens; "
                      "the budget asked for is in bytes.",
                      toolturns.image_cost(fixtures.photo()).tokens: "that is the image's "
                      "tokens; the budget asked for is in bytes."},
)

predict11_loop = Question(
    "The loop is in progress: its round (the call and its result) follows the current "
    "question. What is the smallest byte budget at which select sends a request for that "
    "question?",
    lambda: _smallest_budget(fixtures.TOOL_QUESTION, fixtures.LOOP_STEPS),
    explanation="the round is part of the turn in progress, mandatory like the question: "
                "without the result the model would call the tool again, and without the call "
                "the result is an orphan the provider refuses. The stored turns go first; "
                "below that size select raises BudgetError rather than drop the round.",
    hint="which parts can select drop: the stored turns, the round, or both? Is the round "
         "stored history, or part of the question being answered now?",
    mistakes=lambda: {_smallest_budget(fixtures.TOOL_QUESTION): "that sends the question "
                      "without its round, but the round belongs to the question being "
                      "answered: what would the provider say of a result without its call, or "
                      "the model of a call without its result?",
                      len(request_bytes(*toolturns.TOOL_REQUEST, tools=toolturns.TOOLS,
                                        current_steps=fixtures.LOOP_STEPS)): "that sends every "
                      "stored turn too; stored turns can be dropped whole.",
                      len(request_bytes(fixtures.TOOL_SYSTEM, fixtures.TOOL_HISTORY[1:],
                                        fixtures.TOOL_QUESTION, tools=toolturns.TOOLS,
                                        current_steps=fixtures.LOOP_STEPS)): "that keeps turn "
                      "two; stored turns can be dropped whole, the newest too."},
)

def _item_bytes(reasoned) -> int:
    """A reasoning item's own JSON text, as the request carries it, without a comma."""
    return len(reasoned.item.encode())


predict11_reasoning = Question(
    "With thinking on, the loop's assistant message starts with the thinking block the model "
    "returned (fixtures.THINKING_LOOP). How many bytes does the block add to the "
    "anthropic-messages request?",
    lambda: reasoning.reasoning_bytes(reasoning.ANTHROPIC),
    explanation="the whole block travels back as the API returned it: its type, the thinking "
                "text, the signature, the keys and quotes around them, and the comma that "
                "joins it to the tool_use block after it. It is opaque: counted in bytes, "
                "never shortened.",
    hint="build the request with current_steps=fixtures.THINKING_LOOP and with "
         "fixtures.LOOP_STEPS, in anthropic-messages, and compare: everything in the block "
         "travels, not only its text.",
    mistakes=lambda: {
        _item_bytes(fixtures.THINKING): "that is the block alone; in the content array a "
                                        "comma joins it to the tool_use block after it.",
        len(fixtures.THINKING_BLOCK["thinking"].encode()): "that is the thinking text alone; "
        "its signature, its type and the JSON around them travel too.",
        len(fixtures.THINKING_BLOCK["signature"]): "that is the signature alone; the "
        "thinking text travels too, unchanged.",
        0: "with thinking on, the block goes back to the provider: nothing in the loop in "
           "progress may be left out."},
)

quiz11 = Questionnaire(heading(11), [
    Question("The screenshot fixture, fixtures.screenshot(), is 1920x1080. How many tokens is "
             "it by GPT-4o's tile rule?",
             lambda: toolturns.image_cost(fixtures.screenshot()).tokens,
             explanation="it fits 2048x2048 already; then its shortest side is scaled down to "
                         "768 px (1365x768), which covers 3 x 2 tiles: 85 + 6 x 170. Its "
                         "file is small, but pixels, not bytes, decide its tokens.",
             hint="scale down to fit 2048x2048, then so that the shortest side is at most 768, "
                  "then count the 512-px tiles: 85 + 170 per tile.",
             mistakes=lambda: {_screenshot_tiles(1920, 1080): "that counts the tiles of the "
                               "image as sent; the rule scales it down first, so that its "
                               "shortest side is 768 px.",
                               170 * 6: "each image also costs 85 tokens, whatever its tiles.",
                               toolturns.image_cost(fixtures.photo()).tokens: "that is the "
                               "photo's count; this image has more pixels."}),
    Discussion("Why is a tool loop in progress mandatory input, rather than the first thing to "
               "trim?",
               "its round answers the question being asked now: the model needs the result "
               "to go on, a result without its call is refused, and a call without its result "
               "makes the model call again. Stored turns can be dropped whole and brought back "
               "from the ledger later; the round in progress cannot be dropped without "
               "breaking this request. When it does not fit, the honest answer is "
               "BudgetError."),
    Question("The same loop in openai-responses, with its reasoning item "
             "(fixtures.RESPONSES_LOOP): how many bytes does the item add to the request?",
             lambda: reasoning.reasoning_bytes(reasoning.RESPONSES),
             explanation="the item goes back as the API returned it, encrypted_content, id "
                         "and empty summary included, as one more item of input before the "
                         "function_call, joined by a comma. Its size is its own: another "
                         "dialect's reasoning is another object.",
             hint="build the request with current_steps=fixtures.RESPONSES_LOOP and with "
                  "fixtures.LOOP_STEPS, in openai-responses, and compare.",
             mistakes=lambda: {
                 _item_bytes(fixtures.RESPONSES_REASONING): "that is the item alone; in the "
                 "input array a comma joins it to the items around it.",
                 len(fixtures.REASONING_ITEM["encrypted_content"]): "that is the "
                 "encrypted_content alone; the item's type, id, summary and keys travel too.",
                 reasoning.reasoning_bytes(reasoning.ANTHROPIC): "that is the Anthropic "
                 "thinking block's cost: the Responses item is another object, of its own "
                 "size.",
                 0: "the item must travel back with the call it preceded: openai-chat leaves "
                    "reasoning out, openai-responses does not."}),
])


# --- Exercise 11: the smallest budget that keeps the turn with its reasoning ---------------
# An Exercise but the variant it checks against, which ``ledgerlab.course.exercises`` gives
# it (``q11``), as exercises 1 to 5 (``the_boundary_table``). The checker takes that variant,
# ``v``, first.

ANSWERS = ("Ship by Friday: that is the deadline.", "Friday is the deadline: ship then.",
           "Deliver on Friday, the deadline.", "The deadline is Friday: plan the release.",
           "Friday. Book the release for Friday morning.")
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def reasoned(v) -> tuple[str, tuple[Turn, ...], str]:
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


def reasoned_figures(v) -> dict[str, int]:
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


def _check_reasoned_budget(v, reasoned_budget: object) -> Feedback:
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


EXERCISE11 = partial(
    Exercise, 11, "the smallest budget that keeps the turn with its reasoning",
    _check_reasoned_budget,
    hint="select keeps whole turns, newest first: measure the openai-responses request that "
         "holds the newest turn alone (request_bytes with dialect='openai-responses' and "
         "tools=TOOLS), its reasoning item included.",
)
