"""How ``select`` chooses the evidence and the summaries it sends (issue 37).

The rule is ``ledgerlab.selector``'s (its docstring and ``select_reference``); this module
holds the fast pieces: the summaries' order of trial, the greedy pass for a first kept
turn (``SummaryPlan``), and the longest prefix of evidence lines within bytes and tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

from .checks import id_tag
from .memory import Summary
from .options import RequestOptions
from .shapes import evidence_line, summary_line
from .tokens import MessageCounter


class CoverNotInHistory(ValueError):
    """A summary covers a turn id that is not among ``ids`` (the history's turn ids), or
    ``ids`` does not name the history's turns one for one. Nothing is selected."""


def summary_order(history_length: int, options: RequestOptions) -> list[tuple]:
    """The summaries in the order they are tried: ``(newest, summary)`` each, ``newest`` the
    index of the newest turn it covers, newest first (on a tie, the one given later).
    CoverNotInHistory if ``ids`` cannot place them."""
    summaries, ids = options.summaries, options.ids
    if not summaries:
        return []
    if ids is None:
        raise CoverNotInHistory("summaries need ids= (the history's turn ids, in order) to "
                                "know which turns they cover")
    if len(ids) != history_length:
        raise CoverNotInHistory(f"ids names {len(ids)} turns but the history has "
                                f"{history_length}")
    index = dict(zip(ids, range(len(ids))))  # C speed: ids may be a long history's
    if len(index) != len(ids):
        raise CoverNotInHistory("ids names a turn more than once")
    order, place = [], index.__getitem__
    for given, summary in enumerate(summaries):
        try:
            newest = max(map(place, summary.covers))
        except KeyError:
            missing = next(turn_id for turn_id in summary.covers if turn_id not in index)
            raise CoverNotInHistory(f"summary {id_tag(summary.id)} covers {id_tag(missing)}, "
                                    f"which is not among ids") from None
        order.append((newest, given, summary))
    order.sort(key=lambda item: (-item[0], -item[1]))
    return [(newest, summary) for newest, _, summary in order]


class SummaryPlan:
    """The summaries ``select`` takes for a first kept turn: ``taken(start)``.

    ``order`` is ``summary_order``'s. The candidates for a start are those whose newest
    covered turn is before it: a tail of ``order``, growing as start grows. The greedy
    pass is made again only when that tail changes (each line written and counted once),
    so a walk over every k costs one pass per summary that joins, not one per k.
    """

    def __init__(self, writer, order: list, cap: int | None, room: int,
                 tokens: tuple | None, overhead: int) -> None:
        self.order, self.cap, self.room, self.overhead = order, cap, room, overhead
        self.count, self.token_room = tokens if tokens is not None else (None, None)
        self.separator = len(writer.fact_separator)
        self.line = writer.line
        self.lines: dict[str, bytes] = {}  # by summary id: written when first tried
        self.costs: dict[str, tuple[int, int]] = {}
        self.position, self.result = len(order), None

    def taken(self, start: int) -> tuple[list[Summary], int, int]:
        """The summaries taken (newest first), their bytes and their tokens."""
        position = self.position
        while position and self.order[position - 1][0] < start:
            position -= 1
        if self.result is None or position != self.position:
            self.position, self.result = position, self._greedy(position)
        return self.result

    def _greedy(self, position: int) -> tuple[list[Summary], int, int]:
        taken, covered, size, tokens = [], set(), 0, 0
        limit = self.room if self.cap is None else min(self.cap, self.room)
        for _, summary in self.order[position:]:
            turns = summary.covers
            # The bytes first: the cheapest test, and the one most candidates fail once the
            # section is full (any order of the tests skips the same ones).
            line = self.length(summary)
            more = size + (line + self.separator if taken else line + self.overhead)
            if more > limit or not covered.isdisjoint(turns):
                continue
            if self.count is not None:
                alone, with_newline = self._costs(summary)
                # The first taken is sent last: only its line has no newline after it.
                cost = tokens + (with_newline if taken else self.count.role["system"] + alone)
                if cost > self.token_room:
                    continue
                tokens = cost
            taken.append(summary)
            covered.update(turns)
            size = more
        return taken, size, tokens

    def length(self, summary: Summary) -> int:
        """The bytes of a summary's escaped line."""
        line = self.lines.get(summary.id)
        if line is None:
            line = self.lines[summary.id] = self.line(summary_line(summary))
        return len(line)

    def _costs(self, summary: Summary) -> tuple[int, int]:
        costs = self.costs.get(summary.id)
        if costs is None:
            costs = self.costs[summary.id] = self.count.line_costs(summary_line(summary))
        return costs


def lines_that_fit(writer, evidence: Sequence, overhead: int,
                    room: int) -> tuple[list[str], list[bytes]]:
    """The lines of the first evidence items whose section fits ``room`` bytes, as text and
    escaped."""
    size, texts, lines = overhead - len(writer.fact_separator), [], []
    for item in evidence:
        text = evidence_line(item)
        line = writer.line(text)
        size += len(writer.fact_separator) + len(line)
        if size > room:
            break
        texts.append(text)
        lines.append(line)
    return texts, lines


def lines_within_tokens(count: MessageCounter, texts: list[str],
                         room: int) -> tuple[list[str], int]:
    """The longest prefix of a section's lines whose message fits ``room`` tokens, and its
    cost, each line counted once (``line_costs``)."""
    prefixes, before = [], count.role["system"]
    for text in texts:
        alone, with_newline = count.line_costs(text)
        prefixes.append(before + alone)
        before += with_newline
    for kept in range(len(texts), 0, -1):
        if prefixes[kept - 1] <= room:
            return texts[:kept], prefixes[kept - 1]
    return [], 0
