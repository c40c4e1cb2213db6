"""What the course's charts, explorers and quizzes measure: pure functions, no drawing.

Each function computes numbers from the library (the bytes of each piece of a request,
the requests a slice or a budget gives, the lengths of a text, the journal's growth,
what each of two limits keeps, how a budget splits); ``charts`` draws them and
``widgets`` shows them. Nothing here imports matplotlib, so importing the quizzes,
which only measure, draws nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ledgerlab import (BudgetError, DEFAULT_MAX_BYTES, DEFAULT_MODEL, ENCODERS, Selection, Turn,
                       byte_breakdown, encode_record, get_encoder, messages,
                       request_bytes, request_tokens, select, text_tokens, utf16_units)

from .scenario import message_count_slice


# --- The pieces of a request, and the two slices -------------------------------------

@dataclass(frozen=True)
class Segment:
    """One piece of a request drawn as a bar: its bytes, its group and whether it is sent."""

    label: str  # "SYSTEM", "U1", "A1", "turn 1", "question", "envelope", ...
    nbytes: int
    group: str  # "envelope", "system", "turn 1", ..., "question": decides the colour
    kept: bool


def message_labels(turn_count: int) -> list[str]:
    """``SYSTEM, U1, A1, ..., Un, An, U(n+1)``: one name per message of the full request."""
    labels = ["SYSTEM"]
    for number in range(1, turn_count + 1):
        labels += [f"U{number}", f"A{number}"]
    return labels + [f"U{turn_count + 1}"]


def _message_groups(turn_count: int) -> list[str]:
    groups = ["system"]
    for number in range(1, turn_count + 1):
        groups += [f"turn {number}"] * 2
    return groups + ["question"]


def message_segments(system: str, history: Sequence[Turn], current: str, kept: Sequence[bool],
                     *, encoder: str = "gson") -> list[Segment]:
    """The full request cut into the envelope and one segment per message.

    ``kept`` says, per message, whether a slice sends it. A kept segment counts the
    separator before it (except the first one sent), so the kept segments plus the
    envelope add up to exactly the bytes of the request that sends them. A dropped
    segment shows what the message would have cost, separator included.
    """
    chosen = get_encoder(encoder)
    msgs = messages(system, list(history), current)
    if len(kept) != len(msgs):
        raise ValueError(f"kept has {len(kept)} flags for {len(msgs)} messages")
    separator = len(chosen.item_separator.encode("utf-8"))
    envelope = len(chosen.dumps({"model": DEFAULT_MODEL, "messages": []}))
    segments = [Segment("envelope", envelope, "envelope", True)]
    first_sent = True
    for label, group, message, sent in zip(message_labels(len(history)),
                                           _message_groups(len(history)), msgs, kept):
        size = len(chosen.dumps(message))
        if not (sent and first_sent):
            size += separator
        first_sent = first_sent and not sent
        segments.append(Segment(label, size, group, bool(sent)))
    return segments


def slice_problems(labels: Sequence[str], turn_count: int) -> list[str]:
    """What is wrong with a list of sent messages: orphans, a missing system or question."""
    sent = set(labels)
    problems = [f"orphan answer {label}" for label in labels
                if label.startswith("A") and "U" + label[1:] not in sent]
    problems += [f"orphan question {label}" for label in labels
                 if label.startswith("U") and label != f"U{turn_count + 1}"
                 and "A" + label[1:] not in sent]
    if "SYSTEM" not in sent:
        problems.append("no system message")
    if f"U{turn_count + 1}" not in sent:
        problems.append("no current question")
    return problems


def count_slice(system: str, history: Sequence[Turn], current: str, budget: int,
                *, encoder: str = "gson") -> tuple[int, int]:
    """The bad slice under a budget: the most recent messages whose request fits.

    Returns ``(messages kept, bytes)``. It counts messages, not turns, so it can
    keep an answer without its question, and it drops the system message first.
    """
    chosen = get_encoder(encoder)
    total = len(messages(system, list(history), current))
    for last in range(total, 0, -1):
        kept = message_count_slice(system, history, current, last)
        size = len(chosen.dumps({"model": DEFAULT_MODEL, "messages": kept}))
        if size <= budget:
            return last, size
    return 0, len(chosen.dumps({"model": DEFAULT_MODEL, "messages": []}))


def whole_turn_flags(turn_count: int, kept_turns: int) -> list[bool]:
    """Per message: system, the last ``kept_turns`` turns and the question are sent."""
    dropped = turn_count - kept_turns
    return [True] + [index >= dropped for index in range(turn_count) for _ in (0, 1)] + [True]


def suffix_sizes(system: str, history: Sequence[Turn], current: str,
                 *, encoder: str = "gson") -> list[int]:
    """Bytes of the request keeping the newest k turns, for k = 0 .. len(history).

    Entry 0 is the mandatory input; a budget keeps k turns from entry k up to the next.
    """
    parts = byte_breakdown(system, history, current, encoder=encoder)
    sizes = [parts["envelope"] + parts["system"] + parts["question"]]
    for turn_bytes in reversed(parts["turns"]):
        sizes.append(sizes[-1] + turn_bytes)
    return sizes


# --- One text, several lengths; the journal's growth -----------------------------------

class Measure(NamedTuple):
    """A length, what it counts and who reports it."""

    label: str
    value: int
    unit: str  # "UTF-16 units", "code points", "UTF-8 bytes" or "wire bytes"


def text_measures(text: str) -> list[Measure]:
    """One text four ways, then as a JSON string literal under each encoder."""
    result = [
        Measure("UTF-16 units (Java length())", utf16_units(text), "UTF-16 units"),
        Measure("code points (Python len())", len(text), "code points"),
        Measure("UTF-8 bytes of the raw text", len(text.encode("utf-8")), "UTF-8 bytes"),
    ]
    for name, encoder in ENCODERS.items():
        literal = len(encoder.quote(text).encode("utf-8"))
        result.append(Measure(f"JSON string bytes ({name})", literal, "wire bytes"))
    return result


def length_measures(system: str, history: Sequence[Turn], current: str,
                    *, encoder: str = "gson") -> list[Measure]:
    """The same request measured six ways: its raw text, then its serialized body."""
    raw = system + "".join(turn.question + turn.answer for turn in history) + current
    body = request_bytes(system, list(history), current, encoder=encoder).decode("utf-8")
    return [
        Measure("raw text: UTF-16 units (Java length())", utf16_units(raw), "UTF-16 units"),
        Measure("raw text: code points (Python len())", len(raw), "code points"),
        Measure("raw text: UTF-8 bytes", len(raw.encode("utf-8")), "UTF-8 bytes"),
        Measure("request body: UTF-16 units (Java length())", utf16_units(body), "UTF-16 units"),
        Measure("request body: code points (Python len())", len(body), "code points"),
        Measure(f"request body: wire bytes ({encoder})", len(body.encode("utf-8")), "wire bytes"),
    ]


def growth_id(number: int) -> str:
    """The id of the ``number``-th commit of ``journal_growth``: five digits, 00001 to 99999.

    Every id has the same length, so every line of one turn has the same size and the file
    is lines x turns; five characters also give the scenario's turn the base64 length (and
    so the 170-byte line) it has under its own id, 'one'.
    """
    if not 1 <= number <= 99_999:
        raise ValueError("journal_growth numbers its commits 1 to 99,999")
    return f"{number:05d}"


def journal_growth(turn: Turn, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[int]:
    """Bytes of the journal file after 0, 1, 2, ... commits of ``turn`` (ids ``growth_id``).

    Each step adds the line ``encode_record`` gives, which is what ``Journal.commit``
    appends, so the sizes are exact without committing (and fsyncing) thousands of
    turns. The list stops at the last commit the cap lets through: the next one
    would raise JournalFull. ``len(result) - 1`` turns fit.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"max_bytes must be an int, not {type(max_bytes).__name__}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be at least 1, got {max_bytes}")
    sizes = [0]
    while True:
        size = sizes[-1] + len(encode_record(growth_id(len(sizes)), turn.question, turn.answer))
        if size > max_bytes:
            return sizes
        sizes.append(size)


# --- Two limits: bytes on the wire and tokens in the window --------------------------

class TextTokens(NamedTuple):
    label: str
    tokenizer: str
    nbytes: int
    tokens: int

    @property
    def bytes_per_token(self) -> float:
        return self.nbytes / self.tokens


def bytes_per_token(samples: Mapping[str, str],
                    tokenizers: Sequence[str] = ("o200k_base", "cl100k_base")) -> list[TextTokens]:
    """UTF-8 bytes and tokens of each sample text under each tokenizer."""

    return [TextTokens(label, name, len(text.encode("utf-8")), text_tokens(text, tokenizer=name))
            for label, text in samples.items() for name in tokenizers]


class TwoLimits(NamedTuple):
    """What each limit alone would keep, and what both together keep (None: rejected)."""

    kept_by_bytes: int | None
    kept_by_tokens: int | None
    selection: Selection | None
    error: BudgetError | None

    @property
    def binds(self) -> str:
        """Which limit decides: "bytes", "tokens", "both", or "neither" (everything fits)."""
        by_bytes, by_tokens = self.kept_by_bytes, self.kept_by_tokens
        if self.selection is None:  # rejected: by one limit, or by each on its own
            return "both" if by_bytes is None and by_tokens is None else self.error.limit
        if self.selection.dropped == 0:
            return "neither"
        if by_bytes == by_tokens:
            return "both"
        return "bytes" if by_bytes < by_tokens else "tokens"


def two_limits(system: str, history: Sequence[Turn], current: str, max_bytes: int,
               max_tokens: int, *, reserve_tokens: int = 0,
               tokenizer: str = "o200k_base") -> TwoLimits:
    """Select under the byte budget alone, the token limit alone, and both."""

    wide_bytes = len(request_bytes(system, list(history), current)) + max_bytes
    wide_tokens = request_tokens(system, history, current, tokenizer=tokenizer) + max_tokens
    token_options = dict(reserve_tokens=reserve_tokens, tokenizer=tokenizer)

    def kept(max_bytes: int, max_tokens: int) -> Selection | BudgetError:
        try:
            return select(system, history, current, max_bytes, max_tokens=max_tokens,
                          **token_options)
        except BudgetError as error:
            return error

    by_bytes = kept(max_bytes, wide_tokens)
    by_tokens = kept(wide_bytes, max_tokens)
    both = kept(max_bytes, max_tokens)
    return TwoLimits(getattr(by_bytes, "kept", None), getattr(by_tokens, "kept", None),
                     both if isinstance(both, Selection) else None,
                     both if isinstance(both, BudgetError) else None)


# --- Pinned facts: how a budget splits between the mandatory input, facts and turns -------

class Split(NamedTuple):
    """The request ``select`` sends under one budget, cut into its three parts (bytes)."""

    budget: int
    mandatory: int  # the envelope, the system message and the question
    facts: int  # the facts message, its separator included (Selection.fact_bytes)
    turns: int  # the kept turns
    facts_kept: int
    turns_kept: int

    @property
    def sent(self) -> int:
        return self.mandatory + self.facts + self.turns


def budget_split(system: str, history: Sequence[Turn], current: str, facts: Sequence,
                 budgets: Sequence[int], *, max_fact_bytes: int | None = None,
                 encoder: str = "gson") -> list[Split | None]:
    """``select`` with ``facts`` under each budget, cut into its parts; None where rejected."""
    mandatory = len(request_bytes(system, [], current, encoder=encoder))
    rows: list[Split | None] = []
    for budget in budgets:
        try:
            chosen = select(system, history, current, budget, facts=facts,
                            max_fact_bytes=max_fact_bytes, encoder=encoder)
        except BudgetError:
            rows.append(None)
            continue
        rows.append(Split(budget, mandatory, chosen.fact_bytes,
                          chosen.size - mandatory - chosen.fact_bytes, chosen.facts_kept,
                          chosen.kept))
    return rows


class MemorySplit(NamedTuple):
    """The request ``select`` sends under one budget with facts, evidence and summaries, cut
    into its five parts (bytes) and what each part holds (notebook 09)."""

    budget: int
    mandatory: int  # the envelope, the system message and the question
    facts: int  # Selection.fact_bytes
    evidence: int  # Selection.evidence_bytes
    summaries: int  # Selection.summary_bytes
    turns: int  # the kept turns
    counts: tuple[int, int, int, int]  # facts kept, evidence kept, summaries sent, turns kept

    @property
    def sent(self) -> int:
        return self.mandatory + self.facts + self.evidence + self.summaries + self.turns


def memory_split(system: str, history: Sequence[Turn], current: str, budgets: Sequence[int], *,
                 facts: Sequence = (), evidence: Sequence = (), summaries: Sequence = (),
                 ids: Sequence[str] | None = None, **caps) -> list[MemorySplit | None]:
    """``select`` with facts, evidence and summaries under each budget, cut into its parts;
    None where rejected. ``caps``: ``max_fact_bytes``, ``max_evidence_bytes``,
    ``max_summary_bytes``, as ``select`` takes them."""
    mandatory = len(request_bytes(system, [], current))
    rows: list[MemorySplit | None] = []
    for budget in budgets:
        try:
            chosen = select(system, history, current, budget, facts=facts, evidence=evidence,
                            summaries=summaries, ids=ids, **caps)
        except BudgetError:
            rows.append(None)
            continue
        memory = chosen.fact_bytes + chosen.evidence_bytes + chosen.summary_bytes
        rows.append(MemorySplit(budget, mandatory, chosen.fact_bytes, chosen.evidence_bytes,
                                chosen.summary_bytes, chosen.size - mandatory - memory,
                                (chosen.facts_kept, chosen.evidence_kept,
                                 len(chosen.summary_ids), chosen.kept)))
    return rows
