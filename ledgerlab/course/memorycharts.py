"""Notebook 09's figure: how one budget splits between the mandatory input (system message and
question), the facts, the evidence, the summaries and the turns.

Drawn as notebook 08's split is (``charts.split_figure``: stacked areas against the budget, the
budget dashed, rejected budgets grey), with evidence and summaries as parts of their own, in
the order ``select`` pays for them. What it draws is measured in ``measures.memory_split``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledgerlab import Turn

from .charts import FACTS_COLOUR, OKABE_ITO, SYSTEM_COLOUR, Chart, split_figure, split_start
from .chartstyle import styled
from .measures import MemorySplit, memory_split

# Label, colour, hatch, bytes: in the order select pays for them, and stacks them.
MEMORY_PARTS = (
    ("system + question (mandatory)", SYSTEM_COLOUR, None, lambda row: row.mandatory),
    ("facts", FACTS_COLOUR, "..", lambda row: row.facts),
    ("evidence", OKABE_ITO["bluish green"], "//", lambda row: row.evidence),
    ("summaries", OKABE_ITO["sky blue"], "xx", lambda row: row.summaries),
    ("turns", OKABE_ITO["orange"], None, lambda row: row.turns),
)
ITEM_NAMES = (("fact", "facts"), ("evidence item", "evidence items"), ("summary", "summaries"),
              ("turn", "turns"))


def _counted(count: int, names: tuple[str, str]) -> str:
    return f"{count} {names[0] if count == 1 else names[1]}"


def memory_steps(rows: Sequence[MemorySplit | None]) -> list[str]:
    """Where the request changes as the budget grows: one phrase per change, with the count
    and bytes of each part sent beside the mandatory input."""
    steps, last = [], None
    for row in rows:
        if row is None or row.counts == last:
            continue
        last = row.counts
        parts = zip(row.counts, ITEM_NAMES, (row.facts, row.evidence, row.summaries, row.turns))
        sent = [f"{_counted(count, names)} ({size} bytes)" for count, names, size in parts
                if count]
        steps.append(f"from {row.budget}: {', '.join(sent) or 'the mandatory input alone'}, "
                     f"{row.sent} sent")
    return steps


@styled
def memory_split_chart(system: str, history: Sequence[Turn], current: str, budgets: range, *,
                       facts: Sequence = (), evidence: Sequence = (), summaries: Sequence = (),
                       ids: Sequence[str] | None = None, budget: int | None = None,
                       **caps) -> Chart:
    """The bytes sent against the budget, stacked in five parts; ``caps`` are select's
    ``max_fact_bytes``, ``max_evidence_bytes`` and ``max_summary_bytes``."""
    rows = memory_split(system, history, current, budgets, facts=facts, evidence=evidence,
                        summaries=summaries, ids=ids, **caps)
    given = (f"{_counted(len(facts), ITEM_NAMES[0])}, {_counted(len(evidence), ITEM_NAMES[1])}"
             f" and {_counted(len(summaries), ITEM_NAMES[2])} offered")
    capped = ", ".join(f"{name.removeprefix('max_').removesuffix('_bytes')} cap {value} bytes"
                       for name, value in sorted(caps.items()) if value is not None)
    # Drawn with the caps on a line of their own: on one line it ran past the figure's edge.
    title, drawn = ((f"How the budget splits: {given}" + (f",{gap}{capped}" if capped else ""))
                    for gap in (" ", "\n"))
    figure = split_figure(budgets, rows, MEMORY_PARTS, budget=budget, encoder="gson",
                          title=drawn)
    marked = ""
    if budget is not None:
        row = next((r for r in rows if r is not None and r.budget == budget), None)
        marked = f" Marked, {budget} bytes: " + ("rejected." if row is None else " + ".join(
            f"{label.split(' (')[0]} {value(row)}" for label, _, _, value in MEMORY_PARTS)
            + f" = {row.sent} bytes.")
    return Chart(figure, (
        f"Stacked area of the bytes sent against the budget, {budgets[0]} to {budgets[-1]} "
        f"bytes, {title.removeprefix('How the budget splits: ')}: {split_start(rows)}"
        f"{'; '.join(memory_steps(rows))}.{marked}"))
