"""The course's two conceptual pictures, drawn from what they show: each returns a Chart.

``storage_vs_context``: the ledger holds every turn; the request ``select`` projects from
it holds the system message, the pinned facts that fit, a contiguous suffix of whole
turns and the question, within the budget, and the ledger is left as it was.

``request_anatomy``: a request's bytes as one bar (widths in proportion to bytes), the
envelope's bytes drawn together first and the messages after it in wire order, and a key
that says what each part is.

Every byte count drawn is measured here (``select``, ``byte_breakdown``), never typed in.
Like ``charts``, figures are ``matplotlib.figure.Figure`` (no pyplot, nothing kept open),
colours are the Okabe-Ito palette and every box is labelled in words, so no part is told
apart by colour alone. The text is 13 pt or more, for a projector.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib import colors
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from ledgerlab import Fact, Turn, byte_breakdown, select

from .charts import (DPI, ENVELOPE_COLOUR, FACTS_COLOUR, QUESTION_COLOUR, SYSTEM_COLOUR, Chart,
                     group_colour)
from .display import facts as count_facts, turns as count_turns

TEXT_PT = 13  # the smallest text on either picture: legible when projected
# As wide as a chart (chartstyle): a slide fits a 9-inch figure to its width, so its 13-pt
# text is as large as the slide's body text; a 12-inch one came out at 18 px against 24.
WIDTH_IN = 9
RIGHT = 56  # where the request's column starts, in the 0-100 drawing units
TITLE_PT = 15
FRAME = "#333333"
FAINT = "#555555"  # 7.5:1 on white: quiet, still readable
ENVELOPE_TEXT = "the model field, keys, brackets and commas around the messages"


def _ink(fill: str) -> str:
    """Black or white, whichever contrasts more with ``fill`` (WCAG relative luminance)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in colors.to_rgb(fill))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"


def _canvas(width: float, height: float) -> tuple[Figure, object]:
    """A figure whose one axes is a blank drawing area, 0-100 across and 0-``height`` up."""
    figure = Figure(figsize=(width, height), dpi=DPI)
    ax = figure.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 100)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return figure, ax


def _box(ax, x: float, y: float, width: float, height: float, fill: str, text: str,
         *, gid: str | None = None) -> None:
    """A filled box with its label centred in the colour that reads best on it."""
    ax.add_patch(Rectangle((x, y), width, height, facecolor=fill, edgecolor="white",
                           linewidth=2))
    ax.text(x + width / 2, y + height / 2, text, ha="center", va="center", fontsize=TEXT_PT,
            color=_ink(fill), gid=gid)


# --- Storage vs context --------------------------------------------------------------------

def storage_vs_context(system: str, history: Sequence[Turn], question: str, budget: int,
                       *, facts: Sequence[Fact] = (), encoder: str = "gson") -> Chart:
    """The ledger's turns on the left, the request ``select`` builds from them on the right.

    The request's parts are measured: the system message, the facts kept, each turn kept
    (the newest ones, whole) and the question, from ``byte_breakdown``, and the envelope;
    they add up to the request ``select`` returns. A budget the mandatory input does not
    fit raises ``BudgetError``, as ``select`` does.
    """
    chosen = select(system, history, question, budget, facts=facts, encoder=encoder)
    parts = byte_breakdown(system, history, question, encoder=encoder)
    first_kept = len(history) - chosen.kept  # turns are numbered from 1: kept are first_kept+1..
    request = [("system", f"system message · {parts['system']} B", SYSTEM_COLOUR,
                parts["system"])]
    if facts:
        request.append(("facts", f"pinned facts: {chosen.facts_kept} of {len(facts)} · "
                                 f"{chosen.fact_bytes} B", FACTS_COLOUR, chosen.fact_bytes))
    request += [(f"turn {n}", f"turn {n} · {parts['turns'][n - 1]} B", group_colour(f"turn {n}"),
                 parts["turns"][n - 1]) for n in range(first_kept + 1, len(history) + 1)]
    request += [("question", f"question · {parts['question']} B", QUESTION_COLOUR,
                 parts["question"]),
                ("envelope", f"envelope · {parts['envelope']} B", ENVELOPE_COLOUR,
                 parts["envelope"])]
    total = sum(size for *_, size in request)
    if total != chosen.size:  # the parts are the request, or the picture would mislead
        raise AssertionError(f"parts add up to {total} bytes, the request is {chosen.size}")

    row, gap = 0.5, 0.1
    ledger_rows = len(history) + (1 if facts else 0)
    rows = max(ledger_rows, len(request))
    height = 2.2 + rows * (row + gap)
    figure, ax = _canvas(WIDTH_IN, height)
    top = height - 1.25
    ax.text(2, height - 0.45, "storage: the ledger", fontsize=TITLE_PT, weight="bold")
    ax.text(2, height - 0.85, "on disk, append-only: every turn", fontsize=TEXT_PT,
            color=FAINT)
    ax.text(RIGHT, height - 0.45, "context: one request", fontsize=TITLE_PT, weight="bold")
    ax.text(RIGHT, height - 0.85, "in memory, for one call, rebuilt every call", fontsize=TEXT_PT,
            color=FAINT)

    def y_of(index: int) -> float:
        return top - (index + 1) * row - index * gap

    ledger = [("facts", f"pinned facts · {count_facts(len(facts))}", FACTS_COLOUR)] if facts else []
    ledger += [(f"turn {n}", f"turn {n}" + (" · not sent this call" if n <= first_kept else ""),
                group_colour(f"turn {n}")) for n in range(1, len(history) + 1)]
    for index, (key, label, fill) in enumerate(ledger):
        _box(ax, 2, y_of(index), 32, row, fill, label, gid=f"ledger:{key}")
    for index, (key, label, fill, _) in enumerate(request):
        _box(ax, RIGHT, y_of(index), 98 - RIGHT, row, fill, label, gid=f"request:{key}")

    # One arrow from storage to context: select reads the ledger and builds the request.
    middle = (top + y_of(rows - 1)) / 2
    ax.add_patch(FancyArrowPatch((36, middle), (RIGHT - 2, middle), arrowstyle="simple,head_width=1.4,"
                                 "head_length=1.2,tail_width=0.5", mutation_scale=22,
                                 color=FAINT))
    ax.text(45, middle + 0.35, f"select(…,\nbudget={budget})", ha="center", va="bottom",
            fontsize=TEXT_PT, family="monospace")
    ax.text(45, middle - 0.35, "reads the ledger,\nwrites nothing", ha="center", va="top",
            fontsize=TEXT_PT, color=FRAME)

    # The budget, exactly: a gauge filled to the request's bytes.
    gauge_y = 0.15
    ax.add_patch(Rectangle((RIGHT, gauge_y), 98 - RIGHT, 0.35, facecolor="white", edgecolor=FRAME,
                           linewidth=1.5))
    ax.add_patch(Rectangle((RIGHT, gauge_y), (98 - RIGHT) * min(chosen.size / budget, 1), 0.35,
                           facecolor=FAINT, edgecolor=FRAME, linewidth=1.5))
    ax.text(RIGHT, gauge_y + 0.45, f"{chosen.size} of the {budget}-byte budget", va="bottom",
            fontsize=TEXT_PT, gid="request:total")
    ax.text(2, gauge_y + 0.35, "select keeps the newest whole turns\n"
            "that fit; older ones stay stored, and\na wider budget sends them again",
            va="center",
            fontsize=TEXT_PT, color=FAINT)

    sent = list(range(first_kept + 1, len(history) + 1))
    unsent = list(range(1, first_kept + 1))
    facts_text = (f"{count_facts(chosen.facts_kept)} of the {len(facts)} pinned "
                  f"({chosen.fact_bytes} bytes), " if facts else "no pinned facts, ")
    turns_text = (f"the newest {'whole turn' if len(sent) == 1 else f'{len(sent)} whole turns'}"
                  f" ({_numbered(sent)}), " if sent else "no turn, ")
    kept = ", ".join(f"{key} {size}" for key, _, _, size in request)
    return Chart(figure, (
        f"Diagram of storage and context. Left, the ledger (storage, on disk) holds every "
        f"turn: {count_turns(len(history))}{', and the pinned facts' if facts else ''}. "
        f"Right, the request select builds from it at a {budget}-byte budget ({encoder} "
        f"encoder), for one call: the system message, {facts_text}{turns_text}the question "
        f"and the envelope, {chosen.size} of {budget} bytes ({kept} bytes). "
        + (f"{_numbered(unsent).capitalize()} stay{'s' if len(unsent) == 1 else ''} in the "
           f"ledger, not sent this call. " if unsent else "")
        + "Building the request writes nothing to the ledger."))


def _numbered(numbers: Sequence[int]) -> str:
    """``'turn 3'``, ``'turns 1 and 2'``, ``'turns 1, 2 and 3'``."""
    if len(numbers) == 1:
        return f"turn {numbers[0]}"
    return f"turns {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"


# --- Request anatomy ----------------------------------------------------------------------

def request_anatomy(system: str, history: Sequence[Turn], question: str,
                    *, encoder: str = "gson") -> Chart:
    """A request's bytes as one bar, widths in proportion, with a key.

    The sizes are ``byte_breakdown``'s: the envelope, the system message, each turn (its
    user and assistant messages, with their separators) and the question. The messages are
    drawn in wire order; the envelope is not one run of bytes on the wire (its opening
    ``{"model":…,"messages":[`` comes before the messages, the comma before the question
    between them and its closing ``]}`` after them; each turn carries its own comma), so
    it is drawn first, as one piece, and the words say so.
    """
    parts = byte_breakdown(system, history, question, encoder=encoder)
    pieces = [("envelope", parts["envelope"], ENVELOPE_COLOUR, ENVELOPE_TEXT),
              ("system", parts["system"], SYSTEM_COLOUR, '{"role":"system","content":…}')]
    pieces += [(f"turn {n}", size, group_colour(f"turn {n}"),
                '{"role":"user",…},{"role":"assistant",…}')
               for n, size in enumerate(parts["turns"], start=1)]
    pieces.append(("question", parts["question"], QUESTION_COLOUR,
                   '{"role":"user","content":…}'))
    total = sum(size for _, size, _, _ in pieces)

    key_row = 0.34
    height = 2.5 + key_row * len(pieces)
    figure, ax = _canvas(WIDTH_IN, height)
    ax.text(2, height - 0.45, f"Anatomy of a request: {total} bytes ({encoder} encoder)",
            fontsize=TITLE_PT, weight="bold")
    bar_y, bar_h = height - 1.55, 0.8
    left, span = 2.0, 96.0
    for name, size, fill, _ in pieces:
        width = span * size / total
        # A label only where it fits at this size; the key below names every part.
        label = f"{name}\n{size} B" if width >= 7 else ""
        _box(ax, left, bar_y, width, bar_h, fill, label)
        left += width
    ax.annotate("", (98, bar_y - 0.12), (2, bar_y - 0.12),
                arrowprops={"arrowstyle": "<->", "color": FRAME, "linewidth": 1.2})
    ax.text(50, bar_y - 0.3, f"{total} bytes: len(request_bytes(…)), what the budget counts",
            ha="center", va="top", fontsize=TEXT_PT, color=FRAME)

    for index, (name, size, fill, what) in enumerate(pieces):
        y = bar_y - 0.8 - (index + 1) * key_row
        ax.add_patch(Rectangle((2, y + 0.06), 3, key_row - 0.12, facecolor=fill,
                               edgecolor=FRAME, linewidth=0.8))
        ax.text(6, y + key_row / 2, name, va="center", fontsize=TEXT_PT, weight="bold")
        ax.text(25, y + key_row / 2, f"{size} B", va="center", ha="right", fontsize=TEXT_PT,
                gid=f"bytes:{name}")
        ax.text(28, y + key_row / 2, what, va="center", fontsize=TEXT_PT, family="monospace"
                if what.startswith("{") else None)
    listed = ", ".join(f"{name} {size}" for name, size, _, _ in pieces)
    return Chart(figure, (
        f"Diagram of a request's {total} bytes ({encoder} encoder) as one bar, each part's "
        f"width in proportion to its bytes: {listed} bytes. The envelope (its opening, the "
        f"comma before the question and its closing) is drawn together first, then the "
        f"messages in wire order. The envelope is "
        f"{ENVELOPE_TEXT}; each turn is a user message and an assistant message; the "
        f"question is the last user message. The parts add up to the request's length."))
