"""Explorers for the notebooks: ipywidgets controls over ``select`` and the charts.

The classes are generic; each one's defaults (the fixture it explores, its starting values)
are the settings of the lesson that shows it (``ledgerlab.course.lessons``: ``SLICE_EXPLORER``
in ``bad_slice_vs_whole_turn`` and so on). How far a slider runs follows from the fixture, here.

Each explorer keeps its state in plain attributes (``slider``, ``selection``,
``error``, ``summary``, ``chart``) that a test or a notebook cell reads after
setting a control's ``value``. The callback only recomputes that state and puts
the summary, the chart and the chart's description in widgets: it never prints or
displays, so nothing leaks into a cell's output when no front end is listening
(under nbval). If it fails, the error goes to an output area under the chart
(set as widget state, not printed), because in a browser an exception raised in a
callback only reaches the log console.

Controls refuse what they cannot show (a budget outside the slider's range, no
encoder) with a TraitError instead of clamping it silently.

Shown as a cell's result, an explorer renders as its widget in Jupyter and, in
plain text, as its summary and the chart's description.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
from traitlets import Any, TraitError, validate

from ledgerlab import (BudgetError, ENCODERS, Fact, InvalidText, Selection, Turn, check_text,
                       request_bytes, request_tokens, select)

from . import cachecharts, charts, measures
from .charts import Chart
from .display import PlainText, facts, join_labels, turns
from .lessons.bad_slice_vs_whole_turn import SLICE_EXPLORER
from .lessons import prompt_caching
from .lessons.pinned_facts import FACTS_EXPLORER
from .lessons.the_boundary_table import BUDGET_EXPLORER
from .lessons.the_length_trap import TEXT_EXPLORER
from .lessons.two_limits import TWO_LIMITS_EXPLORER
from .measures import slice_problems

__all__ = ["BudgetExplorer", "CacheExplorer", "FactsExplorer", "SliceExplorer", "TextExplorer",
           "TwoLimitsExplorer", "PlainText", "join_labels", "slice_problems"]

# Room to the right of the largest request, so the slider shows that a budget above it
# is a ceiling (nothing more is sent); further would only shrink the bars.
HEADROOM = 60


def check_in_range(value: int, low: int, high: int, name: str = "budget") -> int:
    """``value`` if ``low <= value <= high``, else a TraitError that says why the range ends."""
    if not low <= value <= high:
        largest = "request" if name == "budget" else "facts message"
        raise TraitError(
            f"{name} {value} bytes is outside this slider's range, {low} to {high} bytes "
            f"(the slider stops {HEADROOM} bytes past the largest {largest}, so the chart stays "
            f"readable): call select() directly for other values")
    return value


class BudgetSlider(widgets.IntSlider):
    """An IntSlider that refuses a value outside its range instead of clamping it."""

    @validate("value")
    def _validate_value(self, proposal: dict) -> int:
        return check_in_range(proposal["value"], self.min, self.max, self.description)


class ShareSlider(widgets.FloatSlider):
    """A FloatSlider that refuses a value outside its range instead of clamping it."""

    @validate("value")
    def _validate_value(self, proposal: dict) -> float:
        value = proposal["value"]
        if not self.min <= value <= self.max:
            raise TraitError(f"{self.description} {value} is outside this slider's range, "
                             f"{self.min} to {self.max}: for another, call select() with it")
        return value


class _AnyButNone(Any):
    allow_none = False  # Any allows None, and traitlets lets an allowed None skip validation


class EncoderButtons(widgets.ToggleButtons):
    """The encoder choice: one of the encoders, never None."""

    value = _AnyButNone(help="Selected value")

    @validate("value")
    def _validate_value(self, proposal: dict) -> object:
        if proposal["value"] is None:
            raise TraitError(f"encoder must be one of {', '.join(ENCODERS)}, not None")
        return super()._validate_value(proposal)


def slider_options(description: str) -> dict:
    """A slider named by its description (the name a screen reader gives its handle), the
    label never cut short, as wide as there is room for up to 600 px (a phone has less)."""
    return dict(description=description, step=1, continuous_update=False,
                style={"description_width": "initial"},
                layout=widgets.Layout(width="100%", max_width="600px"))


# ipywidgets 8 names neither the handle of a slider (role=slider, from noUiSlider: its
# description is a label beside it, not tied to it) nor an Image (no alt): a screen reader
# announces a nameless slider and an unlabelled picture. This script names each handle by
# its label and each chart by its description, kept in step as both are redrawn;
# widgets are drawn after it runs, so it watches. Each explorer carries it (``names``), so
# it runs wherever a kernel shows the explorer (JupyterLab, Voila, Lite run the scripts of
# an Output widget); the course site does the same in editions/book/site/ledgerlab.js.
SLIDER_HANDLE_NAMES_JS = """
(() => {
  if (window.ledgerlabSliderHandleNames) return;
  window.ledgerlabSliderHandleNames = true;
  const name = () => {
    for (const handle of document.querySelectorAll(".widget-slider .noUi-handle:not([aria-label])")) {
      const label = handle.closest(".widget-slider").querySelector(".widget-label");
      if (label && label.textContent.trim()) handle.setAttribute("aria-label", label.textContent.trim());
    }
    for (const chart of document.querySelectorAll(".ledgerlab-explorer img.ledgerlab-chart")) {
      const caption = chart.closest(".ledgerlab-explorer").querySelector(".ledgerlab-chart-description");
      const text = caption ? caption.textContent.trim() : "";
      if (text && chart.alt !== text) chart.alt = text;
    }
  };
  name();
  // Classes too: a box gets its class (ledgerlab-explorer) after its children are drawn.
  new MutationObserver(name).observe(document.body, {childList: true, subtree: true,
                                                     attributeFilter: ["class"]});
})();
"""


def slider_handle_names():
    """The naming script as a display (each explorer already carries it, in ``names``)."""
    from IPython.display import Javascript
    return Javascript(SLIDER_HANDLE_NAMES_JS)


def names_output() -> widgets.Output:
    """A hidden Output widget holding the naming script (hidden, so a page that does not
    run it, such as the site's static widgets, shows nothing of it either)."""
    output = widgets.Output(layout=widgets.Layout(display="none"))
    output.outputs = ({"output_type": "display_data", "metadata": {},
                       "data": {"application/javascript": SLIDER_HANDLE_NAMES_JS,
                                "text/plain": ""}},)
    return output


CAPTION_STYLE = {"font_size": "0.875rem"}  # 14 px at the usual 16 px root: not <small>


def budget_slider(value: int, low: int, high: int, name: str = "budget") -> BudgetSlider:
    # Checked here too: while a slider is built, setting its max would clamp the value first.
    return BudgetSlider(value=check_in_range(value, low, high, name), min=low, max=high,
                        **slider_options(name))


class Explorer:
    """Controls, a summary, a chart with its description, and an area for errors."""

    def __init__(self, controls: Sequence[widgets.Widget]) -> None:
        # CSS classes give a browser test (or a stylesheet) a stable handle on each part.
        self.status = widgets.HTML().add_class("ledgerlab-summary")
        self.image = widgets.Image(format="png").add_class("ledgerlab-chart")
        self.caption = widgets.HTML(style=CAPTION_STYLE).add_class("ledgerlab-chart-description")
        self.errors = widgets.Output().add_class("ledgerlab-errors")
        self.names = names_output()  # the handles' and the chart's accessible names
        self.widget = widgets.VBox([*controls, self.status, self.image, self.caption,
                                    self.errors, self.names]).add_class("ledgerlab-explorer")
        for control in controls:
            control.observe(self._refresh, names="value")
        self._refresh()

    def _refresh(self, change: object = None) -> None:
        try:
            self._compute()
            self.chart = self._chart()
            self.status.value = f"<pre>{html.escape(self.summary)}</pre>"
            self.image.value = self.chart.png() if self.chart else b""
            self.caption.value = html.escape(self.description)
            self.errors.outputs = ()
        except Exception as error:
            # Set as state, not printed: visible in a browser, silent under nbval. Library
            # errors carry sizes and counts, never conversation text.
            self.errors.outputs = ({"output_type": "stream", "name": "stderr",
                                    "text": f"{type(error).__name__}: {error}\n"},)
            raise

    def _compute(self) -> None:
        raise NotImplementedError

    def _chart(self) -> Chart | None:
        raise NotImplementedError

    @property
    def summary(self) -> PlainText:
        raise NotImplementedError

    @property
    def description(self) -> str:
        """The chart in words, with its key numbers (or why there is no chart)."""
        return self.chart.description if self.chart else "No chart: " + self.summary

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        # Widget reprs vary by version; this does not, and it describes the chart.
        bundle["text/plain"] = f"{self.summary}\nChart: {self.description}"
        return bundle


class SliceExplorer(Explorer):
    """Bad slice vs whole-turn slice as the budget moves: notebook 02's explorer, which starts
    as its lesson says (``lessons.bad_slice_vs_whole_turn.SLICE_EXPLORER``)."""

    def __init__(self, system: str = SLICE_EXPLORER["system"],
                 history: Sequence[Turn] = SLICE_EXPLORER["history"],
                 current: str = SLICE_EXPLORER["current"], budget: int = SLICE_EXPLORER["budget"],
                 *, encoder: str = SLICE_EXPLORER["encoder"]) -> None:
        self.system, self.history, self.current = system, tuple(history), current
        self.encoder = encoder
        sizes = measures.suffix_sizes(system, self.history, current, encoder=encoder)
        self.labels = measures.message_labels(len(self.history))
        self.slider = budget_slider(budget, max(1, sizes[0] // 2), sizes[-1] + HEADROOM)
        super().__init__([self.slider])

    def _compute(self) -> None:
        budget = self.slider.value
        last, self.count_bytes = measures.count_slice(self.system, self.history, self.current,
                                                    budget, encoder=self.encoder)
        self.count_labels = self.labels[len(self.labels) - last:] if last else []
        self.selection: Selection | None = None
        self.error: BudgetError | None = None
        try:
            self.selection = select(self.system, self.history, self.current, budget,
                                    encoder=self.encoder)
        except BudgetError as error:
            self.error = error
        if self.selection is None:
            self.turn_labels: list[str] = []
        else:
            flags = measures.whole_turn_flags(len(self.history), self.selection.kept)
            self.turn_labels = [label for label, sent in zip(self.labels, flags) if sent]

    @property
    def count_problems(self) -> list[str]:
        return slice_problems(self.count_labels, len(self.history))

    @property
    def summary(self) -> PlainText:
        problems = "; ".join(self.count_problems) or "well formed"
        if self.selection is None:
            whole = f"rejected: the mandatory input needs {self.error.mandatory_bytes} bytes"
        else:
            whole = (f"{join_labels(self.turn_labels)}  ({self.selection.size} bytes; "
                     f"{turns(self.selection.kept)} kept, {self.selection.dropped} dropped)")
        return PlainText(
            f"budget {self.slider.value} bytes\n"
            f"  message-count slice: {join_labels(self.count_labels)}  "
            f"({self.count_bytes} bytes; {problems})\n"
            f"  whole-turn slice:    {whole}"
        )

    def _chart(self) -> Chart:
        return charts.slice_chart(self.system, self.history, self.current, self.slider.value,
                                  encoder=self.encoder)


class BudgetExplorer(Explorer):
    """The whole-turn rule over a fixture: a budget slider and an encoder choice.

    The slider runs from 100 bytes to 60 past the largest request any encoder makes
    (399 + 60 = 459 for the boundary fixture); a budget outside that is refused. Notebook 04's
    explorer (03's too), which starts as its lesson says
    (``lessons.the_boundary_table.BUDGET_EXPLORER``).
    """

    def __init__(self, system: str = BUDGET_EXPLORER["system"],
                 history: Sequence[Turn] = BUDGET_EXPLORER["history"],
                 current: str = BUDGET_EXPLORER["current"], budget: int = BUDGET_EXPLORER["budget"],
                 *, encoder: str = BUDGET_EXPLORER["encoder"]) -> None:
        self.system, self.history, self.current = system, tuple(history), current
        largest = max(measures.suffix_sizes(system, self.history, current, encoder=name)[-1]
                      for name in ENCODERS)
        self.slider = budget_slider(budget, 100, largest + HEADROOM)
        self.encoder = EncoderButtons(options=list(ENCODERS), value=encoder,
                                      description="encoder",
                                      style={"description_width": "initial"})
        super().__init__([self.slider, self.encoder])

    def _compute(self) -> None:
        self.selection: Selection | None = None
        self.error: BudgetError | None = None
        try:
            self.selection = select(self.system, self.history, self.current, self.slider.value,
                                    encoder=self.encoder.value)
        except BudgetError as error:
            self.error = error

    @property
    def summary(self) -> PlainText:
        head = f"budget {self.slider.value} bytes, {self.encoder.value} encoder: "
        if self.selection is None:
            return PlainText(head + f"BudgetError: the mandatory input needs "
                             f"{self.error.mandatory_bytes} bytes")
        return PlainText(head + f"{self.selection.kept} of {turns(len(self.history))} kept, "
                         f"{self.selection.size} bytes sent")

    def _chart(self) -> Chart:
        return charts.turn_bytes_chart(self.system, self.history, self.current,
                                       self.slider.value, encoder=self.encoder.value)


class TextExplorer(Explorer):
    """Type a text, see its lengths: UTF-16 units, code points, UTF-8 and JSON bytes.

    A text UTF-8 cannot encode (a lone surrogate) gets a message, not a traceback:
    no request could carry it. Notebook 03's explorer, which starts as its lesson says
    (``lessons.the_length_trap.TEXT_EXPLORER``).
    """

    def __init__(self, text: str = TEXT_EXPLORER["text"]) -> None:
        self.text = widgets.Text(value=text, description="text", continuous_update=False,
                                 style={"description_width": "initial"})
        super().__init__([self.text])

    def _compute(self) -> None:
        self.problem: str | None = None
        self.measures: list[measures.Measure] = []
        try:
            check_text(self.text.value, "text")
        except InvalidText as error:
            self.problem = (f"{error}: UTF-8 cannot encode it, so no request could carry "
                            "this text. Remove the lone half of the surrogate pair.")
            return
        self.measures = measures.text_measures(self.text.value)

    @property
    def summary(self) -> PlainText:
        # Numbers only: the text itself may be private.
        if self.problem:
            return PlainText(self.problem)
        return PlainText("\n".join(f"{m.label}: {m.value}" for m in self.measures))

    def _chart(self) -> Chart | None:
        if self.problem:
            return None
        return charts.measures_chart(self.measures, title="One text, six lengths")


class TwoLimitsExplorer(Explorer):
    """A byte budget and a token limit over one fixture, with a reserve for the reply:
    which limit binds. Notebook 07's explorer, which starts as its lesson says
    (``lessons.two_limits.TWO_LIMITS_EXPLORER``)."""

    def __init__(self, system: str = TWO_LIMITS_EXPLORER["system"],
                 history: Sequence[Turn] = TWO_LIMITS_EXPLORER["history"],
                 current: str = TWO_LIMITS_EXPLORER["current"],
                 budget: int = TWO_LIMITS_EXPLORER["budget"],
                 max_tokens: int = TWO_LIMITS_EXPLORER["max_tokens"], *,
                 reserve_tokens: int = TWO_LIMITS_EXPLORER["reserve_tokens"],
                 tokenizer: str = TWO_LIMITS_EXPLORER["tokenizer"]) -> None:

        self.system, self.history, self.current = system, tuple(history), current
        self.reserve_tokens, self.tokenizer = reserve_tokens, tokenizer
        full_bytes = len(request_bytes(system, list(self.history), current))
        full_tokens = request_tokens(system, self.history, current, tokenizer=tokenizer)
        self.bytes_slider = budget_slider(budget, 100, max(full_bytes + 60, budget))
        self.tokens_slider = widgets.IntSlider(
            value=max_tokens, min=reserve_tokens + 1,
            max=max(full_tokens + reserve_tokens + 20, max_tokens),
            **slider_options("token limit"))
        super().__init__([self.bytes_slider, self.tokens_slider])

    def _compute(self) -> None:
        self.result = measures.two_limits(
            self.system, self.history, self.current, self.bytes_slider.value,
            self.tokens_slider.value, reserve_tokens=self.reserve_tokens,
            tokenizer=self.tokenizer)

    @property
    def summary(self) -> PlainText:
        result = self.result
        head = (f"budget {self.bytes_slider.value} bytes, limit {self.tokens_slider.value} "
                f"tokens ({self.reserve_tokens} kept for the reply, {self.tokenizer}): ")
        if result.selection is None:
            error = result.error
            needs = (f"{error.mandatory_bytes} bytes" if error.limit == "bytes" else
                     f"{error.mandatory_tokens} tokens + {error.reserve_tokens} reserved")
            head += f"BudgetError ({error.limit}): the mandatory input needs {needs}"
        else:
            chosen = result.selection
            head += (f"{chosen.kept} of {turns(len(self.history))} kept, {chosen.size} bytes, "
                     f"{chosen.tokens} tokens")
        alone = {name: "rejected" if kept is None else f"keep {turns(kept)}"
                 for name, kept in (("bytes", result.kept_by_bytes),
                                    ("tokens", result.kept_by_tokens))}
        return PlainText(f"{head}\n  bytes alone: {alone['bytes']}; tokens alone: "
                         f"{alone['tokens']}; binds: {result.binds}")

    def _chart(self) -> Chart:
        return charts.two_limits_chart(self.result, self.bytes_slider.value,
                                       self.tokens_slider.value, self.reserve_tokens)


class FactsExplorer(Explorer):
    """A total budget and a facts cap over notebook 08's scenario with pinned facts.

    The budget slider runs from 100 bytes to 60 past the request that keeps every fact
    and every turn; the facts cap from 0 to 60 past the bytes of every fact. The cap
    starts where it keeps every fact, as no cap would. Notebook 08's explorer, which starts
    as its lesson says (``lessons.pinned_facts.FACTS_EXPLORER``).
    """

    def __init__(self, system: str = FACTS_EXPLORER["system"],
                 history: Sequence[Turn] = FACTS_EXPLORER["history"],
                 current: str = FACTS_EXPLORER["current"],
                 pinned: Sequence[Fact] = FACTS_EXPLORER["pinned"],
                 budget: int = FACTS_EXPLORER["budget"],
                 fact_cap: int | None = FACTS_EXPLORER["fact_cap"], *,
                 encoder: str = FACTS_EXPLORER["encoder"]) -> None:
        self.system, self.history, self.current = system, tuple(history), current
        self.pinned, self.encoder = tuple(pinned), encoder
        everything = select(system, self.history, current, 10**9, facts=self.pinned,
                            encoder=encoder)
        self.budget_slider = budget_slider(budget, 100, everything.size + HEADROOM)
        self.cap_slider = budget_slider(everything.fact_bytes if fact_cap is None else fact_cap,
                                        0, everything.fact_bytes + HEADROOM, "facts cap")
        super().__init__([self.budget_slider, self.cap_slider])

    def _compute(self) -> None:
        # The split measures.budget_split gives, at this budget only; None: rejected.
        self.split = measures.budget_split(
            self.system, self.history, self.current, self.pinned, [self.budget_slider.value],
            max_fact_bytes=self.cap_slider.value, encoder=self.encoder)[0]

    @property
    def summary(self) -> PlainText:
        head = (f"budget {self.budget_slider.value} bytes, facts cap {self.cap_slider.value} "
                f"bytes: ")
        split = self.split
        if split is None:
            mandatory = len(request_bytes(self.system, [], self.current, encoder=self.encoder))
            return PlainText(head + f"BudgetError: the mandatory input needs {mandatory} bytes")
        return PlainText(
            head + f"{split.facts_kept} of {facts(len(self.pinned))} kept, {split.turns_kept} of "
            f"{turns(len(self.history))} kept, {split.sent} bytes sent\n"
            f"  mandatory {split.mandatory} + facts {split.facts} + turns {split.turns} = "
            f"{split.sent} bytes")

    def _chart(self) -> Chart:
        return charts.budget_split_chart(
            self.system, self.history, self.current, self.pinned,
            range(100, self.budget_slider.max + 1), max_fact_bytes=self.cap_slider.value,
            budget=self.budget_slider.value, encoder=self.encoder)


class CacheExplorer(Explorer):
    """Notebook 12's conversation billed under the cache-stable rule as ``low_water`` moves,
    beside the whole-turn rule every call (``lessons.prompt_caching``: its settings, its
    schedules and their bills)."""

    def __init__(self, low_water: float = prompt_caching.SLIDER["value"]) -> None:
        settings = prompt_caching.SLIDER
        options = slider_options("low_water")
        options["step"] = settings["step"]
        if not settings["min"] <= low_water <= settings["max"]:  # before the slider clamps it
            raise TraitError(f"low_water {low_water} is outside this slider's range, "
                             f"{settings['min']} to {settings['max']}")
        self.slider = ShareSlider(value=low_water, min=settings["min"], max=settings["max"],
                                  readout_format=".2f", **options)
        super().__init__([self.slider])

    def _compute(self) -> None:
        # Rounded to the slider's step: 0.6000000000000001 is the same schedule as 0.6.
        self.low_water = round(self.slider.value, 2)
        self.whole, self.stable = prompt_caching.run(), prompt_caching.run(self.low_water)

    @property
    def summary(self) -> PlainText:
        return prompt_caching.summary(self.stable, self.whole)

    def _chart(self) -> Chart:
        return cachecharts.cache_bill_chart(self.whole, self.stable)
