"""Predictions and the quiz for notebook 09: tool turns, images and two dialects.

The article's question answered through a lookup tool (``fixtures.TOOL_HISTORY``): what the
message-count slice of it breaks, what the tool schemas cost in every request, the same
history in both dialects, an image's bytes against its tokens, and a tool loop in progress.
Every answer is measured by ``ledgerlab.course.toolturns`` from the library, when checked.
"""

from __future__ import annotations

from ledgerlab import BudgetError, get_encoder, select, tool_tokens

from .. import fixtures, toolturns
from ..feedback import Discussion, Question, Questionnaire
from ..syllabus import heading
from .projection import YES_NO, yes_or_no

SLICE_BUDGET = 700  # the notebook's budget: the message-count slice keeps 5 messages
IMAGE_LIMITS = (262_144, 400)  # 256 KiB and a 400-token window
LOOP_BUDGET = 620
DIALECT_CHOICES = ("openai-chat", "anthropic-messages")
LIMIT_CHOICES = ("bytes", "tokens", "neither")


def _sliced_count() -> int:
    return toolturns.count_slice_under(*toolturns.TOOL_REQUEST, SLICE_BUDGET)[0]


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


def _larger_dialect() -> str:
    sizes = toolturns.dialect_sizes()
    return max(sizes, key=lambda dialect: sizes[dialect]["total"])


def _loop_drops_the_round() -> bool:
    """Does select send the request without the loop's round at LOOP_BUDGET?"""
    try:
        chosen = select(*toolturns.TOOL_REQUEST, LOOP_BUDGET, tools=toolturns.TOOLS,
                        current_steps=fixtures.LOOP_STEPS)
    except BudgetError:
        return False
    return b"call_2" not in chosen.payload


def _anthropic_slice_accepted() -> bool:
    payload = toolturns.count_sliced(*toolturns.TOOL_REQUEST, _sliced_count(),
                                     dialect="anthropic-messages")
    return toolturns.fault(payload, "anthropic-messages") is None


def _screenshot_tiles(width: int, height: int) -> int:
    return 85 + 170 * (-(-width // 512)) * (-(-height // 512))


TWO_TOOLS = (fixtures.LOOKUP_TOOL, fixtures.TICKET_TOOL)


# --- 09 · Tool turns ----------------------------------------------------------------------

predict09 = Question(
    "check_request refuses the message-count slice. How many messages must be dropped from "
    "the front of it (after the system message) before check_request accepts it?",
    _drops_until_accepted,
    explanation="the tool result alone breaks a provider rule. Without it the slice starts on "
                "A1, an answer without its question: notebook 02's orphan, which no provider "
                "rule forbids, so it would be sent and answered from a conversation the model "
                "cannot read correctly.",
    hint="which message does the error name, and is the message after it against any rule "
         "check_request knows?",
    mistakes=lambda: {_until_next_user(): "that cuts where the whole-turn rule would, at the "
                      "next user message. Does the provider require that? Try check_request "
                      "on shorter slices.",
                      0: "check_request already refused this slice: something must go."},
)

predict09_tools = Question(
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

predict09_dialect = Question(
    "The same history, the same tool, in both dialects: which request is larger, "
    "'openai-chat' or 'anthropic-messages'?",
    _larger_dialect,
    explanation="OpenAI writes each call's arguments as a JSON string, every quote escaped, "
                "with a null content and a type and function wrapper; each tool gets the "
                "wrapper too, and the system prompt is a whole message. Anthropic adds "
                "max_tokens and a user message around each result, which is less.",
    hint="look at how each dialect writes the call's arguments and the tool's schema: as an "
         "object, or as text.",
    choices=DIALECT_CHOICES,
    mistakes=lambda: {"anthropic-messages": "Anthropic does add max_tokens and a user message "
                      "around each result. Now look at the call: one dialect writes the "
                      "arguments as an object, the other as text with every quote escaped."},
)

predict09_image = Question(
    "The photo travels in the current question, so it is mandatory input. With a 262,144-byte "
    "budget (256 KiB) and a 400-token window, which limit refuses the request: 'bytes', "
    "'tokens' or 'neither'?",
    lambda: toolturns.binding_limit(*IMAGE_LIMITS),
    explanation="the file fits 256 KiB, but it travels as base64, 4 bytes for every 3, and "
                "that does not. Its tokens depend on its pixels only (the tile rule): the whole "
                "request stays under 400.",
    hint="compare the image's base64 length, not its file size, with the budget, and its "
         "tile-rule tokens with the window.",
    choices=LIMIT_CHOICES,
    mistakes=lambda: {"neither": "the file is smaller than 256 KiB, but the file is not what "
                      "goes over the wire: how does JSON carry an image?",
                      "tokens": "the tile rule counts an image by its pixels, whatever its file "
                      "size: how many 512-pixel tiles does a 320x240 image cover?"},
)

predict09_loop = Question(
    f"The loop is in progress: its round (the call and its result) follows the question. With "
    f"a {LOOP_BUDGET}-byte budget, does select drop the round to make the request fit? Answer "
    f"'yes' or 'no'.",
    lambda: yes_or_no(_loop_drops_the_round()),
    explanation="the round is part of the turn in progress, mandatory like the question: "
                "without the result the model would call the tool again, and without the call "
                "the result is an orphan the provider refuses. When it does not fit, select "
                "raises BudgetError.",
    hint="is the round stored history, or part of the question being answered now?",
    choices=YES_NO,
    mistakes=lambda: {"yes": "the stored turns are dropped first, but the round belongs to the "
                             "question being answered: what would the provider say of a "
                             "result without its call, or the model of a call without its "
                             "result?"},
)

quiz09 = Questionnaire(heading(9), [
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
    Question("The screenshot fixture, fixtures.screenshot(), is 1920x1080. How many tokens is "
             "it by the tile rule?",
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
    Question("The same message-count slice (the newest 5 messages) in anthropic-messages: its "
             "first message is a user message. Does check_request accept it? Answer 'yes' or "
             "'no'.",
             lambda: yes_or_no(_anthropic_slice_accepted()),
             explanation="in Anthropic's dialect a tool result travels in a user message: the "
                         "slice starts on the user role, but on a result whose tool_use was "
                         "cut (result-follows-use). Starting on a user message is not starting "
                         "on a turn.",
             hint="what does a tool result look like in anthropic-messages?",
             choices=YES_NO,
             mistakes=lambda: {"yes": "starting on a user message passes Anthropic's "
                                      "first-user rule. What is in that user message here?"}),
    Discussion("Why is a tool loop in progress mandatory input, rather than the first thing to "
               "trim?",
               "its round answers the question being asked now: the model needs the result "
               "to go on, a result without its call is refused, and a call without its result "
               "makes the model call again. Stored turns can be dropped whole and brought back "
               "from the ledger later; the round in progress cannot be dropped without "
               "breaking this request. When it does not fit, the honest answer is "
               "BudgetError."),
])
