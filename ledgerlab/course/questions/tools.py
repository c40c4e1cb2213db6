"""Predictions and the quizzes for notebooks 10 and 11: tool turns and two dialects; images, tool
loops and reasoning.

The article's question answered through a lookup tool (``fixtures.TOOL_HISTORY``): what the
message-count slice of it breaks in each dialect, what the tool schemas cost in every request,
the same history in both dialects, an image's bytes against its tokens, and a tool loop in
progress, and the reasoning a model returns between tool calls. Each asks for a number, not one of a few words: after one "Not yet", a choice
between two or three words leaves the answer. Every answer is measured from the library
(``select``, ``request_bytes``, ``ledgerlab.course.toolturns``) when it is checked.
"""

from __future__ import annotations

from ledgerlab import BudgetError, request_bytes, request_tokens, select

from .. import fixtures, reasoning, toolturns
from ..feedback import Discussion, Question, Questionnaire
from ..syllabus import heading

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
