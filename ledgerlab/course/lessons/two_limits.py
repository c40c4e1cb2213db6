"""07 · Two limits: bytes and tokens, and the room a token window keeps for the reply.

The predictions and the quiz, on the boundary fixture (``the_boundary_table.BOUNDARY``) under a
byte budget, a token limit and a reserve for the reply; the explorer's settings
(``TWO_LIMITS_EXPLORER``); and exercise 7, the smallest token window that keeps every turn,
checked against a variant, which ``ledgerlab.course.exercises`` gives it (``q7``).
``ledgerlab.course.questions`` gathers the predictions and the quiz. How a question is asked
and checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

from functools import partial

from ledgerlab import (BudgetError, PER_MESSAGE, REPLY_PRIMING, request_bytes, request_tokens,
                       select, text_tokens)

from .. import fixtures, measures
from ..display import turns as count_turns
from ..feedback import (Discussion, Exercise, Feedback, Question, Questionnaire, as_integral,
                        correct, not_whole, wrong)
from ..syllabus import heading
from .the_boundary_table import BOUNDARY

# --- What the answers are computed from ------------------------------------------------


def _two_limits_kept(max_bytes: int, max_tokens: int, reserve_tokens: int) -> int:
    """Turns select keeps of the boundary fixture under both limits (notebook 07)."""
    return select(*BOUNDARY, max_bytes, max_tokens=max_tokens, reserve_tokens=reserve_tokens).kept


def _request_messages(kept: int) -> int:
    """A request's messages keeping ``kept`` turns: the system message, two per turn, the
    question."""
    return 2 + 2 * kept


def _largest_budget_that_binds(max_tokens: int, reserve_tokens: int) -> int:
    """The largest byte budget that keeps fewer turns than the token limit alone (07's quiz)."""
    by_tokens = _two_limits_kept(10_000, max_tokens, reserve_tokens)
    return measures.suffix_sizes(*BOUNDARY)[by_tokens] - 1


def _role_tokens() -> int:
    return text_tokens("system") + text_tokens("user")


# --- The predictions and the quiz --------------------------------------------------------

predict07 = Question(
    "A 60-token window, a 408-byte budget, 20 tokens reserved for the reply: how many stored "
    "turns does select keep?",
    lambda: _two_limits_kept(408, 60, 20),
    explanation="the reserve is taken from the window, so the request itself may use only what "
                "is left, and select drops the oldest whole turn until it fits.",
    hint="subtract the reserve from the window, then compare what is left with the request's "
         "tokens for each number of kept turns (the table of section 1).",
    mistakes=lambda: {_two_limits_kept(408, 60, 0): "that is what fits with no reserve: the "
                      "whole request fits 60 tokens, but the reserve is taken from the window "
                      "too, and the request must fit in what is left.",
                      _two_limits_kept(408, 60, 40): "that leaves room for the mandatory input "
                      "alone, as a 40-token reserve would. With 20 reserved, does one more turn "
                      "fit in what is left?"},
)

predict07_tokens = Question(
    "The explorer: a 308-byte budget, 20 tokens reserved, and the token limit raised from 60 to "
    "80. How many stored turns does select keep?",
    lambda: _two_limits_kept(308, 80, 20),
    explanation="80 tokens minus the 20 reserved hold the whole request, and 308 bytes hold it "
                "too: neither limit drops anything.",
    hint="compare the full request's tokens plus the reserve with 80, and its bytes with 308.",
    mistakes=lambda: {_two_limits_kept(308, 60, 20): "that is what the 60-token limit kept. "
                      "Does the whole request, with the reserve, fit in 80 tokens?",
                      0: "the mandatory input fits both limits with room to spare: select "
                         "drops turns only while the request does not fit."},
)

quiz07 = Questionnaire(heading(7), [
    Question("The request that keeps only the newer stored turn is 35 tokens under o200k_base "
             "(section 1's table). How many of them come from the counting rule itself (per "
             "message and reply priming), not from any text the tokenizer reads?",
             lambda: _request_messages(1) * PER_MESSAGE + REPLY_PRIMING,
             explanation="3 per message for each of the request's messages (the system "
                         "message, the kept turn's question and answer, the current question) "
                         "and 3 to prime the reply: the rule's fixed cost. The roles and the "
                         "texts are tokenized, so they change with the tokenizer.",
             hint="section 1's term-by-term table, for the mandatory input's two messages: "
                  "which terms do not depend on a text? Then count this request's messages.",
             # One message too few, or no priming, both give 12: the feedback names both.
             mistakes=lambda: {_request_messages(1) * PER_MESSAGE: "that leaves out 3: the "
                               "reply is primed too, and every message counts (the system "
                               "message, the kept turn's two, the question).",
                               _request_messages(0) * PER_MESSAGE + REPLY_PRIMING: "that is the "
                               "fixed cost of the mandatory input's two messages; the kept turn "
                               "adds two more.",
                               _request_messages(2) * PER_MESSAGE + REPLY_PRIMING: "that counts "
                               "both stored turns; this request keeps only the newer one.",
                               _request_messages(1) * PER_MESSAGE + REPLY_PRIMING
                               + _role_tokens(): "that includes the role names of the mandatory "
                               "input, 'system' and 'user': they are text, tokenized like the "
                               "rest."}),
    Discussion("Why can't you turn a 4,096-token window into a byte budget by multiplying by 4?",
               "bytes per token depend on the text and the tokenizer: about 5 for English, "
               "4.25 or 2.83 for Chinese, 3.10 or 1.48 for emoji. Multiplying by 4 overshoots "
               "for some texts and undershoots for others, and the window must also keep room "
               "for the reply. Measure both limits."),
    Discussion("Section 5 ends with a reserve as large as the window, 20 tokens of 20: select "
               "raises ValueError, not BudgetError. Why is that an error in the arguments?",
               "it raises ValueError before looking at the request: a reserve as large as the "
               "window leaves no room for any request at all, whatever the conversation, so the "
               "arguments are inconsistent. A BudgetError is about this request's mandatory "
               "input not fitting limits that could hold some request."),
    Question("A 60-token window with 20 tokens reserved, as in section 3. What is the largest "
             "byte budget at which the byte budget binds, keeping fewer turns than the token "
             "limit alone would?",
             lambda: _largest_budget_that_binds(60, 20),
             explanation="the token limit alone keeps one turn; a byte budget keeps fewer only "
                         "while it cannot hold that turn, up to one byte below the request "
                         "that sends it.",
             hint="how many turns do the tokens alone allow? Then: which budgets of notebook "
                  "04's table keep fewer than that?",
             mistakes=lambda: {measures.suffix_sizes(*BOUNDARY)[1]: "at that budget the bytes "
                               "hold one turn, as many as the tokens: neither keeps fewer.",
                               measures.suffix_sizes(*BOUNDARY)[0]: "that is the smallest "
                               "budget that sends anything; the bytes bind above it too.",
                               measures.suffix_sizes(*BOUNDARY)[2] - 1: "at that budget the "
                               "bytes hold one turn, as many as the tokens: neither keeps "
                               "fewer.",
                               measures.suffix_sizes(*BOUNDARY)[2]: "at that budget the bytes "
                               "hold both turns and the tokens one: the token limit binds."}),
])


# --- The explorer ------------------------------------------------------------------------
# TwoLimitsExplorer's starting point (``ledgerlab.course.widgets`` takes its defaults from
# here): the boundary fixture under 308 bytes and a 60-token window with 20 tokens kept for the
# reply, counted with o200k_base.
TWO_LIMITS_EXPLORER = {"system": fixtures.BOUNDARY_SYSTEM, "history": fixtures.BOUNDARY_HISTORY,
                       "current": fixtures.BOUNDARY_QUESTION, "budget": 308, "max_tokens": 60,
                       "reserve_tokens": 20, "tokenizer": "o200k_base"}


# --- Exercise 7: the smallest token window that keeps every turn ---------------------------
# An Exercise but the variant it checks against, which ``ledgerlab.course.exercises`` gives
# it (``q7``), as exercises 1 to 5 (``the_boundary_table``). The checker takes that variant,
# ``v``, first.

WINDOW_TOKENIZER = "o200k_base"


def window_figures(v) -> dict[str, int]:
    """The numbers the check compares with: the right answer and the usual wrong ones."""
    system, history, question, reserve = v.system, list(v.history), v.question, v.window_reserve
    tokens = request_tokens(system, history, question, tokenizer=WINDOW_TOKENIZER)
    other = request_tokens(system, history, question, tokenizer="cl100k_base")
    messages = [system, question] + [text for turn in history for text in (turn.question,
                                                                             turn.answer)]
    text_only = sum(text_tokens(text, tokenizer=WINDOW_TOKENIZER) for text in messages)
    size = len(request_bytes(system, history, question))
    return {"answer": tokens + reserve, "tokens": tokens, "bytes": size,
            "bytes_over_4": round(size / 4), "cl100k": other,
            "no_priming": tokens - REPLY_PRIMING + reserve,
            "text_only": text_only + reserve, "per_message": PER_MESSAGE}


def _check_window(v, max_tokens: object) -> Feedback:
    limit = as_integral(max_tokens)
    if limit is None:
        return not_whole(max_tokens, "tokens")
    max_tokens = limit
    f = window_figures(v)
    reserve = v.window_reserve
    known = {  # the usual wrong counts; on a variant one may happen to be right
        f["bytes"]: "that is the request's size in bytes. A token limit counts tokens, which "
                    "the tokenizer decides; the byte budget is a separate limit.",
        f["bytes_over_4"]: "that is the 'bytes / 4' rule of thumb: an estimate, and far off "
                           "for Chinese and emoji. Count with the tokenizer.",
        f["cl100k"]: f"that counts with cl100k_base; this window uses {WINDOW_TOKENIZER}, "
                     f"which splits the same text differently.",
    }
    known = {**{size + reserve: text for size, text in known.items()}, **known,
             f["tokens"]: f"that fits the request alone, with nothing left for the reply: the "
                          f"{reserve}-token reserve must fit inside max_tokens too.",
             f["no_priming"]: "close: the cookbook rule also adds 3 tokens that prime the "
                              "reply, once per request.",
             f["text_only"]: f"that counts the text of the messages only: each message also "
                             f"costs {f['per_message']} tokens plus the tokens of its role."}
    if max_tokens in known and max_tokens != f["answer"]:
        return wrong(known[max_tokens])
    try:
        chosen = select(v.system, v.history, v.question, 10_000, max_tokens=max_tokens,
                        reserve_tokens=reserve, tokenizer=WINDOW_TOKENIZER)
    except BudgetError:
        return wrong(f"with max_tokens={max_tokens} and {reserve} reserved, even the system "
                     f"message and the question do not fit: select raises BudgetError.")
    except ValueError:
        return wrong(f"max_tokens must be larger than the {reserve}-token reserve.")
    if chosen.kept < len(v.history):
        return wrong(f"with max_tokens={max_tokens} select keeps {count_turns(chosen.kept)} of "
                     f"{len(v.history)}: the request's {chosen.tokens} tokens plus the reserve "
                     f"leave no room for the older turn.")
    if max_tokens > f["answer"]:
        return wrong(f"{max_tokens} keeps both turns, but a smaller limit does too: find the "
                     f"smallest.")
    return correct(f"{max_tokens} = {f['tokens']} tokens of request + {reserve} reserved for "
                   f"the reply. One token less and select drops the older turn. The bytes "
                   f"({f['bytes']}) are a separate limit, checked too.")


EXERCISE7 = partial(
    Exercise, 7, "the smallest token window that keeps every turn", _check_window,
    hint=f"request_tokens(SYSTEM, HISTORY, QUESTION, tokenizer='{WINDOW_TOKENIZER}') counts "
         f"the request under the cookbook rule. Then ask what else must fit in the same "
         f"window.",
)
