"""Exercise 7, on the boundary fixture (notebook 04's conversation): notebook 07's token
window. The checker is given the
variant it checks against first (``variants``: the self-paced edition's, or a student's own);
``ledgerlab.course.exercises`` says how every exercise is checked.
"""

from __future__ import annotations

from ledgerlab import (BudgetError, PER_MESSAGE, REPLY_PRIMING, request_bytes, request_tokens,
                       select, text_tokens)

from ..display import turns as count_turns
from ..feedback import Exercise, Feedback, as_integral, correct, not_whole, wrong
from .variants import Variant, active

# --- 7. Notebook 07's exercise, two limits: the smallest token window that keeps every turn --

WINDOW_TOKENIZER = "o200k_base"


def window_figures(v: Variant) -> dict[str, int]:
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


def _check_window(v: Variant, max_tokens: object) -> Feedback:
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


q7 = Exercise(
    7, "the smallest token window that keeps every turn", _check_window, fixture=active,
    hint=f"request_tokens(SYSTEM, HISTORY, QUESTION, tokenizer='{WINDOW_TOKENIZER}') counts "
         f"the request under the cookbook rule. Then ask what else must fit in the same "
         f"window.",
)
