"""The selector: project a request from the ledger under a byte budget.

The rule: system instructions and the current question are mandatory. Start
with every stored turn and remove the oldest complete turn until the serialized
request fits. The kept turns are always a contiguous suffix of the history (a
large recent turn is never skipped to pack an older short one), the history is
never changed, and if the mandatory part alone does not fit, BudgetError.

With ``max_tokens`` the request must also fit a token limit (counted by ``ledgerlab.tokens``,
an estimate), with ``reserve_tokens`` kept free for the reply: "fits" means both limits hold.

Pinned facts come first, in priority order: the longest prefix of them that fits
``max_fact_bytes`` (and leaves room for the mandatory input, under both limits)
is kept, never skipping one to keep a lower one. They go into a second system
message right after the first, one ``[origin] text`` line each. The bytes they
add do not depend on the turns, so the two budgets compose: the turns then fill
what is left by the whole-turn rule. Without facts the request is exactly what
it was before facts existed.

Evidence and summaries come after the facts, in this order of precedence. Evidence:
the longest prefix of it, in the order given, within ``max_evidence_bytes`` and the
limits. Summaries before turns: for each k (the newest turns kept, from the most
down), the candidates are the summaries whose covered turns are all dropped, taken
newest first (by the newest turn each covers; on a tie the later given first), each
skipped if it overlaps one taken or if the request without turns would no longer fit
``max_summary_bytes``, the budget or the token limit; the result is the largest k
whose turns fit beside its summaries. So a summary never travels beside a turn it
covers. They are sent oldest first (the reverse of the order taken).

The provider's documented limits (``ledgerlab.limits``) hold too: a budget over its body
limit, or mandatory input over a limit, raises ProviderLimitError; a turn that would take
the images or messages over their counts does not fit, like one over the budget; two kept
turns reusing a call id where the dialect refuses it raise InvalidTurn.

``select_reference`` is the article's readable loop; ``select`` gives the same
bytes but walks back from the newest turn, encoding only what it keeps, with the
piece writer that ``request_bytes`` uses (``wire.RequestWriter``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .checks import check_int
from .options import BREAKDOWN, COUNT, SELECT, RequestOptions, takes_options
from .dialects import RequestTally, check_budget
from .memo import remembered
from .memory import Summary
from .memory_sections import (LazyOrder, SummaryPlan, check_ids, evidence_that_fits,
                              evidence_within_tokens, summary_order)
from .dialects import SHAPES, evidence_line, message_count, refuse_reused_ids, summary_line
from .dialects import TokenCount, request_basis
from .tokens import MessageCounter, counter
from .images import Image
from .steps import ToolResult
from .turns import Fact, Turn
from .wire import request_bytes, request_writer

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
    dialect: ``token_rules.request_basis``)."""
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
    count = counter(options.tokenizer, options.dialect)
    total = (count.mandatory(system, current, options.current_steps, options.tools, options.model)
             + count.facts(options.facts)
             + count.section([evidence_line(item) for item in options.evidence])
             + count.section([summary_line(item) for item in options.summaries]))
    return _labelled(total + sum(count.turn(turn) for turn in turns), options)


def _current_counts(dialect: str, current: str | tuple, steps: tuple) -> tuple[tuple, int]:
    """The images and the number of messages of the current question and its rounds."""
    return (tuple(part for part in ((current,) if isinstance(current, str) else current)
                  if isinstance(part, Image))
            + tuple(image for step in steps if isinstance(step, ToolResult)
                    for image in step.images),
            message_count(SHAPES[dialect], steps=steps))


_current_counted = remembered(_current_counts)  # the same each request of a tool loop


def _tally(options: RequestOptions, turns: Sequence[Turn], current: str | tuple) -> RequestTally:
    """The images and messages of a request with ``turns``, against the provider's limits."""
    shape, tally = SHAPES[options.dialect], RequestTally(options.dialect)
    tally.add(*_current_counted(options.dialect, current, options.current_steps))
    for turn in turns:
        tally.add(turn.images + turn.result_images, message_count(shape, turn))
    return tally


def _provider_limits(options: RequestOptions, budget: int, current: str | tuple) -> RequestTally:
    """The mandatory input's tally; ProviderLimitError if the budget or that input alone is
    over a limit of the provider (``ledgerlab.limits``)."""
    check_budget(options.dialect, budget)
    tally = _tally(options, (), current)
    error = tally.broken()
    if error is not None:
        raise error
    return tally


@takes_options(*SELECT)
def select_reference(system: str, history: Sequence[Turn], current: str | tuple,
                     max_bytes: int, *, options: RequestOptions) -> Selection:
    """The article's loop: drop the oldest whole turn and re-serialize until it fits.

    With ``max_tokens``, "fits" also means ``request_tokens(...) + reserve_tokens
    <= max_tokens``. Facts first: the longest prefix of ``facts`` whose request
    without turns fits (its facts within ``max_fact_bytes``), tried from the
    longest down. Quadratic in the number of stored turns; kept for teaching and as
    the oracle that ``select`` is tested against. The options are ``RequestOptions``'.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    room = _token_limit(options)
    turns = list(history)
    _provider_limits(options, budget, current)
    order = summary_order(len(turns), options)
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
    with_facts = options
    options = longest_prefix(with_facts, "evidence", evidence, options.max_evidence_bytes)
    with_evidence = options
    kept_memory = dict(facts_kept=len(options.facts),
                       facts_dropped=len(facts) - len(options.facts),
                       fact_bytes=size(with_facts) - size(bare),
                       evidence_kept=len(options.evidence),
                       evidence_dropped=len(evidence) - len(options.evidence),
                       evidence_bytes=size(with_evidence) - size(with_facts))
    for start in range(len(turns) + 1):
        taken: list[Summary] = []  # newest first: sent in the reverse order
        for newest, summary in order:
            if newest >= start or any(set(summary.covers) & set(other.covers)
                                      for other in taken):
                continue  # a covered turn is kept, or it overlaps one taken
            trial = replace(with_evidence, summaries=[*taken, summary][::-1])
            if fits(trial, with_evidence, with_evidence.max_summary_bytes):
                taken.append(summary)
        options = replace(with_evidence, summaries=taken[::-1])
        memory = dict(kept_memory, summary_ids=tuple(item.id for item in options.summaries),
                      summaries_dropped=len(order) - len(taken),
                      summary_bytes=size(options) - size(with_evidence))
        payload = request_bytes(system, turns[start:], current, options=options)
        if len(payload) > budget or _tally(options, turns[start:], current).broken():
            continue
        tokens = None
        if room is not None:
            tokens = request_tokens(system, turns[start:], current, options=options)
            if tokens > room:
                continue
        refuse_reused_ids(options.dialect, turns[start:], options.current_steps)
        return Selection(payload, len(turns) - start, start, budget, tokens, **memory)
    # Even with no turn left the request does not fit: the last one is mandatory input.
    what = _mandatory_named(options)
    if len(payload) > budget:
        raise BudgetError(len(payload), budget, mandatory=what)
    raise BudgetError(len(payload), budget, mandatory_tokens=tokens,
                      max_tokens=options.max_tokens, reserve_tokens=options.reserve_tokens,
                      mandatory=what)


@takes_options(*SELECT)
def select(system: str, history: Sequence[Turn], current: str | tuple, max_bytes: int, *,
           options: RequestOptions) -> Selection:
    """The whole-turn rule, exact and fast: same result as ``select_reference``.

    The request is ``head + turn pieces + tail``, where each turn's piece is its
    messages (question, tool rounds, answer) with the separator that joins them.
    Walking back from the newest turn and adding pieces while they fit costs time in
    proportion to the request returned, not to the stored history. Token counts of
    messages add up too, so with ``max_tokens`` each kept turn is counted once, the
    same way. A turn's tool calls and their results are in one piece: they are kept
    or dropped together, and never split.

    Mandatory input: the system message, the current question and ``current_steps``
    (the tool rounds of the turn in progress), and the ``tools``' schemas, which
    every request carries. If they alone do not fit, BudgetError.

    So it checks only the turns it encodes: the newest turns, down to the first
    one that does not fit. An older item that is not a Turn is never looked at
    and is counted in ``dropped``, where ``select_reference`` (which encodes
    every candidate) raises TypeError. Checking it would mean scanning the whole
    history on every call. Likewise a fact after the first one that does not fit.

    Facts: a fact's line adds the same bytes to the facts whatever surrounds it
    (JSON escapes each character alone), so their bytes are summed fact by fact,
    stopping at the first that does not fit. Their tokens are counted line by line
    too (``MessageCounter.fact_prefixes``: a line's tokens with the newline after it
    do not depend on the next line), so the longest prefix within the token limit
    is found in one pass, not by counting each prefix whole. The options are
    ``RequestOptions``'.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    room = _token_limit(options)
    cap = options.max_fact_bytes
    if type(history) is not list and not isinstance(history, Sequence):
        history = tuple(history)  # walking back needs the end: materialize an iterator
    if options.summaries:
        check_ids(len(history), options)
    tally = _provider_limits(options, budget, current)
    facts, reserve_tokens = options.facts, options.reserve_tokens
    writer = request_writer(options.encoder, options.dialect)
    head = writer.head(options.model, system, reserve_tokens)
    tail = writer.tail(current, options.current_steps, options.tools)
    what = _mandatory_named(options)
    size = len(head) + len(tail)
    if size > budget:
        raise BudgetError(size, budget, mandatory=what)
    tokens = None
    if room is not None:
        count = counter(options.tokenizer, options.dialect)
        tokens = _labelled(count.mandatory(system, current, options.current_steps,
                                           options.tools, options.model), options)
        if tokens > room:
            raise BudgetError(size, budget, mandatory_tokens=tokens,
                              max_tokens=options.max_tokens, reserve_tokens=reserve_tokens,
                              mandatory=what)
    # The facts first, then the turns (the facts' bytes do not depend on them: budgets compose).
    shape = writer.shape
    lines = writer.facts_that_fit(facts, budget - size if cap is None else min(cap, budget - size),
                                  system)
    pinned = len(lines)
    if room is not None:
        pinned, fact_tokens = _facts_within_tokens(count, facts, pinned, room - tokens)
        tokens += fact_tokens
    lines = lines[:pinned]
    fact_bytes = (len(writer.head(options.model, system, reserve_tokens, lines)) - len(head)
                  if lines else 0)  # no facts: no section, the same head
    size += fact_bytes
    # Then the evidence, in the order given: the longest prefix that fits what is left.
    evidence, cap = options.evidence, options.max_evidence_bytes
    shown, evidence_lines = evidence_that_fits(
        writer, evidence, writer.section_overhead(1, (bool(lines),), system) if evidence else 0,
        budget - size if cap is None else min(cap, budget - size))
    if room is not None:
        shown, evidence_tokens = evidence_within_tokens(count, shown, room - tokens)
        tokens += evidence_tokens
        evidence_lines = evidence_lines[:len(shown)]
    base = (writer.head(options.model, system, reserve_tokens, lines, evidence_lines)
            if lines or evidence_lines else head)  # no section: the same bytes
    evidence_bytes = len(base) - len(head) - fact_bytes
    size += evidence_bytes
    memory = dict(facts_kept=pinned, facts_dropped=len(facts) - pinned, fact_bytes=fact_bytes,
                  evidence_kept=len(shown), evidence_dropped=len(evidence) - len(shown),
                  evidence_bytes=evidence_bytes)
    # The newest turns that fit beside facts and evidence: summaries only add to a request,
    # so no more turns than these can fit beside them.
    pieces, turn_costs, turn_size, turn_tokens = [], [], 0, 0
    turn_bytes, messages_allowed = writer.turn, tally.max_messages
    for turn in reversed(history):
        if type(turn) is Turn and size + turn_size + turn._least_bytes > budget:
            break  # it cannot fit, whatever its encoding: no need to write it
        piece = turn_bytes(turn)
        if size + turn_size + len(piece) > budget:
            break
        if room is not None:
            cost = count.turn(turn)
            if tokens + turn_tokens + cost > room:
                break
        if turn.plain:  # the hot path: two messages, no image, so only their count can break
            tally.messages += 2
            if messages_allowed is not None and tally.messages > messages_allowed:
                break
        else:
            tally.add(turn.images + turn.result_images, message_count(shape, turn))
            if tally.broken():  # a provider's count (images, messages) more turns only grow
                break
        if room is not None:
            turn_tokens += cost
            turn_costs.append(cost)
        turn_size += len(piece)
        pieces.append(piece)
    summary_ids, summary_bytes = (), 0
    if options.summaries:
        plan = SummaryPlan(writer, LazyOrder(options.summaries, options.ids, len(pieces)),
                           options.max_summary_bytes, budget - size,
                           None if room is None else (count, room - tokens),
                           writer.section_overhead(2, (bool(lines), bool(shown)), system))
        taken, summary_bytes, summary_tokens, turn_size, turn_tokens = plan.beside_turns(
            pieces, turn_costs, len(history), turn_size, turn_tokens)
        size += summary_bytes
        if room is not None:
            tokens += summary_tokens
        summary_ids = tuple(summary.id for summary in taken)
        base = writer.head(options.model, system, reserve_tokens, lines, evidence_lines,
                           [writer.memory_line(summary) for summary in taken])
    memory.update(summary_ids=summary_ids,
                  summaries_dropped=len(options.summaries) - len(summary_ids),
                  summary_bytes=summary_bytes)
    if room is not None:
        tokens += turn_tokens
    pieces.reverse()
    refuse_reused_ids(options.dialect, history[len(history) - len(pieces):],
                      options.current_steps)
    return Selection(b"".join([base, *pieces, tail]), len(pieces),
                     len(history) - len(pieces), budget,
                     None if tokens is None else _labelled(tokens, options), **memory)


def _facts_within_tokens(count: MessageCounter, facts: Sequence[Fact], pinned: int,
                         room: int) -> tuple[int, int]:
    """The longest of the first ``pinned`` facts whose message fits ``room`` tokens, and its cost.

    Usually they all fit: one count. Else every shorter prefix is priced from one count
    of each line (``fact_prefixes``), not by counting each prefix whole: linear, and the
    same answer as select_reference's, which counts them whole from the longest down.
    """
    if not pinned:
        return 0, 0
    cost = count.facts(facts[:pinned])
    if cost <= room:
        return pinned, cost
    prefixes = count.fact_prefixes(facts[:pinned - 1])  # prefixes[k - 1]: the first k facts
    for kept in range(pinned - 1, 0, -1):
        if prefixes[kept - 1] <= room:
            return kept, prefixes[kept - 1]
    return 0, 0


@takes_options(*BREAKDOWN)
def byte_breakdown(system: str, history: Sequence[Turn], current: str | tuple, *,
                   options: RequestOptions) -> dict[str, object]:
    """Where the bytes of the full request go: envelope, system, each turn, question.

    ``envelope`` is the model field (and Anthropic's ``max_tokens``), brackets and
    separators outside the messages; each turn's size includes the separators that
    join it. With tools or steps, ``tools`` is what the tools field adds and
    ``current_steps`` what the rounds in progress add; ``facts``, ``evidence`` and
    ``summaries``, when given, what each section adds beside the ones before it (as
    ``Selection`` counts them). The parts add up to
    ``len(request_bytes(...))``. Every figure is a count of bytes, so exact, for each
    encoder (tokens, an estimate, are ``request_tokens``'). The options are
    ``RequestOptions``'.
    """
    writer = request_writer(options.encoder, options.dialect)
    tools, current_steps = options.tools, options.current_steps
    head = writer.head(options.model, system, options.reserve_tokens)
    # Facts, evidence and summaries: what each section adds beside the ones before it.
    sections = {"facts": writer.fact_lines(options.facts),
                "evidence": [writer.line(evidence_line(item)) for item in options.evidence],
                "summaries": [writer.line(summary_line(item)) for item in options.summaries]}
    memory, given = {}, []
    for name, lines in sections.items():
        given.append(lines)
        if lines:
            longer = writer.head(options.model, system, options.reserve_tokens, *given)
            memory[name], head = len(longer) - len(head), longer
    tail = writer.tail(current, current_steps, tools)
    system_bytes = len(writer.system_field(system))
    question_bytes = len(writer.finish(writer.user_message(current)))
    parts: dict[str, object] = {"system": system_bytes,
                                "turns": [len(writer.turn(turn)) for turn in history],
                                "question": question_bytes}
    extra = 0
    without_tools = len(writer.tail(current, current_steps))
    if tools:
        parts["tools"] = len(tail) - without_tools
        extra += parts["tools"]
    if current_steps:
        parts["current_steps"] = without_tools - len(writer.tail(current))
        extra += parts["current_steps"]
    parts.update(memory)
    extra += sum(memory.values())
    envelope = len(head) + len(tail) - system_bytes - question_bytes - extra
    return {"envelope": envelope, **parts}
