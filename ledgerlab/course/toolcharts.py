"""Notebook 10's figure: the two slices of a history with a tool round, message by message.

Drawn as ``charts.slice_chart`` draws notebook 02's (solid is sent, hatched dropped, one
colour per turn, the budget dashed), with the tool schemas as a segment of their own and the
provider's verdict on each body in the description. What it draws is measured in
``toolturns``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledgerlab import BudgetError, Turn, select

from .charts import Chart, slices_figure
from .toolturns import (TOOLS, count_slice_under, join_tool_labels, orphans_in, tool_labels,
                        tool_segments, verdict, whole_turn_kept)


def tool_slice_chart(system: str, history: Sequence[Turn], current, budget: int, *,
                     tools=TOOLS, encoder: str = "gson") -> Chart:
    """Bytes per message under both slices, the tools included, with each body's verdict."""
    labels = tool_labels(history)
    last, count_body = count_slice_under(system, history, current, budget, tools=tools,
                                         encoder=encoder)
    count_kept = [label == "SYSTEM" or index >= len(labels) - last
                  for index, label in enumerate(labels)]
    count_row = tool_segments(system, history, current, count_kept, tools=tools,
                              encoder=encoder)
    sent = [label for label, kept in zip(labels, count_kept) if kept]
    problems = "; ".join(orphans_in(sent))
    count_text = (f"sends {join_tool_labels(sent)} and the tools, {len(count_body)} bytes, "
                  f"{verdict(count_body)}" + (f" ({problems})" if problems else ""))
    try:
        chosen = select(system, history, current, budget, tools=tools, encoder=encoder)
        whole_note = f"{chosen.size} bytes"
    except BudgetError as error:
        chosen, needed = None, error.mandatory_bytes
        whole_note = f"rejected (needs {needed})"
    whole_kept = whole_turn_kept(history, chosen)
    whole_row = tool_segments(system, history, current, whole_kept, tools=tools,
                              encoder=encoder)
    whole_sent = [label for label, kept in zip(labels, whole_kept) if kept]
    whole_text = (f"rejected, the mandatory input needs {needed} bytes" if chosen is None
                  else f"sends {join_tool_labels(whole_sent)} and the tools, {chosen.size} "
                       f"bytes, {verdict(chosen.payload)}")

    figure = slices_figure(
        count_row, whole_row, f"{len(count_body)} bytes", whole_note,
        f"bytes of the request (UTF-8, {encoder} encoder); C: tool calls, R: a result", budget)
    return Chart(figure, (
        f"Bar chart of bytes per message at a {budget}-byte budget ({encoder} encoder), the "
        f"tool schemas in every request; sent messages solid, dropped ones hatched, the "
        f"budget a dashed line. Message-count slice (the system message kept): {count_text}. "
        f"Whole-turn slice: {whole_text}."))
