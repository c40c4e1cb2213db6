"""The course's figures: each function returns a Chart and prints nothing.

A Chart is a matplotlib Figure (``chart.figure``) with a description: a sentence with the
key numbers, which is the chart's ``text/plain``. A notebook shows the PNG; a screen
reader, a terminal, nbval and a static site read the description. Figures are built with
``matplotlib.figure.Figure``, not pyplot, so nothing is shown or kept open behind the
caller's back. Sizes are explicit, text is projector-sized (``chartstyle``), legends sit
under the axes, off the data, and colours come from the Okabe-Ito palette, which stays
distinct under the common forms of colour blindness; "dropped" is drawn hatched, so it never
relies on hue. This module only draws: what it draws is measured in ``measures``, which the
widgets and the quizzes use without loading matplotlib.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import StrMethodFormatter

from ledgerlab import BudgetError, DEFAULT_MAX_BYTES, Selection, Turn, byte_breakdown, select

from .chartstyle import chart_style, styled
from .display import join_labels, split_steps, turns
from .measures import (Measure, Segment, TextTokens, TwoLimits, budget_split, count_slice,
                       message_labels, message_segments, slice_problems, suffix_sizes,
                       whole_turn_flags)

# Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}
ENVELOPE_COLOUR = "#BBBBBB"  # neutral grey: punctuation, not content
TOOLS_COLOUR = "#666666"  # dark grey: the tool schemas, sent with every request (notebook 10)
SYSTEM_COLOUR = OKABE_ITO["blue"]
QUESTION_COLOUR = OKABE_ITO["vermillion"]
TURN_COLOURS = tuple(OKABE_ITO[name] for name in
                     ("orange", "sky blue", "bluish green", "reddish purple", "yellow"))
BUDGET_COLOUR = OKABE_ITO["black"]
# One colour and one dash style per line of a line chart: told apart without colour too.
LINE_COLOURS = (OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["reddish purple"])
LINE_STYLES = ("-", "--", ":")
DPI = 100


# --- The chart, and the pieces every bar chart shares ------------------------------------

def figure_html(png: str, description: str) -> str:
    """A PNG (base64) as an HTML figure, ``description`` as its alt text and its caption."""
    text = html.escape(description)
    return (f'<figure class="ledgerlab-figure" style="margin: 0.5em 0">'
            f'<img class="ledgerlab-figure-image" style="max-width: 100%; height: auto" '
            f'src="data:image/png;base64,{png}" alt="{text}">'
            f'<figcaption class="ledgerlab-chart-description" '
            f'style="font-size: 0.95rem; line-height: 1.4; max-width: 60em">{text}'
            f'</figcaption></figure>')


@dataclass(frozen=True, eq=False)
class Chart:
    """A figure and the sentence that describes it, with its key numbers.

    Shown in a notebook it is an HTML figure: the PNG, with the description as its ``alt``
    text and as a visible caption under it, so that a learner in JupyterLab, Voilà, Lite or
    the site can read the numbers a question sends them to, and a screen reader can too.
    The bundle keeps the PNG and the description as ``text/plain`` for a front end without
    HTML (a terminal, nbval's text compare), instead of ``<Figure size 900x260 with 1 Axes>``.
    """

    figure: Figure
    description: str

    def png(self) -> bytes:
        buffer = io.BytesIO()
        with chart_style():  # tick labels are made as the figure is drawn
            self.figure.savefig(buffer, format="png")
        return buffer.getvalue()

    def html(self, png: str) -> str:
        """The figure for a page: the PNG (base64) with its description as alt and caption."""
        return figure_html(png, self.description)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        png = base64.b64encode(self.png()).decode("ascii")
        return {"text/html": self.html(png), "image/png": png, "text/plain": self.description}

    def __repr__(self) -> str:
        return self.description


UNIT_COLOURS = {
    "UTF-16 units": OKABE_ITO["sky blue"],
    "code points": OKABE_ITO["bluish green"],
    "UTF-8 bytes": OKABE_ITO["orange"],
    "wire bytes": OKABE_ITO["vermillion"],
}


def group_colour(group: str) -> str:
    """The colour of a segment group: envelope, system, question, tools, or turn N."""
    if group.startswith("turn "):
        return TURN_COLOURS[(int(group.split()[1]) - 1) % len(TURN_COLOURS)]
    return {"envelope": ENVELOPE_COLOUR, "system": SYSTEM_COLOUR,
            "question": QUESTION_COLOUR, "tools": TOOLS_COLOUR}[group]


def _new_figure(width: float, height: float) -> tuple[Figure, object]:
    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    return figure, figure.subplots()


def _drawn(segments: Sequence[Segment]) -> list[Segment]:
    """A row's segments in the order they are drawn: the sent ones, then the dropped ones."""
    return [s for s in segments if s.kept] + [s for s in segments if not s.kept]


def _draw_row(ax, y: float, segments: Sequence[Segment], *, with_bytes: bool = False) -> int:
    """Sent segments solid from zero, then the dropped ones hatched after them; each wide
    enough is labelled with its name (and, ``with_bytes``, its bytes below the name).

    Returns the bytes sent, where the solid part ends.
    """
    left = 0
    sent = sum(s.nbytes for s in segments if s.kept)
    for segment in _drawn(segments):
        colour = group_colour(segment.group)
        if segment.kept:
            ax.barh(y, segment.nbytes, left=left, height=0.6, color=colour, edgecolor="white")
        else:
            ax.barh(y, segment.nbytes, left=left, height=0.6, color="white",
                    edgecolor=colour, hatch="///", linewidth=1)
        if segment.label != "envelope" and segment.nbytes >= 14:
            dark = segment.kept and colour in (SYSTEM_COLOUR, QUESTION_COLOUR, TOOLS_COLOUR)
            label = f"{segment.label}\n{segment.nbytes}" if with_bytes else segment.label
            ax.text(left + segment.nbytes / 2, y, label, ha="center", va="center",
                    color="white" if dark else "black", gid=f"segment:{y}")
        left += segment.nbytes
    return sent


def _legend(ax, groups: Sequence[str], budget: int | None) -> None:
    handles = [Patch(facecolor=group_colour(g), label=g) for g in groups]
    handles.append(Patch(facecolor="white", edgecolor="#555555", hatch="///",
                         label="dropped (not sent)"))
    if budget is not None:
        handles.append(ax.axvline(budget, color=BUDGET_COLOUR, linestyle="--", linewidth=1.5,
                                  label=f"budget ({budget} bytes)"))
    _below(ax, handles, ncol=min(len(handles), 4))


def _below(ax, handles=None, ncol: int = 2) -> None:
    """The legend on the figure, under the axes: constrained layout keeps it whole however
    wide the tick labels are (an axes legend was clipped, or covered the data)."""
    ax.figure.legend(handles=handles or ax.get_legend_handles_labels()[0],
                     loc="outside lower center", ncol=ncol, frameon=False)


def _unique_groups(segments: Sequence[Segment]) -> list[str]:
    return list(dict.fromkeys(s.group for s in segments))


@styled
def slice_chart(system: str, history: Sequence[Turn], current: str, budget: int,
                *, encoder: str = "gson") -> Chart:
    """Bytes per message under both slices, coloured by turn, dropped hatched, budget dashed."""
    last, count_bytes = count_slice(system, history, current, budget, encoder=encoder)
    total = 2 * len(history) + 2
    labels = message_labels(len(history))
    count_row = message_segments(system, history, current,
                                 [index >= total - last for index in range(total)],
                                 encoder=encoder)
    try:
        chosen = select(system, history, current, budget, encoder=encoder)
        whole_flags, whole_note = whole_turn_flags(len(history), chosen.kept), f"{chosen.size} bytes"
        whole_text = (f"sends {join_labels([n for n, sent in zip(labels, whole_flags) if sent])}, "
                      f"{chosen.size} bytes")
    except BudgetError as error:
        whole_flags = [False] * total
        whole_note = f"rejected (needs {error.mandatory_bytes})"
        whole_text = f"rejected, the mandatory input needs {error.mandatory_bytes} bytes"
    count_labels = labels[total - last:] if last else []
    problems = "; ".join(slice_problems(count_labels, len(history))) or "well formed"
    whole_row = message_segments(system, history, current, whole_flags, encoder=encoder)

    figure = slices_figure(count_row, whole_row, f"{count_bytes} bytes", whole_note,
                           f"bytes of the request (UTF-8, {encoder} encoder)", budget,
                           with_bytes=True)
    return Chart(figure, (
        f"Bar chart of bytes per message at a {budget}-byte budget ({encoder} encoder); sent "
        f"messages solid, dropped ones hatched, the budget a dashed line. Message-count slice: "
        f"sends {join_labels(count_labels)}, {count_bytes} bytes ({problems}). "
        f"Whole-turn slice: {whole_text}. Each message's bytes, the separator before it "
        f"included except in the first one sent: message-count row {_row_bytes(count_row)}; "
        f"whole-turn row {_row_bytes(whole_row)}."))


def _row_bytes(segments: Sequence[Segment]) -> str:
    """A row's parts in words, in the order they are drawn: ``envelope 41, U2 37, ...,
    SYSTEM 37 (dropped)``."""
    return ", ".join(f"{s.label} {s.nbytes}{'' if s.kept else ' (dropped)'}"
                     for s in _drawn(segments))


@styled
def slices_figure(count_row: list, whole_row: list, count_note: str, whole_note: str,
                  xlabel: str, budget: int, *, with_bytes: bool = False):
    """Two bars, the message-count slice above the whole-turn one: sent solid, dropped hatched
    (each message labelled with its bytes too, ``with_bytes``)."""
    figure, ax = _new_figure(9, 3.4)
    _draw_row(ax, 1, count_row, with_bytes=with_bytes)
    _draw_row(ax, 0, whole_row, with_bytes=with_bytes)
    ax.set_yticks([1, 0], [f"message-count slice\n{count_note}", f"whole-turn slice\n{whole_note}"])
    ax.set_xlabel(xlabel)
    ax.set_title(f"Budget {budget} bytes: what each slice sends (solid) and drops (hatched)")
    _legend(ax, _unique_groups(count_row), budget)
    return figure


@styled
def turn_bytes_chart(system: str, history: Sequence[Turn], current: str, budget: int,
                     *, encoder: str = "gson") -> Chart:
    """One stacked bar: envelope, system, each turn, question; dropped turns hatched."""
    parts = byte_breakdown(system, history, current, encoder=encoder)
    try:
        chosen: Selection | None = select(system, history, current, budget, encoder=encoder)
        kept_turns = chosen.kept
        title = (f"Budget {budget} bytes ({encoder}): {chosen.kept} of {len(history)} turns kept, "
                 f"{chosen.size} bytes sent")
        outcome = f"{chosen.kept} of {len(history)} turns kept, {chosen.size} bytes sent"
    except BudgetError as error:
        chosen, kept_turns = None, 0
        title = (f"Budget {budget} bytes ({encoder}): rejected, the mandatory input "
                 f"needs {error.mandatory_bytes} bytes")
        outcome = f"Rejected: the mandatory input needs {error.mandatory_bytes} bytes"
    first_kept = len(history) - kept_turns
    segments = [Segment("envelope", parts["envelope"], "envelope", chosen is not None),
                Segment("system", parts["system"], "system", chosen is not None)]
    segments += [Segment(f"turn {n}", size, f"turn {n}", chosen is not None and n > first_kept)
                 for n, size in enumerate(parts["turns"], start=1)]
    segments.append(Segment("question", parts["question"], "question", chosen is not None))

    figure, ax = _new_figure(9, 2.6)
    _draw_row(ax, 0, segments)
    ax.set_yticks([0], ["request"])
    ax.set_xlim(0, max(sum(s.nbytes for s in segments), budget) * 1.05)
    ax.set_xlabel(f"bytes of the request (UTF-8, {encoder} encoder)")
    ax.set_title(title)
    _legend(ax, _unique_groups(segments), budget)
    parts_text = _row_bytes(segments)
    return Chart(figure, (
        f"Stacked bar of the request's bytes at a {budget}-byte budget ({encoder} encoder), "
        f"the budget a dashed line, dropped parts hatched: {parts_text} bytes. {outcome}."))


@styled
def retained_chart(system: str, history: Sequence[Turn], current: str,
                   *, budgets: Sequence[int] = (), encoders: Sequence[str] = ("gson",),
                   max_budget: int | None = None) -> Chart:
    """Turns retained against budget: a step function per encoder, ``budgets`` marked.

    The x-axis reaches past the largest request and every marked budget, so a budget
    above the full request (a ceiling, not a target) is on the chart.
    """
    steps = {name: suffix_sizes(system, history, current, encoder=name) for name in encoders}
    top = max_budget or int(max([max(s) for s in steps.values()] + list(budgets)) * 1.1)
    figure, ax = _new_figure(9, 3.8)
    for index, (name, sizes) in enumerate(steps.items()):
        ax.step(sizes + [top], list(range(len(sizes))) + [len(sizes) - 1], where="post",
                color=LINE_COLOURS[index % 3], linestyle=LINE_STYLES[index % 3], linewidth=2,
                label=f"{name}: rejected below {sizes[0]} bytes")
    first = steps[encoders[0]]
    ax.axvspan(0, first[0], color=ENVELOPE_COLOUR, alpha=0.35,
               label=f"BudgetError ({encoders[0]}): mandatory input does not fit")
    for budget in budgets:
        kept = _kept_at(first, budget)
        ax.axvline(budget, color=BUDGET_COLOUR, linestyle=":", linewidth=1)
        if kept is not None:
            ax.plot([budget], [kept], "o", color=BUDGET_COLOUR)
        ax.annotate(str(budget), (budget, len(history) + 0.15), ha="center")
    ax.set_xlim(0, top)
    ax.set_ylim(-0.3, len(history) + 0.5)
    ax.set_yticks(range(len(history) + 1))
    ax.set_xlabel("budget (bytes)")
    ax.set_ylabel("turns retained")
    marked = f"; marked: {', '.join(map(str, budgets))}" if budgets else ""
    ax.set_title(f"Turns retained against the budget{marked}")
    _below(ax)
    lines = "; ".join(
        f"{name}: rejected below {sizes[0]} bytes, then "
        + ", ".join(f"{kept} from {size}" for kept, size in enumerate(sizes))
        for name, sizes in steps.items())
    marks = ", ".join(_retained_at(first, budget) for budget in budgets)
    return Chart(figure, (
        f"Step chart of turns retained against the budget, 0 to {top} bytes. {lines}."
        + (f" Marked budgets ({encoders[0]}): {marks}." if budgets else "")))


def _kept_at(sizes: Sequence[int], budget: int) -> int | None:
    """Turns kept under ``budget``, from ``suffix_sizes``; None when it is rejected."""
    return max((k for k, size in enumerate(sizes) if size <= budget), default=None)


def _retained_at(sizes: Sequence[int], budget: int) -> str:
    kept = _kept_at(sizes, budget)
    return f"{budget} rejected" if kept is None else f"{budget} keeps {kept}"


@styled
def measures_chart(measures: Sequence[Measure], *, budget: int | None = None,
                   title: str = "One text, several lengths") -> Chart:
    """Horizontal bars, one per measure, coloured by what it counts."""
    figure, ax = _new_figure(9, 0.36 * len(measures) + 1.7)
    rows = list(reversed(measures))
    ax.barh(range(len(rows)), [m.value for m in rows],
            color=[UNIT_COLOURS[m.unit] for m in rows], edgecolor="white")
    for y, measure in enumerate(rows):
        ax.text(measure.value, y, f" {measure.value}", va="center")
    ax.set_yticks(range(len(rows)), [m.label for m in rows])
    handles = [Patch(facecolor=UNIT_COLOURS[u], label=u)
               for u in dict.fromkeys(m.unit for m in measures)]
    if budget is not None:
        handles.append(ax.axvline(budget, color=BUDGET_COLOUR, linestyle="--",
                                  label=f"budget ({budget} bytes)"))
    ax.set_xlim(0, max([m.value for m in measures] + [budget or 0]) * 1.15)
    ax.set_xlabel("length (bytes, or code points / UTF-16 units where labelled)")
    ax.set_title(title)
    _below(ax, handles, ncol=min(len(handles), 4))
    values = "; ".join(f"{m.label}: {m.value}" for m in measures)
    marker = f" The budget, {budget} bytes, is a dashed line." if budget is not None else ""
    return Chart(figure, f"{title}, as horizontal bars: {values}.{marker}")


@styled
def disk_growth_chart(series: Mapping[str, Sequence[int]], *,
                      max_bytes: int = DEFAULT_MAX_BYTES) -> Chart:
    """Journal file bytes against turns committed: one line per series, the cap dashed.

    ``series`` maps a label to the file sizes after 0, 1, 2, ... commits, as
    ``journal_growth`` returns them; the end of each line is marked and the legend
    says how many turns it holds.
    """
    if not series or not all(series.values()):
        raise ValueError("disk_growth_chart needs at least one non-empty series")
    figure, ax = _new_figure(9, 3.8)
    for index, (label, sizes) in enumerate(series.items()):
        held = len(sizes) - 1
        colour = LINE_COLOURS[index % len(LINE_COLOURS)]
        ax.plot(range(len(sizes)), sizes, color=colour, linewidth=2,
                linestyle=LINE_STYLES[index % len(LINE_STYLES)],
                label=f"{label}: {held:,} turns, {sizes[-1]:,} bytes")
        ax.plot([held], [sizes[-1]], "o", color=colour)
    mib = f" = {max_bytes // 2**20} MiB" if max_bytes % 2**20 == 0 else ""
    ax.axhline(max_bytes, color=BUDGET_COLOUR, linestyle="--", linewidth=1.5,
               label=f"cap ({max_bytes:,} bytes{mib}): the next commit is refused")
    ax.set_xlim(0, max(len(sizes) for sizes in series.values()) * 1.05)
    ax.set_ylim(0, max_bytes * 1.12)
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.set_xlabel("turns committed")
    ax.set_ylabel("journal file (bytes)")
    ax.set_title("Journal file size against turns committed")
    _below(ax)
    ends = "; ".join(f"{label}: {len(sizes) - 1:,} turns, {sizes[-1]:,} bytes"
                     for label, sizes in series.items())
    return Chart(figure, (
        f"Line chart of the journal file's bytes against turns committed: each line rises "
        f"straight to the cap, {max_bytes:,} bytes{mib} (dashed), where the next commit is "
        f"refused. Where each line ends: {ends}."))


# --- Two limits: bytes on the wire and tokens in the window --------------------------

@styled
def bytes_per_token_chart(rows: Sequence[TextTokens]) -> Chart:
    """Grouped bars: bytes per token for each sample, one bar per tokenizer."""
    labels = list(dict.fromkeys(row.label for row in rows))
    names = list(dict.fromkeys(row.tokenizer for row in rows))
    figure, ax = _new_figure(8, 3.6)
    width = 0.8 / len(names)
    for index, name in enumerate(names):
        values = [next(r.bytes_per_token for r in rows if (r.label, r.tokenizer) == (label, name))
                  for label in labels]
        xs = [x + (index - (len(names) - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, values, width, label=name, color=LINE_COLOURS[index % len(LINE_COLOURS)],
               hatch=("", "//", "..")[index % 3], edgecolor="white")
        for x, value in zip(xs, values):
            ax.text(x, value, f"{value:.2f}", ha="center", va="bottom")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("UTF-8 bytes per token")
    ax.set_title("How many bytes one token carries")
    _below(ax, ncol=len(names))
    parts = "; ".join(
        f"{label}: " + ", ".join(f"{r.bytes_per_token:.2f} ({r.tokenizer})"
                                 for r in rows if r.label == label) for label in labels)
    return Chart(figure, f"Bar chart of UTF-8 bytes per token. {parts}.")


@styled
def two_limits_chart(result: TwoLimits, max_bytes: int, max_tokens: int,
                     reserve_tokens: int = 0) -> Chart:
    """Two bars as shares of their limits: the request's bytes, and its tokens + reserve."""
    figure, ax = _new_figure(8, 2.2)
    if result.selection is None:
        error = result.error
        # When the bytes fail, select stops before counting tokens: none to show.
        used = [error.mandatory_bytes,
                None if error.mandatory_tokens is None else error.mandatory_tokens + reserve_tokens]
        state = f"rejected by the {error.limit} limit"
    else:
        used = [result.selection.size, result.selection.tokens + reserve_tokens]
        state = f"{turns(result.selection.kept)} kept"
    limits = [max_bytes, max_tokens]
    shares = [0 if u is None else 100 * u / limit for u, limit in zip(used, limits)]
    labels = [f"bytes: {used[0]} of {max_bytes}",
              f"tokens + reserve: {'not counted' if used[1] is None else used[1]} of {max_tokens}"]
    described = [f"{label} ({share:.0f}%)" for label, share in zip(labels, shares)]
    colours = [OKABE_ITO["orange"], OKABE_ITO["sky blue"]]
    ax.barh([1, 0], shares, color=colours, edgecolor="white", height=0.6)
    ax.set_yticks([1, 0], labels)
    ax.axvline(100, color=BUDGET_COLOUR, linestyle="--", linewidth=1.5, label="limit")
    ax.set_xlim(0, max(shares + [100]) * 1.1)
    ax.set_xlabel("share of the limit (%)")
    ax.set_title(f"Two limits, one request: {state}; binds: {result.binds}")
    return Chart(figure, f"Bar chart of the request against both limits: "
                                   f"{'; '.join(described)}; {state}; binds: {result.binds}.")


# --- Pinned facts: how a budget splits between the mandatory input, facts and turns -------

FACTS_COLOUR = OKABE_ITO["reddish purple"]
SPLIT_PARTS = (("mandatory input", SYSTEM_COLOUR, None), ("facts", FACTS_COLOUR, ".."),
               ("turns", OKABE_ITO["orange"], None))


def split_figure(budgets: range, rows: Sequence, parts: Sequence[tuple], *,
                 budget: int | None, encoder: str, title: str) -> Figure:
    """The bytes sent against the budget, stacked by part (``(label, colour, hatch, value)``,
    ``value(row)`` its bytes; ``rows[i]`` is what ``budgets[i]`` sends, None if rejected): a
    dashed diagonal is the budget (what is sent never crosses it), grey the rejected budgets,
    ``budget`` a dotted line. Notebook 08's chart has three parts, notebook 09's five."""
    figure, ax = _new_figure(9, 3.8)
    sent = [row for row in rows if row is not None]
    stacks = ax.stackplot([row.budget for row in sent],
                          *[[value(row) for row in sent] for _, _, _, value in parts],
                          step="post", colors=[colour for _, colour, _, _ in parts],
                          labels=[label for label, _, _, _ in parts], edgecolor="white")
    for stack, (_, _, hatch, _) in zip(stacks, parts):
        stack.set_hatch(hatch)
    ax.plot([budgets[0], budgets[-1]], [budgets[0], budgets[-1]], color=BUDGET_COLOUR,
            linestyle="--", linewidth=1, label="the budget (sent never crosses it)")
    rejected = [b for b, row in zip(budgets, rows) if row is None]
    if rejected:
        ax.axvspan(budgets[0], rejected[-1] + 1, color=ENVELOPE_COLOUR, alpha=0.35,
                   label="BudgetError: the mandatory input does not fit")
    if budget is not None:
        ax.axvline(budget, color=BUDGET_COLOUR, linestyle=":", linewidth=1.5,
                   label=f"budget {budget} bytes")
    ax.set(xlim=(budgets[0], budgets[-1]), ylim=(0, budgets[-1] * 1.05), title=title,
           xlabel=f"budget (bytes, {encoder} encoder)", ylabel="bytes sent")
    _below(ax)
    return figure


def split_start(rows: Sequence) -> str:
    """How a split's description begins: where the rejected budgets end, if any."""
    first = next((row for row in rows if row is not None), None)
    return ("every budget rejected" if first is None else
            f"rejected below {first.budget} bytes, then " if rows[0] is None else "")


@styled
def budget_split_chart(system: str, history: Sequence[Turn], current: str, facts: Sequence,
                       budgets: range, *, max_fact_bytes: int | None = None,
                       budget: int | None = None, encoder: str = "gson") -> Chart:
    """The bytes sent against the budget, stacked: mandatory input, facts (dotted), turns."""
    rows = budget_split(system, history, current, facts, budgets,
                        max_fact_bytes=max_fact_bytes, encoder=encoder)
    cap = "no facts cap" if max_fact_bytes is None else f"facts cap {max_fact_bytes} bytes"
    values = (lambda r: r.mandatory, lambda r: r.facts, lambda r: r.turns)
    figure = split_figure(budgets, rows, [(*part, f) for part, f in zip(SPLIT_PARTS, values)],
                          budget=budget, encoder=encoder,
                          title=f"How the budget splits: {len(facts)} facts pinned, {cap}")
    marked = ""
    if budget is not None:
        row = next((r for r in rows if r is not None and r.budget == budget), None)
        marked = (f" Marked, {budget} bytes: " + ("rejected." if row is None else
                  f"mandatory {row.mandatory} + facts {row.facts} + turns {row.turns} = "
                  f"{row.sent} bytes."))
    steps = "; ".join(split_steps(rows))
    return Chart(figure, (
        f"Stacked area of the bytes sent against the budget, {budgets[0]} to {budgets[-1]} "
        f"bytes, {len(facts)} facts pinned, {cap}: {split_start(rows)}{steps}.{marked}"))
