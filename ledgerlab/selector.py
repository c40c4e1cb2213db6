"""The selector: project a request from the ledger under a byte budget.

The rule: the system message, the current question (with the tool rounds of the turn in
progress) and the tools are mandatory. Start with every stored turn and remove the oldest
whole turn until the serialized request fits. The kept turns are always a contiguous
suffix of the history (a large recent turn is never skipped to pack an older short one),
the history is never changed, and if the mandatory part alone does not fit, BudgetError.

"Fits" means every limit holds: the byte budget; with ``max_tokens``, the token limit
less ``reserve_tokens`` (counted by ``ledgerlab.tokens``, an estimate); and the provider's
documented counts (each dialect's ``LIMITS``: images, messages).

Memory comes before the turns, in precedence, each section under its own cap: the facts
(the longest prefix of them that fits ``max_fact_bytes`` and what the mandatory part
leaves; one whose origin is not among the history's turn ids is refused,
``OriginNotInHistory``), then the evidence (likewise, ``max_evidence_bytes``). Their bytes do not depend on
the turns, so the budgets compose. Then the summaries, which stand for turns: for each k
(the newest turns kept, from the most down), the candidates are the summaries whose
covered turns are all dropped, taken newest first (by the newest turn each covers; on a
tie the later given first), each skipped if it overlaps one taken or if the request
without turns would no longer fit ``max_summary_bytes``, the budget or the token limit;
the result is the largest k whose turns fit beside its summaries. So a summary never
travels beside a turn it covers. They are sent oldest first. A provider's ``Compaction`` is
a summary under the same rule (an item of its own rather than a line of the section), and
one of another dialect is left out, counted as dropped.

With ``previous`` (the ``Selection`` of this conversation's last request), the cache-stable
rule (``cache_stable_rule``): the provider caches a request's literal prefix, and moving the
first kept turn changes every byte after the system's part, so the first kept turn is held.
The request from ``previous``'s first kept turn (found by its ``Turn.id`` where it carries one,
else by its position), with the turns added since, is kept while it fits every limit and holds
at least the turns that fit the low-water mark; then its bytes up to the end of ``previous``'s
turns are ``previous``'s. Otherwise the cut moves once, to the longest whole-turn suffix that
fits ``low_water`` x the byte budget (and x the token limit's room; memory as above, the
provider's counts unscaled), so the next requests append without cutting. What it trades: right
after a cut a request keeps fewer turns than the whole-turn rule would.

``select_reference`` is the article's loop, written as the rule reads; ``select`` gives
the same result walking back from the newest turn, writing only what it keeps
(``ledgerlab.request.Frame``), and tests/library/test_oracle.py holds the two equal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from .checks import check_int
from .dialects import (SHAPES, RequestTally, TokenCount, check_budget, evidence_line,
                       message_count, question_content, refuse_reused_ids,
                       refuse_rounds_without_tools, request_basis, sent_in, summary_line,
                       system_text)
from .encoders import get_encoder
from .images import Image
from .memory import Compaction, Summary
from .memory_sections import (CoverNotInHistory, LazyOrder, SummaryPlan, TurnIds,
                              check_origins, evidence_within_tokens, summary_order)
from .options import BREAKDOWN, COUNT, SELECT, RequestOptions, takes_options
from .request import NO_MEMORY, fragment, frame, request_bytes, sections
from .steps import ToolResult
from .tokens import MessageCounter, counter
from .turns import Fact, Turn, check_fact, check_question, fact_line

PLAIN_MANDATORY = "system message + current question"
RICH_MANDATORY = "system message, tool schemas, current question and its tool rounds"


def _mandatory_named(options: RequestOptions) -> str:
    """What a BudgetError names as the mandatory input."""
    return RICH_MANDATORY if options.tools or options.current_steps else PLAIN_MANDATORY


class BudgetError(ValueError):
    """The mandatory input exceeds a limit: the system message and the current question,
    and with tools the tool schemas and the tool rounds of the turn in progress.

    ``limit`` says which: ``"bytes"`` (``mandatory_bytes`` > ``budget``, checked
    first) or ``"tokens"`` (``mandatory_tokens + reserve_tokens > max_tokens``).
    ``mandatory_tokens`` is None when the bytes already failed.
    """

    def __init__(self, mandatory_bytes: int, budget: int, *, mandatory_tokens: int | None = None,
                 max_tokens: int | None = None, reserve_tokens: int = 0,
                 mandatory: str = PLAIN_MANDATORY) -> None:
        self.mandatory_bytes = mandatory_bytes
        self.budget = budget
        self.mandatory_tokens = mandatory_tokens
        self.max_tokens = max_tokens
        self.reserve_tokens = reserve_tokens
        self.limit = "bytes" if mandatory_bytes > budget else "tokens"
        if self.limit == "bytes":
            message = f"needs {mandatory_bytes} bytes but the budget is {budget} bytes"
        else:
            message = (f"needs {mandatory_tokens} tokens + {reserve_tokens} reserved for the "
                       f"reply, but the token limit is {max_tokens}")
        super().__init__(f"the mandatory input ({mandatory}) {message}")


@dataclass(frozen=True, repr=False)
class Selection:
    """The request a selection produced: the exact bytes it measured."""

    payload: bytes
    kept: int
    dropped: int
    budget: int
    tokens: TokenCount | None = None  # the kept request's tokens (an estimate, labelled so);
    # None without a token limit
    facts_kept: int = 0  # the first facts_kept facts given are in the request
    facts_dropped: int = 0
    fact_bytes: int = 0  # the bytes the facts message adds, its separator included
    evidence_kept: int = 0  # the first evidence_kept evidence items given are in the request
    evidence_dropped: int = 0
    evidence_bytes: int = 0  # the bytes the evidence section adds beside the facts
    summary_ids: tuple[str, ...] = ()  # the sent summaries' ids, in request order
    summaries_dropped: int = 0  # the summaries given and not sent
    summary_bytes: int = 0  # the bytes the summaries section adds beside facts and evidence
    turns: tuple[Turn, ...] = field(default=(), compare=False)  # the kept turns, oldest first

    @property
    def size(self) -> int:
        return len(self.payload)

    def __repr__(self) -> str:
        # Counts and sizes only: ids and texts may be private.
        tokens = "" if self.tokens is None else f", tokens={self.tokens}"
        facts = ("" if not (self.facts_kept or self.facts_dropped) else
                 f", facts_kept={self.facts_kept}, facts_dropped={self.facts_dropped}, "
                 f"fact_bytes={self.fact_bytes}")
        evidence = ("" if not (self.evidence_kept or self.evidence_dropped) else
                    f", evidence_kept={self.evidence_kept}, evidence_dropped="
                    f"{self.evidence_dropped}, evidence_bytes={self.evidence_bytes}")
        summaries = ("" if not (self.summary_ids or self.summaries_dropped) else
                     f", summaries_sent={len(self.summary_ids)}, summaries_dropped="
                     f"{self.summaries_dropped}, summary_bytes={self.summary_bytes}")
        return (
            f"Selection(kept={self.kept}, dropped={self.dropped}, "
            f"bytes={self.size}, budget={self.budget}{tokens}{facts}{evidence}{summaries})"
        )


def _token_limit(options: RequestOptions) -> int | None:
    """The tokens the request may use (None: no limit), once the reserve is set aside.

    Where the body carries the reserve as its ``max_tokens`` (Anthropic), a reserve
    needs no token limit of its own."""
    reserve, limit = options.reserve_tokens, options.max_tokens
    if limit is None:
        if reserve and not SHAPES[options.dialect].requires_max_tokens:
            raise ValueError("reserve_tokens needs max_tokens: a reserve is kept within a limit")
        return None
    if reserve >= limit:
        raise ValueError(f"reserve_tokens ({reserve}) must be below max_tokens ({limit}): "
                         f"the reserve would leave no room for the request")
    return limit - reserve


def _labelled(tokens: int, options: RequestOptions) -> TokenCount:
    """A request's count, labelled: every count of a request is an estimate (why, by
    dialect: ``dialects.request_basis``)."""
    return TokenCount(tokens, exact=False, basis=request_basis(options.dialect, options.tokenizer))


@takes_options(*COUNT)
def request_tokens(system: str, turns: Sequence[Turn], current: str | tuple, *,
                   options: RequestOptions) -> TokenCount:
    """The tokens of the request under its provider's documented rules (``ledgerlab.tokens``),
    an estimate, and a ``TokenCount`` that says so (``.exact``, ``.basis``).

    Each message (system, the facts, evidence and summaries messages where there are
    any, each turn's messages, the current question and its rounds so far) costs 3 tokens
    + the
    tokens of its role + the tokens of its content; the reply is primed with 3 more;
    images count by the dialect's provider's rule, tools by the cookbook's estimate, and in
    ``anthropic-messages`` tools add Anthropic's tool-use system prompt. ``tokenizer`` is
    ``"o200k_base"`` (GPT-4o and later) or ``"cl100k_base"`` (GPT-4, GPT-3.5). Other
    providers count differently, so treat it as that rule's count, not as every
    provider's. The byte limit still applies to the body sent over the wire: see
    ``request_bytes``.
    """
    count, shape = counter(options.tokenizer, options.dialect), SHAPES[options.dialect]
    total = (count.mandatory(system, current, options.current_steps, options.tools, options.model,
                             options.extra.get("tool_choice"))
             + count.facts(options.facts)
             + count.section([evidence_line(item) for item in options.evidence])
             + count.section([summary_line(item) for item in options.summaries
                              if isinstance(item, Summary)])
             + sum(count.compaction(item) for item in options.summaries
                   if isinstance(item, Compaction) and sent_in(shape, item)))
    return _labelled(total + sum(count.turn(turn) for turn in turns), options)



def _tally(options: RequestOptions, turns: Sequence[Turn], current: str | tuple) -> RequestTally:
    """The images and messages of a request with ``turns``, against the provider's limits."""
    shape, tally = SHAPES[options.dialect], RequestTally(options.dialect)
    steps = options.current_steps
    tally.add([part for part in ((current,) if isinstance(current, str) else current)
               if isinstance(part, Image)]
              + [image for step in steps if isinstance(step, ToolResult) for image in step.images],
              message_count(shape, steps=steps))
    for turn in turns:
        tally.add(turn.images + turn.result_images, message_count(shape, turn))
    return tally


def _provider_limits(options: RequestOptions, budget: int, current: str | tuple) -> RequestTally:
    """The mandatory input's tally; ProviderLimitError if the budget or that input alone is
    over a limit of the provider (its dialect's ``LIMITS``)."""
    check_budget(options.dialect, budget)
    tally = _tally(options, (), check_question(current, "current"))
    error = tally.broken()
    if error is not None:
        raise error
    return tally



def _first_kept(previous: object, history: Sequence[Turn]) -> int | None:
    """Where ``previous``'s first kept turn is in ``history``: by its ``Turn.id`` where it
    carries one, else by its position (the history only grows); None when it is not there
    (forgotten) or there is no ``previous``. TypeError if ``previous`` is not a Selection."""
    if previous is None:
        return None
    if not isinstance(previous, Selection):
        raise TypeError(f"previous must be a Selection (this conversation's last request), "
                        f"not {type(previous).__name__}")
    turn_id = previous.turns[0].id if previous.kept and previous.turns else None
    if turn_id is None:
        return previous.dropped if previous.dropped <= len(history) else None
    if previous.dropped < len(history) and history[previous.dropped].id == turn_id:
        return previous.dropped  # where it was: no turn before it was forgotten
    return next((index for index in range(len(history) - 1, -1, -1)
                 if history[index].id == turn_id), None)


def _low_water_marks(options: RequestOptions, budget: int,
                     room: int | None) -> tuple[int, int | None]:
    """The bytes and tokens a request may use after a cut: ``low_water`` x each limit."""
    low = options.low_water
    return math.floor(low * budget), None if room is None else math.floor(low * room)


@takes_options(*SELECT)
def select_reference(system: str, history: Sequence[Turn], current: str | tuple,
                     max_bytes: int, *, options: RequestOptions) -> Selection:
    """The article's loop: drop the oldest whole turn and re-serialize until it fits.

    Facts first, then evidence, each the longest prefix whose request without turns fits
    (tried from the longest down); then, for each first kept turn from the oldest on, the
    summaries taken for it and the turns from it. Quadratic in the number of stored turns;
    kept for teaching and as the oracle that ``select`` is tested against. The options
    are ``select``'s.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    room = _token_limit(options)
    turns = list(_history(history))
    first = _first_kept(options.previous, turns)
    _provider_limits(options, budget, current)
    given = len(options.summaries)
    order = summary_order(_ids(turns, options), _candidates(options))
    evidence = list(options.evidence)
    options = replace(options, evidence=(), summaries=())

    def size(chosen: RequestOptions, kept: Sequence[Turn] = ()) -> int:
        return len(request_bytes(system, kept, current, options=chosen))

    def fits(chosen: RequestOptions, before: RequestOptions, cap: int | None) -> bool:
        """The request without turns fits: its new part's cap, the budget, the token limit."""
        return ((cap is None or size(chosen) - size(before) <= cap) and size(chosen) <= budget
                and (room is None or request_tokens(system, [], current, options=chosen) <= room))

    def longest_prefix(before: RequestOptions, field: str, items: list,
                       cap: int | None) -> RequestOptions:
        """``before`` with the longest prefix of ``items`` as ``field`` that fits."""
        for count in range(len(items), 0, -1):
            chosen = replace(before, **{field: items[:count]})
            if fits(chosen, before, cap):
                return chosen
        return before

    facts, bare = list(options.facts), replace(options, facts=())
    options = longest_prefix(bare, "facts", facts, options.max_fact_bytes)
    _check_origins(options.facts, turns, options)
    with_facts = options
    options = longest_prefix(with_facts, "evidence", evidence, options.max_evidence_bytes)
    with_evidence = options
    kept_memory = dict(facts_kept=len(options.facts),
                       facts_dropped=len(facts) - len(options.facts),
                       fact_bytes=size(with_facts) - size(bare),
                       evidence_kept=len(options.evidence),
                       evidence_dropped=len(evidence) - len(options.evidence),
                       evidence_bytes=size(with_evidence) - size(with_facts))

    def request_from(start: int) -> tuple[RequestOptions, bytes, TokenCount | None, dict]:
        """The request whose first kept turn is ``start``: the summaries taken for it (each
        covering dropped turns only), its bytes, its tokens and what memory it holds."""
        taken: list[Summary] = []  # newest first: sent in the reverse order
        for newest, summary in order:
            if newest >= start or any(set(summary.covers) & set(other.covers)
                                      for other in taken):
                continue  # a covered turn is kept, or it overlaps one taken
            trial = replace(with_evidence, summaries=[*taken, summary][::-1])
            if fits(trial, with_evidence, with_evidence.max_summary_bytes):
                taken.append(summary)
        chosen = replace(with_evidence, summaries=taken[::-1])
        memory = dict(kept_memory, summary_ids=tuple(item.id for item in chosen.summaries),
                      summaries_dropped=given - len(taken),
                      summary_bytes=size(chosen) - size(with_evidence))
        tokens = (None if room is None else
                  request_tokens(system, turns[start:], current, options=chosen))
        return (chosen, request_bytes(system, turns[start:], current, options=chosen), tokens,
                memory)

    def request_fits(kept: Sequence[Turn], most_bytes: int = budget,
                     most_tokens: int | None = room) -> bool:
        chosen, payload, tokens, _ = request_from(len(turns) - len(kept))
        return (len(payload) <= most_bytes and not _tally(chosen, kept, current).broken()
                and (tokens is None or tokens <= most_tokens))

    start = whole_turn_rule(turns, request_fits)
    if start is None:  # even with no turn left it does not fit: the mandatory input
        chosen, payload, tokens, _ = request_from(len(turns))
        what = _mandatory_named(chosen)
        if len(payload) > budget:
            raise BudgetError(len(payload), budget, mandatory=what)
        raise BudgetError(len(payload), budget, mandatory_tokens=tokens,
                          max_tokens=chosen.max_tokens, reserve_tokens=chosen.reserve_tokens,
                          mandatory=what)
    if options.previous is not None:
        low_bytes, low_tokens = _low_water_marks(options, budget, room)
        start = cache_stable_rule(turns, request_fits,
                                  lambda kept: request_fits(kept, low_bytes, low_tokens), first)
    chosen, payload, tokens, memory = request_from(start)
    refuse_request_wide(chosen, turns[start:])
    return Selection(payload, len(turns) - start, start, budget, tokens, **memory,
                     turns=tuple(turns[start:]))


def refuse_request_wide(options: RequestOptions, kept: Sequence[Turn]) -> None:
    """InvalidTurn for a rule across the kept turns and the rounds in progress: a call id
    two of them share where the dialect wants each once; tool rounds without tools where
    the dialect wants a tools array beside them."""
    refuse_reused_ids(options.dialect, kept, options.current_steps)
    refuse_rounds_without_tools(options.dialect, kept, options.current_steps, options.tools)


def whole_turn_rule(turns: Sequence[Turn], fits) -> int | None:
    """The article's rule: start with every stored turn and drop the oldest whole turn until
    the request fits. Returns where the kept turns start (None: not even the request without
    turns fits). ``fits(kept)`` says whether the request with the turns ``kept`` fits."""
    for start in range(len(turns) + 1):
        if fits(turns[start:]):
            return start
    return None


def cache_stable_rule(turns: Sequence[Turn], fits, fits_low_water, first: int | None) -> int:
    """The cache-stable rule: hold the previous request's first kept turn (``first``; None:
    not there) while the request from it fits and keeps at least the turns that fit the
    low-water mark; else cut once, to the longest whole-turn suffix that fits the low-water
    mark, so the next requests append to it. ``fits(kept)`` and ``fits_low_water(kept)`` say
    whether the request with the turns ``kept`` fits the limits and the low-water marks.
    Returns where the kept turns start (none kept if no turn fits the marks)."""
    low = whole_turn_rule(turns, fits_low_water)
    if low is None:  # not even the request without turns fits the marks
        low = len(turns)
    if first is not None and first <= low and fits(turns[first:]):
        return first
    return low


@takes_options(*SELECT)
def select(system: str, history: Sequence[Turn], current: str | tuple, max_bytes: int, *,
           options: RequestOptions) -> Selection:
    """The request that keeps the newest whole turns of ``history`` that fit ``max_bytes``.

    ``system`` and ``current`` (a str, or a tuple of str, Image and Document parts) are
    mandatory; BudgetError if they alone do not fit. Returns a ``Selection``: the exact
    bytes (``payload``) and the kept turns (``turns``). The same result as
    ``select_reference``; the rule is in this module's docstring. Keyword options:

    - ``dialect``: ``"openai-chat"`` (default), ``"anthropic-messages"``, ``"openai-responses"``
    - ``encoder``: the client whose bytes are measured: ``"gson"`` (default), ``"httpx"``, ``"requests"``
    - ``model``: the body's model field
    - ``tools``: the tools every request carries (``Tool`` or ``ProviderTool``)
    - ``current_steps``: the tool rounds of the turn in progress, after ``current``
    - ``max_tokens``: a token limit as well as the byte budget (None: bytes only)
    - ``reserve_tokens``: tokens kept for the reply (Anthropic's ``max_tokens`` field)
    - ``tokenizer``: ``"o200k_base"`` (default) or ``"cl100k_base"``
    - ``facts``, ``max_fact_bytes``: pinned facts, in priority order, and their own cap
    - ``evidence``, ``max_evidence_bytes``: retrieved evidence, in rank order, and its cap
    - ``evidence_after_turns``: the evidence after the turns, before the question (evidence
      chosen per question then leaves the cached prefix as it was)
    - ``cache_breakpoints``: Anthropic's cache marks on the stable prefix and the newest
      kept turn, their bytes within the budget
    - ``summaries``, ``max_summary_bytes``: summaries of stored turns, and their cap
    - ``extra``: the body's other top-level fields (``stream``, ``thinking``...), as given
    - ``ids``: the history's turn ids, where its turns carry none (``Turn.id``)
    - ``previous``, ``low_water``: the last request's Selection, and where to cut when it no
      longer fits (the cache-stable rule, in this module's docstring)
    - ``options``: all of these at once, as a ``RequestOptions``
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    history = _history(history)
    first = _first_kept(options.previous, history)
    room = _token_limit(options)  # tokens the request may use: None, bytes only
    count = None if room is None else counter(options.tokenizer, options.dialect)
    tally = _provider_limits(options, budget, current)
    encoder, shape = get_encoder(options.encoder), SHAPES[options.dialect]

    # The mandatory part.
    bare = frame(system, current, options)
    size, tokens = bare.size, 0
    what = _mandatory_named(options)
    if size > budget:
        raise BudgetError(size, budget, mandatory=what)
    if count is not None:
        tokens = count.mandatory(system, current, options.current_steps, options.tools,
                                 options.model, options.extra.get("tool_choice"))
        if tokens > room:
            raise BudgetError(size, budget, mandatory_tokens=_labelled(tokens, options),
                              max_tokens=options.max_tokens,
                              reserve_tokens=options.reserve_tokens, mandatory=what)

    # Memory in its precedence, each section the longest prefix of its items that fits its
    # own cap and what is left: the facts, then the evidence.
    def compaction_overhead(memory: list) -> int:
        """What the first compaction item adds to the body beyond its own bytes (its
        separator; in Anthropic's dialect the user message that holds the blocks)."""
        with_one = list(memory)
        with_one[3] = [{}]
        return (frame(system, current, options, tuple(with_one)).size
                - frame(system, current, options, tuple(memory)).size - len(encoder.dumps({})))

    def overhead(kind: int, memory: list) -> int:
        """What section ``kind`` adds to the body beyond its lines, beside ``memory``'s."""
        with_section = list(memory)
        with_section[kind] = ""
        return (frame(system, current, options, tuple(with_section)).size
                - frame(system, current, options, tuple(memory)).size)

    newline = _line_bytes(encoder, "\n")
    memory = list(NO_MEMORY)  # the sections' texts (facts, evidence, summaries), compactions
    kept = []  # (items kept, items dropped, bytes added) of the facts, then of the evidence
    for kind, items, cap in ((0, options.facts, options.max_fact_bytes),
                             (1, options.evidence, options.max_evidence_bytes)):
        lines, added, cost = [], 0, 0
        if items:
            room_left = budget - size if cap is None else min(cap, budget - size)
            lines, added, cost = _section_that_fits(
                kind, items, encoder, overhead(kind, memory), newline, room_left, count,
                None if count is None else room - tokens)
        if lines:
            memory[kind] = "\n".join(lines)
            size, tokens = size + added, tokens + cost
        kept.append((len(lines), len(items) - len(lines), added))
    _check_origins(options.facts[:kept[0][0]], history, options)

    # The newest whole turns that fit what is left. Summaries only add to a request, so no
    # more turns than these fit beside them; with summaries, turns are weighed one by one.
    candidates = _candidates(options)
    one_by_one = bool(candidates)
    low_bytes, low_tokens = _low_water_marks(options, budget, room)
    rooms = (budget - size, None if room is None else room - tokens)  # what the turns may use
    low_rooms = (low_bytes - size, None if room is None else low_tokens - tokens)
    walk = partial(_newest_that_fit, encoder=encoder, shape=shape, extra=options.extra,
                   count=count, one_by_one=one_by_one, breakpoint=options.cache_breakpoints)
    if options.previous is not None and not one_by_one:
        pieces = _held_or_cut(history, first, walk, tally, rooms, low_rooms)
    else:
        pieces, _ = walk(history, rooms[0], tally, token_room=rooms[1])
    kept_turns = sum(turns for _, turns, _, _ in pieces)
    summary_ids, summary_bytes = (), 0
    if candidates:
        def item_bytes(item) -> int:
            """A summary's line, or a compaction item as the encoder writes it."""
            if isinstance(item, Summary):
                return _line_bytes(encoder, summary_line(item))
            return len(encoder.dumps(item.as_dict))

        plan = SummaryPlan(item_bytes, newline, LazyOrder(candidates, _ids(history, options),
                                                          kept_turns),
                           options.max_summary_bytes, rooms[0],
                           None if count is None else (count, rooms[1]),
                           overhead(2, memory), (compaction_overhead(memory),
                                                 len(encoder.item_separator)))
        sizes = [piece_bytes for _, _, piece_bytes, _ in pieces]
        costs = [piece_tokens for _, _, _, piece_tokens in pieces]
        if options.previous is None:
            taken, summary_bytes, summary_tokens, kept_turns = plan.beside_turns(
                sizes, costs, len(history))
        else:
            taken, summary_bytes, summary_tokens, kept_turns = _held_or_cut_with_summaries(
                plan, sizes, costs, len(history), first, low_rooms)
        del pieces[kept_turns:]
        tokens += summary_tokens
        summary_ids = tuple(summary.id for summary in taken)
        lines = [summary_line(item) for item in taken if isinstance(item, Summary)]
        if lines:
            memory[2] = "\n".join(lines)
        memory[3] = [item.as_dict for item in taken if isinstance(item, Compaction)]
    tokens += sum(piece_tokens for _, _, _, piece_tokens in pieces)
    kept_history = tuple(history[len(history) - kept_turns:])
    refuse_request_wide(options, kept_history)
    whole = bare if memory == list(NO_MEMORY) else frame(system, current, options,
                                                         tuple(memory))
    payload = whole.join([piece for piece, _, _, _ in reversed(pieces)])
    facts, evidence = kept
    return Selection(payload, kept_turns, len(history) - kept_turns, budget,
                     None if count is None else _labelled(tokens, options), turns=kept_history,
                     facts_kept=facts[0], facts_dropped=facts[1], fact_bytes=facts[2],
                     evidence_kept=evidence[0], evidence_dropped=evidence[1],
                     evidence_bytes=evidence[2], summary_ids=summary_ids,
                     summaries_dropped=len(options.summaries) - len(summary_ids),
                     summary_bytes=summary_bytes)


def _held_or_cut(history: Sequence[Turn], first: int | None, walk, tally: RequestTally,
                 rooms: tuple[int, int | None], low_rooms: tuple[int, int | None]) -> list:
    """``cache_stable_rule`` on whole turns (no summaries): the newest turns that fit the
    low-water marks (``low_rooms``: bytes, tokens), and with them, where the previous first
    kept turn is older, the turns from it on if they all fit the rest of ``rooms``.
    ``walk`` is ``_newest_that_fit`` with the encoder, dialect and counter set."""
    low, tally = walk(history, low_rooms[0], tally, token_room=low_rooms[1])
    start = len(history) - sum(turns for _, turns, _, _ in low)
    if first is None or first >= start:  # first > start: fewer turns than the marks hold
        return low
    used = sum(piece_bytes for _, _, piece_bytes, _ in low)
    used_tokens = sum(piece_tokens for _, _, _, piece_tokens in low)
    older, _ = walk(history[first:start], rooms[0] - used, tally,
                    token_room=None if rooms[1] is None else rooms[1] - used_tokens,
                    ends_request=start == len(history))
    return low + older if sum(turns for _, turns, _, _ in older) == start - first else low


def _held_or_cut_with_summaries(plan: SummaryPlan, sizes: list[int], costs: list[int],
                                total: int, first: int | None,
                                low_rooms: tuple[int, int | None]) -> tuple:
    """``cache_stable_rule`` beside summaries: ``plan.beside_turns`` under the low-water
    marks, or, where the previous first kept turn is older, its request if it fits. ``sizes``
    and ``costs`` are the newest turns that fit without summaries, one a turn."""
    cut = plan.beside_turns(sizes, costs, total, *low_rooms)
    held = None if first is None else total - first
    if held is not None and cut[3] < held <= len(sizes):
        kept = plan.beside_turns(sizes[:held], costs[:held], total)
        if kept[3] == held:
            return kept
    return cut


def _newest_that_fit(history: Sequence[Turn], room: int, tally: RequestTally, *, encoder,
                     shape, extra: dict, count: MessageCounter | None, token_room: int | None,
                     one_by_one: bool, breakpoint: bool,
                     ends_request: bool = True) -> tuple[list[tuple[bytes, int, int, int]],
                                                         RequestTally]:
    """The newest whole turns that fit ``room`` bytes, ``token_room`` tokens and the
    provider's counts, written beside the request's ``extra`` fields: ``(fragment, turns,
    bytes, tokens)`` per piece, newest first, and the tally of the request with them. With
    ``breakpoint``, the newest turn of ``history`` is marked for the provider's cache (the
    first piece is that turn alone) if it is the request's newest (``ends_request``).

    Walking back, a chunk of turns is written in one ``dumps`` (Python's per-call overhead
    dominates small turns): a chunk that fits is kept, and the next is as many turns as half
    the room left holds at the kept turns' mean size, at most twice the last (turns vary in
    size). The first chunk that does not fit holds the cut: it is walked again one turn at a
    time, and once all its newer turns fit, its oldest is the one that does not (every limit
    only grows with more turns), so it is not written again. With a token limit or
    ``one_by_one`` every piece is one turn (each turn is counted once)."""
    pieces, used, tokens, kept = [], 0, 0, 0
    end, length, separator = len(history), 1, len(encoder.item_separator)
    chunks = count is None and not one_by_one
    stop = 0  # the walk ends at this index: the whole history, until a chunk crosses a limit
    while end > stop:
        start = max(0, end - length)
        turns = history[start:end]
        piece, messages = fragment(encoder, shape, turns, extra,
                                   breakpoint and ends_request and end == len(history))
        piece_bytes = len(piece) + separator
        piece_tokens = 0 if count is None else sum(map(count.turn, turns))
        trial = tally.plus([image for turn in turns for image in turn.images + turn.result_images],
                           messages)
        if (used + piece_bytes <= room and (count is None or tokens + piece_tokens <= token_room)
                and trial.broken() is None):
            pieces.append((piece, len(turns), piece_bytes, piece_tokens))
            used, tokens, tally, end = used + piece_bytes, tokens + piece_tokens, trial, start
            kept += len(turns)
            if chunks:
                length = max(1, min(2 * length, (room - used) * kept // (2 * used)))
        elif length > 1:
            length, chunks, stop = 1, False, start + 1  # the cut is inside this chunk
        else:
            break
    return pieces, tally


def _section_that_fits(kind: int, items: Sequence, encoder, overhead: int, newline: int,
                       room: int, count: MessageCounter | None,
                       token_room: int | None) -> tuple[list[str], int, int]:
    """The lines of the longest prefix of ``items`` (facts: ``kind`` 0; evidence: 1) whose
    section fits ``room`` bytes (``overhead``: the section with one empty line) and
    ``token_room`` tokens; the bytes and tokens it adds. An item after the first that does
    not fit is not read."""
    line_of = (lambda fact: fact_line(check_fact(fact))) if kind == 0 else evidence_line
    lines, sizes, added = [], [], overhead - newline
    for item in items:
        line = line_of(item)
        more = newline + _line_bytes(encoder, line)
        if added + more > room:
            break
        added += more
        lines.append(line)
        sizes.append(more)
    cost = 0
    if count is not None and lines:
        within = _facts_within_tokens if kind == 0 else evidence_within_tokens
        chosen, cost = within(count, items[:len(lines)], token_room)
        added -= sum(sizes[len(chosen):])
        lines = lines[:len(chosen)]
    return lines, added if lines else 0, cost


def _line_bytes(encoder, text: str) -> int:
    """A section line's bytes inside its section's string: JSON escapes each character on
    its own, so a section is its lines' bytes joined by an escaped newline."""
    return len(encoder.dumps(text)) - 2


def _history(history: object) -> Sequence[Turn]:
    """``history`` as a sequence (walking back needs its end: an iterator is read once)."""
    if isinstance(history, (str, bytes, dict)) or history is None or not hasattr(
            history, "__iter__"):
        raise TypeError(f"history must be a list of Turn, not {type(history).__name__}")
    return history if isinstance(history, Sequence) else tuple(history)


def _candidates(options: RequestOptions) -> list:
    """The summaries a request in its dialect sends: every Summary, and the Compaction items
    of its dialect (another's is left out, and counts as dropped)."""
    shape = SHAPES[options.dialect]
    return [item for item in options.summaries if sent_in(shape, item)]


def _ids(history: Sequence[Turn], options: RequestOptions):
    """The history's turn ids: ``ids=`` where given, else each turn's own (``Turn.id``)."""
    if options.ids is None:
        return TurnIds(history)
    if len(options.ids) != len(history):
        raise CoverNotInHistory(f"ids names {len(options.ids)} turns but the history has "
                                f"{len(history)}")
    return options.ids


def _check_origins(facts: Sequence[Fact], history: Sequence[Turn],
                   options: RequestOptions) -> None:
    """OriginNotInHistory if a fact to be sent comes from a turn the history does not hold
    (``memory_sections.check_origins``)."""
    if facts:
        check_origins(facts, history, None if options.ids is None else _ids(history, options))


def _facts_within_tokens(count: MessageCounter, facts: Sequence[Fact],
                         room: int) -> tuple[list, int]:
    """The longest prefix of ``facts`` whose message fits ``room`` tokens, and its cost.

    Usually they all fit: one count. Else every shorter prefix is priced from one count
    of each line (``fact_prefixes``), not by counting each prefix whole: linear, and the
    same answer as select_reference's, which counts them whole from the longest down.
    """
    cost = count.facts(facts)
    if cost <= room:
        return list(facts), cost
    prefixes = count.fact_prefixes(facts[:-1])  # prefixes[k - 1]: the first k facts
    for kept in range(len(facts) - 1, 0, -1):
        if prefixes[kept - 1] <= room:
            return list(facts[:kept]), prefixes[kept - 1]
    return [], 0


@takes_options(*BREAKDOWN)
def byte_breakdown(system: str, history: Sequence[Turn], current: str | tuple, *,
                   options: RequestOptions) -> dict[str, object]:
    """Where the bytes of the full request go: envelope, system, each turn, question.

    ``envelope`` is the model field (and Anthropic's ``max_tokens``), brackets and
    separators outside the messages; each turn's size includes the separator that joins
    it. With tools or steps, ``tools`` is what the tools field adds and ``current_steps``
    what the rounds in progress add; with ``extra=``, ``extra`` what its fields add;
    ``facts``, ``evidence`` and ``summaries``, when given,
    what each section adds beside the ones before it (as ``Selection`` counts them). The
    parts add up to ``len(request_bytes(...))``: every figure is a count of bytes, exact
    for each encoder.
    """
    encoder, shape = get_encoder(options.encoder), SHAPES[options.dialect]
    separator = len(encoder.item_separator)
    texts = sections(options)
    memory, given, before = {}, list(NO_MEMORY), frame(system, current, options).size
    for kind, name in enumerate(("facts", "evidence", "summaries")):
        if texts[kind] is not None:
            given[kind] = texts[kind]
            after = frame(system, current, options, tuple(given)).size
            memory[name], before = after - before, after
    if texts[3]:  # the compaction items are the summaries' too
        given[3] = texts[3]
        after = frame(system, current, options, tuple(given)).size
        memory["summaries"], before = memory.get("summaries", 0) + after - before, after
    whole = frame(system, current, options, texts)
    # The writer's fields alone: the options keep extra= (its store decides the rounds'
    # rules), the frames leave its fields out.
    without_tools = frame(system, current, replace(options, tools=()), with_extra=False)
    bare = frame(system, current, replace(options, tools=(), current_steps=()),
                 with_extra=False)
    parts: dict[str, object] = {
        "system": (0 if system_text(shape, system) is None
                   else len(encoder.dumps(shape.system(system)))),
        "turns": [len(fragment(encoder, shape, [turn], options.extra,
                               options.cache_breakpoints and index == len(history) - 1)[0])
                  + separator for index, turn in enumerate(history)],
        "question": len(encoder.dumps(shape.user(question_content(shape, current))))}
    plain = frame(system, current, options, with_extra=False).size
    if options.extra:
        parts["extra"] = frame(system, current, options).size - plain
    if options.tools:
        parts["tools"] = plain - without_tools.size
    if options.current_steps:
        parts["current_steps"] = without_tools.size - bare.size
    parts.update(memory)
    total = whole.size + sum(parts["turns"])
    envelope = total - sum(value if isinstance(value, int) else sum(value)
                           for value in parts.values())
    return {"envelope": envelope, **parts}
