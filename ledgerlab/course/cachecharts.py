"""Notebook 12's figure: the billed input of each call of a growing conversation, under the
whole-turn rule every call and under the cache-stable rule, beside the same requests with no
cache at all.

One line per schedule, told apart by colour and by dash (``charts.LINE_COLOURS`` and
``LINE_STYLES``), each call's cost in US cents by the provider's documented rule and its
dated prices. What it draws is measured in ``lessons.prompt_caching`` (``Run``).
"""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ledgerlab import provider_cache

from .charts import BUDGET_COLOUR, DPI, LINE_COLOURS, LINE_STYLES, Chart
from .chartstyle import styled
from .lessons.prompt_caching import BUDGET, DIALECT, Run, cents


def _no_cache(whole: Run) -> list[float]:
    """Each whole-turn request billed at the input price, as if nothing were cached."""
    _, rate = provider_cache(whole.model)
    return [item.tokens * rate.input / 1e6 for item in whole.bill]


@styled
def cache_bill_chart(whole: Run, stable: Run) -> Chart:
    """Each call's billed input (US cents): the whole-turn rule every call, the cache-stable
    rule at ``stable.low_water``, and the whole-turn requests with no cache (dotted)."""
    cache, _ = provider_cache(whole.model)
    calls = range(len(whole.bill))
    full = next(at for at, chosen in enumerate(whole.selections) if chosen.dropped)
    no_cache = _no_cache(whole)
    figure = Figure(figsize=(9, 4.2), dpi=DPI, layout="constrained")
    ax = figure.subplots()
    lines = ((f"whole-turn rule every call: {cents(whole.cost)}", whole.bill),
             (f"cache-stable rule, low_water {stable.low_water:.2f}: {cents(stable.cost)}",
              stable.bill))
    for index, (label, bill) in enumerate(lines):
        ax.plot(calls, [100 * item.cost for item in bill], color=LINE_COLOURS[index],
                linestyle=LINE_STYLES[index], linewidth=2, marker="o", markersize=3,
                label=label)
    ax.plot(calls, [100 * cost for cost in no_cache], color=LINE_COLOURS[2],
            linestyle=LINE_STYLES[2], linewidth=2,
            label=f"the same requests with no cache: {cents(sum(no_cache))}")
    ax.axvline(full, color=BUDGET_COLOUR, linestyle="--", linewidth=1)
    ax.annotate(f"budget full ({BUDGET:,} bytes)", (full, 0), xytext=(4, 4),
                textcoords="offset points")
    ax.set_xlim(0, len(whole.bill) - 1)
    ax.set_ylim(0, None)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("call")
    ax.set_ylabel("billed input (US cents)")
    ax.set_title(f"Each call's input bill, {whole.model} (prices of {cache.checked})")
    figure.legend(loc="outside lower center", ncol=1, frameon=False)

    def mean_after(bill) -> str:
        after = [item.cost for item in bill[full:]]
        return cents(sum(after) / len(after))

    return Chart(figure, (
        f"Line chart of the billed input of each of {len(whole.bill)} calls of one "
        f"conversation to {whole.model} ({DIALECT} with its cache marks, prices of "
        f"{cache.checked}), at a {BUDGET:,}-byte budget, full from call {full} on (dashed). "
        f"Whole-turn rule every call: {cents(whole.cost)} in all, its first kept turn moved "
        f"at {whole.cuts} calls, {mean_after(whole.bill)} a call once the budget is full. "
        f"Cache-stable rule with low_water {stable.low_water:.2f}: {cents(stable.cost)}, "
        f"moved at {stable.cuts} calls (each a spike), {mean_after(stable.bill)} a call once "
        f"the budget is full. The whole-turn requests with no cache at all (dotted): "
        f"{cents(sum(no_cache))}."))
