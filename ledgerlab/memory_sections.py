"""How ``select`` chooses the summaries it sends, and the evidence within a token limit.

The rule is ``ledgerlab.selector``'s (its docstring and ``select_reference``); this module
holds the pieces that keep it linear: the summaries' order of trial (placed lazily for a
long history, ``LazyOrder``), the greedy pass for a first kept turn (``SummaryPlan``), and
the longest prefix of the evidence within a token limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, repeat
from operator import not_

from .checks import id_tag
from .memory import Compaction, Summary
from .dialects import evidence_line, summary_line
from .tokens import MessageCounter
from .turns import Fact, Turn


class CoverNotInHistory(ValueError):
    """A summary covers a turn id that is not among the history's turn ids (each turn's
    ``Turn.id``, or ``ids=``), or ``ids`` does not name the history's turns one for one.
    Nothing is selected."""


class OriginNotInHistory(CoverNotInHistory):
    """A fact ``select`` would send names an origin that is not among the history's turn ids
    (``ids=``, or each turn's ``Turn.id``): its turn is gone (forgotten, or never in this
    history), and the fact may carry its text. Nothing is selected."""


def check_origins(facts: Sequence[Fact], history: Sequence[Turn],
                  ids: Sequence[str] | None) -> None:
    """OriginNotInHistory for the first of ``facts`` whose origin is not among the history's
    turn ids: ``ids`` where given, else the ids its turns carry. A history whose newest turn
    carries no id (turns made by hand, or no turns) names none: nothing is checked, and it
    costs nothing (a long hand-made history is not walked).

    The ids are read from the newest back, a block at a time, only until every origin is
    found: facts pinned from recent turns cost a few blocks, not the whole history.
    """
    missing = {fact.origin for fact in facts}
    if ids is None and (not history or getattr(history[-1], "id", None) is None):
        return
    end, block = len(history), 256
    while missing and end:
        start = max(0, end - block)
        missing.difference_update(ids[start:end] if ids is not None else
                                  [getattr(turn, "id", None) for turn in history[start:end]])
        end, block = start, 2 * block
    if missing:
        gone = next(fact for fact in facts if fact.origin in missing)
        raise OriginNotInHistory(f"fact {id_tag(gone.id)} comes from {id_tag(gone.origin)}, "
                                 f"which is not among the history's turn ids: its turn is "
                                 f"gone, and the fact may hold its text")


class TurnIds(Sequence):
    """The ids of a history's turns (``Turn.id``), read only where a summary's place is
    looked up: a long history is not walked whole on every call."""

    def __init__(self, history: Sequence[Turn]) -> None:
        self.history = history

    def __len__(self) -> int:
        return len(self.history)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._id(turn) for turn in self.history[index]]
        return self._id(self.history[index])

    @staticmethod
    def _id(turn: object) -> str:
        turn_id = getattr(turn, "id", None)
        if turn_id is None:
            raise CoverNotInHistory("summaries need to know which turns they cover: the "
                                    "history's turns carry no id (Turn.id, as a journal's "
                                    "history gives them), so give ids= (the turn ids, in order)")
        return turn_id


def _not_among_ids(summary: Summary, index: dict) -> CoverNotInHistory:
    missing = next(turn_id for turn_id in summary.covers if turn_id not in index)
    return CoverNotInHistory(f"summary {id_tag(summary.id)} covers {id_tag(missing)}, "
                             f"which is not among ids")


def summary_order(ids: Sequence[str], summaries: Sequence[Summary]) -> list[tuple]:
    """The summaries in the order they are tried: ``(newest, summary)`` each, ``newest`` the
    index of the newest turn it covers, newest first (on a tie, the one given later).
    CoverNotInHistory if ``ids`` (the history's turn ids) cannot place them."""
    if not summaries:
        return []
    ids = list(ids)
    index = dict(zip(ids, range(len(ids))))  # C speed: ids may be a long history's
    if len(index) != len(ids):
        raise CoverNotInHistory("ids names a turn more than once")
    order, place = [], index.__getitem__
    for given, summary in enumerate(summaries):
        try:
            newest = max(map(place, summary.covers))
        except KeyError:
            raise _not_among_ids(summary, index) from None
        order.append((newest, given, summary))
    order.sort(key=lambda item: (-item[0], -item[1]))
    return [(newest, summary) for newest, _, summary in order]


class LazyOrder:
    """``summary_order``'s order, placed only as far as the greedy pass reads it.

    ``select`` can keep at most ``window`` turns (the newest that fit without summaries), so
    those ids are indexed up front, with a block of older ones: a summary covering one of
    them gets its exact newest index from them, since every newer id is indexed too. The
    others cover only older turns; they are candidates for every k tried, and come after,
    placed a block of older ids at a time (``extend``) when a pass reaches them. So a long
    history's ids are indexed only as far back as the summaries tried reach, not all of
    them on every call. Covers are checked as they are placed: a summary no pass reaches
    (the section is full before it) is not checked, as ``select`` does not check an older
    item of the history it never looks at.
    """

    def __init__(self, summaries: Sequence[Summary], ids: Sequence[str], window: int) -> None:
        self.ids, self.low, self.index, self.summaries = ids, len(ids), {}, summaries
        self.pool = list(enumerate(summaries))  # (given, summary): not placed yet
        self.items: list[tuple[int, Summary]] = []  # newest first, as ``summary_order``
        # The oldest index any item covers (-1: one covers an id not indexed yet), and
        # whether two items' spans (newest to oldest index) may share a turn.
        self.floor, self.overlapping = len(ids), False
        # Four times the window at first (the summaries sent usually reach a little
        # further back than the turns they replace), then twice as far each time.
        self.step = 4 * max(window, 1024)
        self._place_block()
        # The first ``near`` items cover a turn that may be kept: the candidates among them
        # depend on k; every later item is a candidate for every k.
        first_kept = len(ids) - window
        self.near = sum(1 for newest, _ in self.items if newest >= first_kept)

    def _place_block(self) -> None:
        """Index the next block of older ids and place the summaries that cover one."""
        low = max(0, self.low - self.step)
        self.index.update(zip(self.ids[low:self.low], range(low, self.low)))
        self.low, self.step = low, 2 * self.step
        if len(self.index) != len(self.ids) - low:
            raise CoverNotInHistory("ids names a turn more than once")
        placed, get = [], self.index.get
        # Which summaries cover no indexed id, tested in one C-level map over the pool.
        apart = list(map(self.index.keys().isdisjoint,
                         [summary.covers for _, summary in self.pool]))
        for given, summary in compress(self.pool, map(not_, apart)):
            # Every id newer than its newest is indexed: that index is exact.
            where = list(map(get, summary.covers, repeat(-1)))
            placed.append((max(where), given, min(where), summary))
        self.pool = pool = list(compress(self.pool, apart))
        # The fewest bytes a line of the pool can take: no block is placed for a pass whose
        # room left is below it (it could take none of them).
        self.least = min((summary._least_bytes for _, summary in pool), default=0)
        placed.sort(key=lambda item: (-item[0], -item[1]))
        # Newest first, an item's span meets an earlier one's only if its newest index is
        # not below every earlier oldest: spans apart, the covers are too (no set built).
        for newest, _, oldest, _ in placed:
            self.overlapping = self.overlapping or newest >= self.floor
            self.floor = min(self.floor, oldest)
        self.items += [(newest, summary) for newest, _, _, summary in placed]
        if not low:  # every id is indexed now: check every summary, as summary_order does
            known = self.index.__contains__
            wrong = next((summary for summary in self.summaries
                          if not all(map(known, summary.covers))), None)
            if wrong is not None:
                raise _not_among_ids(wrong, self.index)

    def extend(self, room: int) -> bool:
        """Place the summaries covering the next block of older ids, if one of them can fit
        ``room`` bytes; False when none is left or none could. CoverNotInHistory for one
        whose covers are not all among ``ids``."""
        while self.pool and self.least <= room:  # (once every id is indexed, the pool is empty)
            placed = len(self.items)
            self._place_block()
            if len(self.items) > placed:
                return True
        return False


class SummaryPlan:
    """The summaries ``select`` takes for a first kept turn: ``taken(start)``.

    ``line_bytes`` gives a summary's line's bytes (or a compaction item's bytes), ``newline``
    the escaped newline's; ``overhead`` what the summaries' section adds with one empty
    line; ``items``, (what the first compaction item adds beyond its bytes, the item
    separator): a Summary is a line of the section, a Compaction an item of its own.
    ``order`` is a ``LazyOrder``. The candidates for a start are those whose newest covered
    turn is before it: a tail of the order, growing as start grows. The greedy pass is made
    again only when that tail changes (each line written and counted once), and it stops as
    soon as the room left is below any summary's least line; so a walk over every k costs
    one short pass per summary that joins, not one per k.
    """

    def __init__(self, line_bytes, newline: int, order: LazyOrder, cap: int | None, room: int,
                 tokens: tuple | None, overhead: int, items: tuple[int, int]) -> None:
        self.order, self.cap, self.room, self.overhead = order, cap, room, overhead
        self.item_overhead, self.item_separator = items
        self.count, self.token_room = tokens if tokens is not None else (None, None)
        self.separator = newline
        self.length = line_bytes
        self.costs: dict[int, tuple[int, int]] = {}
        self.position, self.result = order.near, None

    def beside_turns(self, sizes: list[int], costs: list[int], total: int,
                     room: int | None = None,
                     token_room: int | None = None) -> tuple[list[Summary], int, int, int]:
        """The rule's k: the most of the newest turns (their bytes ``sizes`` and tokens
        ``costs``, newest first, of the ``total`` stored) that fit beside the summaries
        taken for them, within ``room`` bytes and ``token_room`` tokens (the plan's own
        where not given: smaller ones are the cache-stable rule's low-water marks; the
        summaries taken for a k are the same either way). Returns the summaries (oldest
        first, as sent), their bytes and tokens, and k (0 if none fits)."""
        room = self.room if room is None else room
        token_room = self.token_room if token_room is None else token_room
        self.position, self.result = self.order.near, None  # a walk from the most turns
        kept, turn_size, turn_tokens = len(sizes), sum(sizes), sum(costs)
        while True:
            taken, size, tokens = self.taken(total - kept)
            if not kept or size + turn_size <= room and (self.count is None
                                                         or tokens + turn_tokens <= token_room):
                break  # within the plan's own room k = 0 always fits: a pass takes only
            kept -= 1  # what fits without turns
            turn_size -= sizes[kept]
            turn_tokens -= costs[kept]
        return taken[::-1], size, tokens, kept

    def taken(self, start: int) -> tuple[list[Summary], int, int]:
        """The summaries taken (newest first), their bytes and their tokens."""
        position, items = self.position, self.order.items
        while position and items[position - 1][0] < start:
            position -= 1
        if self.result is None or position != self.position:
            self.position, self.result = position, self._greedy(position)
        return self.result

    def _extra(self, summary, lines: int, items: int) -> int:
        """What a summary adds beyond its line: its separator, or the section's overhead if
        it is the first line; a compaction item likewise, as an item of its own."""
        if isinstance(summary, Compaction):
            return self.item_separator if items else self.item_overhead
        return self.separator if lines else self.overhead

    def _greedy(self, position: int) -> tuple[list[Summary | Compaction], int, int]:
        taken, size, tokens = [], 0, 0
        lines = taken_items = 0  # the summaries' lines taken, the compaction items taken
        order, items = self.order, self.order.items
        covered = set() if order.overlapping else None  # None: no two spans meet
        limit = self.room if self.cap is None else min(self.cap, self.room)
        while position < len(items) or order.extend(limit - size - min(
                self.separator if lines else self.overhead,
                self.item_separator if taken_items else self.item_overhead)):
            summary = items[position][1]
            position += 1
            if covered is None and order.overlapping:  # an extension placed an overlap
                covered = set().union(*(item.covers for item in taken))
            # The bytes first: the cheapest test, and the one most candidates fail once the
            # section is full (any order of the tests skips the same ones); a line that
            # cannot fit is not written.
            extra = self._extra(summary, lines, taken_items)
            if size + extra + summary._least_bytes > limit:
                continue
            more = size + extra + self.length(summary)
            if more > limit or (covered is not None and not covered.isdisjoint(summary.covers)):
                continue
            if self.count is not None:
                if isinstance(summary, Compaction):
                    cost = tokens + self._costs(summary)[0]
                else:
                    alone, with_newline = self._costs(summary)
                    # The first line taken is sent last: only it has no newline after it.
                    cost = tokens + (with_newline if lines else self.count.role["system"]
                                     + alone)
                if cost > self.token_room:
                    continue
                tokens = cost
            taken.append(summary)
            if isinstance(summary, Compaction):
                taken_items += 1
            else:
                lines += 1
            if covered is not None:
                covered.update(summary.covers)
            size = more
        return taken, size, tokens

    def _costs(self, summary: Summary | Compaction) -> tuple[int, int]:
        costs = self.costs.get(id(summary))
        if costs is None:
            costs = self.costs[id(summary)] = (
                (self.count.compaction(summary), 0) if isinstance(summary, Compaction)
                else self.count.line_costs(summary_line(summary)))
        return costs


def evidence_within_tokens(count: MessageCounter, items: list,
                           room: int) -> tuple[list, int]:
    """The longest prefix of the evidence items whose section fits ``room`` tokens, and its
    cost, each line counted once (``line_costs``)."""
    prefixes, before = [], count.role["system"]
    for item in items:
        alone, with_newline = count.line_costs(evidence_line(item))
        prefixes.append(before + alone)
        before += with_newline
    for kept in range(len(items), 0, -1):
        if prefixes[kept - 1] <= room:
            return items[:kept], prefixes[kept - 1]
    return [], 0
