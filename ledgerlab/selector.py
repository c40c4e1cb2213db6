"""The selector: project a request from the ledger under a byte budget.

The rule: system instructions and the current question are mandatory. Start
with every stored turn and remove the oldest complete turn until the serialized
request fits. The kept turns are always a contiguous suffix of the history (a
large recent turn is never skipped to pack an older short one), the history is
never changed, and if the mandatory part alone does not fit, BudgetError.

With ``max_tokens`` the request must also fit a token limit, with
``reserve_tokens`` kept free for the reply: "fits" means both limits hold.
Tokens are counted by ``ledgerlab.tokens`` (OpenAI's cookbook rule).

Pinned facts come first, in priority order: the longest prefix of them that fits
``max_fact_bytes`` (and leaves room for the mandatory input, under both limits)
is kept, never skipping one to keep a lower one. They go into a second system
message right after the first, one ``[origin] text`` line each. The bytes they
add do not depend on the turns, so the two budgets compose: the turns then fill
what is left by the whole-turn rule. Without facts the request is exactly what
it was before facts existed.

``select_reference`` is the article's readable loop; ``select`` gives the same
bytes but walks back from the newest turn, encoding only what it keeps, with the
piece writer that ``request_bytes`` uses (``wire.RequestWriter``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .tokens import MessageCounter, check_tokenizer, counter, request_tokens
from .wire import (DEFAULT_MODEL, Fact, Tool, Turn, check_dialect, check_int, request_bytes,
                   request_writer)

PLAIN_MANDATORY = "system message + current question"
RICH_MANDATORY = "system message, tool schemas, current question and its tool rounds"


def _mandatory_named(tools, current_steps) -> str:
    """What a BudgetError names as the mandatory input."""
    return RICH_MANDATORY if tools or current_steps else PLAIN_MANDATORY


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
    tokens: int | None = None  # the kept request's tokens; None without a token limit
    facts_kept: int = 0  # the first facts_kept facts given are in the request
    facts_dropped: int = 0
    fact_bytes: int = 0  # the bytes the facts message adds, its separator included

    @property
    def size(self) -> int:
        return len(self.payload)

    def __repr__(self) -> str:
        tokens = "" if self.tokens is None else f", tokens={self.tokens}"
        facts = ("" if not (self.facts_kept or self.facts_dropped) else
                 f", facts_kept={self.facts_kept}, facts_dropped={self.facts_dropped}, "
                 f"fact_bytes={self.fact_bytes}")
        return (
            f"Selection(kept={self.kept}, dropped={self.dropped}, "
            f"bytes={self.size}, budget={self.budget}{tokens}{facts})"
        )


def _token_limit(max_tokens: object, reserve_tokens: object, tokenizer: object,
                 dialect: str) -> int | None:
    """Check the token options; return the tokens the request may use (None: no limit).

    Anthropic's body carries the reserve as its ``max_tokens``, so there a reserve
    needs no token limit of its own."""
    check_tokenizer(tokenizer)
    reserve = check_int(reserve_tokens, "reserve_tokens", minimum=0)
    if max_tokens is None:
        if reserve and dialect == "openai-chat":
            raise ValueError("reserve_tokens needs max_tokens: a reserve is kept within a limit")
        return None
    limit = check_int(max_tokens, "max_tokens", minimum=1)
    if reserve >= limit:
        raise ValueError(f"reserve_tokens ({reserve}) must be below max_tokens ({limit}): "
                         f"the reserve would leave no room for the request")
    return limit - reserve


def _fact_cap(max_fact_bytes: object) -> int | None:
    return None if max_fact_bytes is None else check_int(max_fact_bytes, "max_fact_bytes",
                                                         minimum=0)


def select_reference(
    system: str,
    history: Sequence[Turn],
    current: str | tuple,
    max_bytes: int,
    *,
    facts: Sequence[Fact] = (),
    max_fact_bytes: int | None = None,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
    dialect: str = "openai-chat",
    tools: Sequence[Tool] = (),
    current_steps: Sequence = (),
    max_tokens: int | None = None,
    reserve_tokens: int = 0,
    tokenizer: str = "o200k_base",
) -> Selection:
    """The article's loop: drop the oldest whole turn and re-serialize until it fits.

    With ``max_tokens``, "fits" also means ``request_tokens(...) + reserve_tokens
    <= max_tokens``. Facts first: the longest prefix of ``facts`` whose request
    without turns fits (its facts within ``max_fact_bytes``), tried from the
    longest down. Quadratic in the number of stored turns; kept for teaching and as
    the oracle that ``select`` is tested against.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    room = _token_limit(max_tokens, reserve_tokens, tokenizer, check_dialect(dialect))
    cap = _fact_cap(max_fact_bytes)
    turns, facts = list(history), list(facts)
    options = dict(model=model, encoder=encoder, dialect=dialect, tools=tools,
                   current_steps=current_steps, reserve_tokens=reserve_tokens)
    counting = dict(tokenizer=tokenizer, tools=tools, current_steps=current_steps)
    mandatory = len(request_bytes(system, [], current, **options))

    def facts_fit(count: int) -> bool:
        size = len(request_bytes(system, [], current, facts=facts[:count], **options))
        return ((cap is None or size - mandatory <= cap) and size <= budget
                and (room is None or request_tokens(system, [], current, facts=facts[:count],
                                                    **counting) <= room))

    pinned = next((facts[:count] for count in range(len(facts), 0, -1) if facts_fit(count)), [])
    kept_facts = dict(facts_kept=len(pinned), facts_dropped=len(facts) - len(pinned),
                      fact_bytes=len(request_bytes(system, [], current, facts=pinned,
                                                   **options)) - mandatory)
    for start in range(len(turns) + 1):
        payload = request_bytes(system, turns[start:], current, facts=pinned, **options)
        if len(payload) > budget:
            continue
        if room is None:
            return Selection(payload, len(turns) - start, start, budget, **kept_facts)
        tokens = request_tokens(system, turns[start:], current, facts=pinned, **counting)
        if tokens <= room:
            return Selection(payload, len(turns) - start, start, budget, tokens, **kept_facts)
    # Even with no turn left the request does not fit: the last one is mandatory input.
    what = _mandatory_named(tools, current_steps)
    if len(payload) > budget:
        raise BudgetError(len(payload), budget, mandatory=what)
    raise BudgetError(len(payload), budget, mandatory_tokens=tokens, max_tokens=max_tokens,
                      reserve_tokens=reserve_tokens, mandatory=what)


def select(
    system: str,
    history: Sequence[Turn],
    current: str | tuple,
    max_bytes: int,
    *,
    facts: Sequence[Fact] = (),
    max_fact_bytes: int | None = None,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
    dialect: str = "openai-chat",
    tools: Sequence[Tool] = (),
    current_steps: Sequence = (),
    max_tokens: int | None = None,
    reserve_tokens: int = 0,
    tokenizer: str = "o200k_base",
) -> Selection:
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
    is found in one pass, not by counting each prefix whole.
    """
    budget = check_int(max_bytes, "max_bytes", minimum=1)
    room = _token_limit(max_tokens, reserve_tokens, tokenizer, check_dialect(dialect))
    cap = _fact_cap(max_fact_bytes)
    if not isinstance(history, Sequence):
        history = tuple(history)  # walking back needs the end: materialize an iterator
    if not isinstance(facts, Sequence):
        facts = tuple(facts)
    writer = request_writer(encoder, dialect)
    head = writer.head(model, system, reserve_tokens)
    tail = writer.tail(current, current_steps, tools)
    what = _mandatory_named(tools, current_steps)
    size = len(head) + len(tail)
    if size > budget:
        raise BudgetError(size, budget, mandatory=what)
    tokens = None
    if room is not None:
        count = counter(tokenizer)
        tokens = count.mandatory(system, current, current_steps, tools)
        if tokens > room:
            raise BudgetError(size, budget, mandatory_tokens=tokens, max_tokens=max_tokens,
                              reserve_tokens=reserve_tokens, mandatory=what)
    # The facts first, then the turns in what is left: the facts' bytes do not
    # depend on which turns are kept, so the two budgets compose.
    lines = writer.facts_that_fit(facts, budget - size if cap is None else min(cap, budget - size))
    pinned = len(lines)
    if room is not None:
        pinned, fact_tokens = _facts_within_tokens(count, facts, pinned, room - tokens)
        tokens += fact_tokens
    if pinned:
        with_facts = writer.head(model, system, reserve_tokens, lines[:pinned])
        fact_bytes, head = len(with_facts) - len(head), with_facts
        size += fact_bytes
    else:
        fact_bytes = 0
    facts_kept = dict(facts_kept=pinned, facts_dropped=len(facts) - pinned,
                      fact_bytes=fact_bytes)
    pieces = []
    turn_bytes = writer.turn
    for turn in reversed(history):
        if type(turn) is Turn and size + turn._least_bytes > budget:
            break  # it cannot fit, whatever its encoding: no need to write it
        piece = turn_bytes(turn)
        size += len(piece)
        if size > budget:
            break
        if room is not None:
            turn_tokens = count.turn(turn)
            if tokens + turn_tokens > room:
                break
            tokens += turn_tokens
        pieces.append(piece)
    pieces.reverse()
    return Selection(b"".join([head, *pieces, tail]), len(pieces),
                     len(history) - len(pieces), budget, tokens, **facts_kept)


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


def byte_breakdown(
    system: str,
    history: Sequence[Turn],
    current: str | tuple,
    *,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
    dialect: str = "openai-chat",
    tools: Sequence[Tool] = (),
    current_steps: Sequence = (),
    reserve_tokens: int = 0,
) -> dict[str, object]:
    """Where the bytes of the full request go: envelope, system, each turn, question.

    ``envelope`` is the model field (and Anthropic's ``max_tokens``), brackets and
    separators outside the messages; each turn's size includes the separators that
    join it. With tools or steps, ``tools`` is what the tools field adds and
    ``current_steps`` what the rounds in progress add. The parts add up to
    ``len(request_bytes(...))``.
    """
    writer = request_writer(encoder, dialect)
    head = writer.head(model, system, reserve_tokens)
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
    envelope = len(head) + len(tail) - system_bytes - question_bytes - extra
    return {"envelope": envelope, **parts}
