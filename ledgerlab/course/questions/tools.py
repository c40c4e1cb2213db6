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

from ledgerlab import (BudgetError, get_encoder, request_bytes, request_tokens, select,
                       tool_tokens)

from .. import fixtures, reasoning, toolturns
from ..feedback import Discussion, Question, Questionnaire
from ..syllabus import heading

SLICE_BUDGET = 700  # the notebook's budget: the message-count slice keeps 5 messages
IMAGE_WINDOW = 400  # the token window the photo's request is sent under
ANTHROPIC = "anthropic-messages"


def _forced_bytes() -> int:
    """The tool request with both turns and the application's tool_choice."""
    return len(request_bytes(*toolturns.TOOL_REQUEST, tools=toolturns.TOOLS,
                             extra=toolturns.FORCE_LOOKUP))


def _value_bytes() -> int:
    """tool_choice's value alone, as the wire writes it."""
    return len(get_encoder("gson").dumps(toolturns.FORCE_LOOKUP["tool_choice"]))


def _sliced_count() -> int:
    return toolturns.count_slice_under(*toolturns.TOOL_REQUEST, SLICE_BUDGET)[0]


def _openai_slice() -> bytes:
    return toolturns.count_slice_under(*toolturns.TOOL_REQUEST, SLICE_BUDGET)[1]


def _drops_until_accepted(dialect: str = "openai-chat") -> int:
    """How many messages must go from the front of the slice before check_request accepts it."""
    last = _sliced_count()
    for dropped in range(last + 1):
        payload = toolturns.count_sliced(*toolturns.TOOL_REQUEST, last - dropped,
                                         dialect=dialect)
        if toolturns.fault(payload, dialect) is None:
            return dropped
    raise AssertionError("even the system message alone is refused")


def _until_next_user() -> int:
    """The drop the whole-turn rule would make: to the next user message."""
    labels = toolturns.tool_labels(fixtures.TOOL_HISTORY)[-_sliced_count():]
    return next(i for i, label in enumerate(labels) if label.startswith("U"))


def _tool_entry_bytes() -> int:
    """The tool's entry in the array, alone, as gson writes it."""
    entry = toolturns.body(*toolturns.TOOL_REQUEST)["tools"][0]
    return len(get_encoder("gson").dumps(entry))


def _dialect_bytes(dialect: str, *, reserve: int = toolturns.RESERVE,
                   tools=toolturns.TOOLS) -> int:
    """The full tool request's size in ``dialect``, with the lesson's reply reserve."""
    return len(request_bytes(*toolturns.TOOL_REQUEST, tools=tools, dialect=dialect,
                             reserve_tokens=reserve))


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


def _anthropic_slices() -> list[bytes]:
    """The message-count slice in anthropic-messages (the newest 5 messages), then each slice
    one message shorter from the front, down to the current question alone."""
    last = _sliced_count()
    return [toolturns.count_sliced(*toolturns.TOOL_REQUEST, count, dialect=ANTHROPIC)
            for count in range(last, 0, -1)]


def _anthropic_accepted_bytes() -> int:
    """The size of the longest of those slices that check_request accepts."""
    return next(len(payload) for payload in _anthropic_slices()
                if toolturns.fault(payload, ANTHROPIC) is None)


def _screenshot_tiles(width: int, height: int) -> int:
    return 85 + 170 * (-(-width // 512)) * (-(-height // 512))


TWO_TOOLS = (fixtures.LOOKUP_TOOL, fixtures.TICKET_TOOL)


# --- 10 · Tool turns ----------------------------------------------------------------------

predict10 = Question(
    "check_request refuses the message-count slice. How many messages must be dropped from "
    "the front of it (after the system message) before check_request accepts it?",
    _drops_until_accepted,
    explanation="the tool result alone breaks an OpenAI rule. Without it the slice starts on "
                "A1, an answer without its question: notebook 02's orphan. No rule of OpenAI's "
                "forbids it, so it would be sent and answered from a conversation the model "
                "cannot read correctly (Anthropic's rules do refuse a first message that is "
                "not the user's).",
    hint="which message does the error name, and is the message after it against any rule "
         "check_request knows?",
    mistakes=lambda: {_until_next_user(): "that cuts where the whole-turn rule would, at the "
                      "next user message. Does the provider require that? Try check_request "
                      "on shorter slices.",
                      0: "check_request already refused this slice: something must go."},
)

predict10_tools = Question(
    "The lookup tool's schema travels in every request. How many bytes does it add to the "
    "request, whatever turns are kept?",
    lambda: toolturns.tools_bytes(),
    explanation="the tools key, its array, and the tool's entry: the type and function "
                "wrapper, name, description and the JSON Schema of its parameters. They are "
                "mandatory input, like the system message: paid before any turn.",
    hint="count what the tool puts in the JSON: the JSON Schema of its parameters, its name "
         "and description, the wrapper OpenAI wants around each tool "
         "({\"type\":\"function\",\"function\":{...}}), and the \"tools\" key with its "
         "brackets and a comma. None of it depends on the turns kept.",
    mistakes=lambda: {len(fixtures.LOOKUP_TOOL.parameters.encode()): "that is the JSON Schema "
                      "of the parameters alone; the tool's name, its description and the "
                      "wrapper OpenAI wants around each tool travel too.",
                      _tool_entry_bytes(): "that is the tool's entry alone; the request also "
                      "gets the key that holds the array, its brackets and a comma.",
                      tool_tokens(toolturns.TOOLS): "that is the schema's tokens (the "
                      "cookbook's estimate); the budget counts bytes."},
)

predict10_dialect = Question(
    "The same history, the same tool and a 1024-token reply reserve (reserve_tokens=1024, "
    "Anthropic's required max_tokens): how many bytes is the request in 'anthropic-messages'?",
    lambda: _dialect_bytes(ANTHROPIC),
    explanation="its envelope is larger, by max_tokens, and the system prompt is a field, not "
                "a message. The call's input is an object, not JSON text with every quote "
                "escaped, but its result needs a user message around it; the tool's entry "
                "loses the type and function wrapper. The plain turn and the question are the "
                "same bytes in both.",
    hint="build the body in that dialect, with the reserve as its max_tokens: every part of "
         "it is written in the other shape, not only the call.",
    mistakes=lambda: {_dialect_bytes("openai-chat"): "that is the openai-chat request: the "
                      "other dialect writes the system prompt, the call, its result and the "
                      "tool in another shape. Measure the body in its own dialect.",
                      _dialect_bytes(ANTHROPIC, tools=()): "that leaves the tool out: its "
                      "entry travels in both dialects, in another shape.",
                      _dialect_bytes(ANTHROPIC, reserve=1): "that sends max_tokens 1: the "
                      "lesson's reply reserve is 1024 tokens, written in the body."},
)

predict10_extra = Question(
    "At 908 bytes the tool request with both turns fits exactly. The application forces the "
    "lookup tool: it adds tool_choice, "
    "{\"type\":\"function\",\"function\":{\"name\":\"lookup_project\"}}, passed to select as "
    "extra=. How many bytes is the request with both turns once the field is added?",
    lambda: _forced_bytes(),
    explanation="908 and the field as the wire writes it after the tools: a comma, the key in "
                "quotes, a colon and the object. Every field the application adds is sent, so "
                "the budget counts it as mandatory input, and at 908 bytes turn one no longer "
                "fits.",
    hint="write the field as it goes over the wire after the tools: a comma, "
         "\"tool_choice\", a colon, then the object with no spaces; add its bytes to 908.",
    mistakes=lambda: {_forced_bytes() - 1: "the comma that separates it from the field before "
                      "it travels too.",
                      _forced_bytes() - toolturns.extra_bytes() + _value_bytes(): "that adds "
                      "its value alone; the key, its quotes, the colon and a comma travel too."},
)

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

quiz10 = Questionnaire(heading(10), [
    Question("Add a second tool, fixtures.TICKET_TOOL. How many bytes do the two tools add to "
             "every request (openai-chat, gson)?",
             lambda: toolturns.tools_bytes(TWO_TOOLS),
             explanation="both entries in one array, joined by a comma: the key and the "
                         "brackets are paid once.",
             hint="the two entries share one \"tools\" key and one pair of brackets, and a "
                  "comma joins them: what does the second entry add to what the lookup tool "
                  "costs alone?",
             mistakes=lambda: {2 * toolturns.tools_bytes(): "the second tool is not a copy of "
                               "the first: measure it.",
                               toolturns.tools_bytes() + toolturns.tools_bytes(
                                   (fixtures.TICKET_TOOL,)): "that pays the tools key and its "
                               "brackets twice: both tools share one array.",
                               toolturns.tools_bytes(): "the second tool's entry travels too."}),
    Question("The same message-count slice (the newest 5 messages) in anthropic-messages: its "
             "first message is a user message. Drop messages from its front one at a time: how "
             "many bytes is the longest slice check_request accepts?",
             _anthropic_accepted_bytes,
             explanation="in Anthropic's dialect a tool result travels in a user message: the "
                         "slice starts on the user role, but on a result whose tool_use was "
                         "cut (result-follows-use). Without it, it starts on A1, an assistant "
                         "message (first-user). The first slice accepted starts on a question: "
                         "starting on a user message is not starting on a turn.",
             hint="what does a tool result look like in anthropic-messages, and which role "
                  "must the first message have? Check each shorter slice, then measure the "
                  "first one accepted.",
             mistakes=lambda: {len(_anthropic_slices()[0]): "that is the slice itself, and "
                               "check_request refuses it: starting on a user message passes "
                               "Anthropic's first-user rule. What is in that user message?",
                               len(_anthropic_slices()[1]): "that slice starts on A1, an "
                               "assistant message: Anthropic's first message must be the "
                               "user's.",
                               len(_anthropic_slices()[-1]): "that drops too much: a shorter "
                               "slice that keeps a stored turn is accepted too.",
                               len(_openai_slice()): "that is the openai-chat slice: "
                               "measure the body in anthropic-messages."}),
])

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
