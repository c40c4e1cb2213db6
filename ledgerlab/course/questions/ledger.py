"""Predictions and quizzes for notebooks 05 to 08: the ledger and what a request takes from it.

The ledger on a real journal (a torn tail, a rejected request), its costs (the cap, what a
projection does not delete), the second limit (tokens) and pinned facts, on the
projection scenario (and, for 07, the boundary fixture). How a question is asked and
checked is ``ledgerlab.course.feedback``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ledgerlab import (PER_MESSAGE, REPLY_PRIMING, Fact, fact_line, get_encoder, request_tokens,
                       select, text_tokens)

from .. import fixtures, measures, scenario
from ..feedback import Discussion, Question, Questionnaire
from ..lessons.the_boundary_table import BOUNDARY
from ..syllabus import heading

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


def _full_request_tokens() -> int:
    return request_tokens(fixtures.BOUNDARY_SYSTEM, list(fixtures.BOUNDARY_HISTORY),
                          fixtures.BOUNDARY_QUESTION)


# --- 07 · Two limits: bytes and tokens ---------------------------------------------------

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


# --- 08 · Pinned facts: explicit origins and budgets ---------------------------------------

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
