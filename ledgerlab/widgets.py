"""Explorers for the notebooks: ipywidgets controls over ``select`` and the charts.

Each explorer keeps its state in plain attributes (``slider``, ``selection``,
``error``, ``summary``) that a test or a notebook cell reads after setting a
control's ``value``. The callback only recomputes that state, puts the summary in
an HTML widget and the chart in an Image widget: it never prints or displays, so
nothing leaks into a cell's output when no front end is listening (under nbval).

Shown as a cell's result, an explorer renders as its widget in Jupyter and as its
summary in plain text.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from itertools import groupby

import ipywidgets as widgets

from . import article, charts
from .display import PlainText, turns
from .selector import BudgetError, Selection, select
from .wire import ENCODERS, Turn


def join_labels(labels: Sequence[str]) -> str:
    """``['SYSTEM', 'U3', 'A3', 'U4']`` -> ``'SYSTEM | U3 A3 | U4'``: one group per turn."""
    if not labels:
        return "(nothing)"
    return " | ".join(" ".join(group) for _, group in groupby(labels, key=lambda l: l.lstrip("UA")))


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


def png(figure) -> bytes:
    """A figure rendered to PNG bytes, for an Image widget."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def budget_slider(value: int, low: int, high: int) -> widgets.IntSlider:
    return widgets.IntSlider(value=value, min=low, max=high, step=1, description="budget",
                             continuous_update=False, style={"description_width": "initial"},
                             layout=widgets.Layout(width="600px"))


class Explorer:
    """Controls, a summary line and a chart; subclasses say what to compute and draw."""

    def __init__(self, controls: Sequence[widgets.Widget]) -> None:
        # CSS classes give a browser test (or a stylesheet) a stable handle on each part.
        self.status = widgets.HTML().add_class("ledgerlab-summary")
        self.image = widgets.Image(format="png").add_class("ledgerlab-chart")
        self.widget = widgets.VBox([*controls, self.status, self.image])
        for control in controls:
            control.observe(self._refresh, names="value")
        self._refresh()

    def _refresh(self, change: object = None) -> None:
        self._compute()
        self.status.value = f"<pre>{html.escape(self.summary)}</pre>"
        self.image.value = png(self.figure())

    def _compute(self) -> None:
        raise NotImplementedError

    @property
    def summary(self) -> PlainText:
        raise NotImplementedError

    def figure(self):
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = str(self.summary)  # widget reprs vary by version; this does not
        return bundle


class SliceExplorer(Explorer):
    """Bad slice vs whole-turn slice as the budget moves."""

    def __init__(self, system: str = article.SLICE_SYSTEM,
                 history: Sequence[Turn] = article.SLICE_HISTORY,
                 current: str = article.SLICE_QUESTION, budget: int = 175,
                 *, encoder: str = "gson") -> None:
        self.system, self.history, self.current = system, tuple(history), current
        self.encoder = encoder
        sizes = charts.suffix_sizes(system, self.history, current, encoder=encoder)
        self.labels = charts.message_labels(len(self.history))
        self.slider = budget_slider(budget, max(1, sizes[0] // 2), sizes[-1] + 40)
        super().__init__([self.slider])

    def _compute(self) -> None:
        budget = self.slider.value
        last, self.count_bytes = charts.count_slice(self.system, self.history, self.current,
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
            flags = charts.whole_turn_flags(len(self.history), self.selection.kept)
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

    def figure(self):
        return charts.slice_chart(self.system, self.history, self.current, self.slider.value,
                                  encoder=self.encoder)


class BudgetExplorer(Explorer):
    """The whole-turn rule over a fixture: a budget slider and an encoder choice."""

    def __init__(self, system: str = article.BOUNDARY_SYSTEM,
                 history: Sequence[Turn] = article.BOUNDARY_HISTORY,
                 current: str = article.BOUNDARY_QUESTION, budget: int = 235,
                 *, encoder: str = "gson") -> None:
        self.system, self.history, self.current = system, tuple(history), current
        sizes = charts.suffix_sizes(system, self.history, current, encoder="requests")
        self.slider = budget_slider(budget, 100, max(sizes[-1] + 60, budget))
        self.encoder = widgets.ToggleButtons(options=list(ENCODERS), value=encoder,
                                             description="encoder")
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

    def figure(self):
        return charts.turn_bytes_chart(self.system, self.history, self.current,
                                       self.slider.value, encoder=self.encoder.value)


class TextExplorer(Explorer):
    """Type a text, see its lengths: UTF-16 units, code points, UTF-8 and JSON bytes."""

    def __init__(self, text: str = article.BOUNDARY_QUESTION) -> None:
        self.text = widgets.Text(value=text, description="text", continuous_update=False)
        super().__init__([self.text])

    def _compute(self) -> None:
        self.measures = charts.text_measures(self.text.value)

    @property
    def summary(self) -> PlainText:
        # Numbers only: the text itself may be private.
        return PlainText("\n".join(f"{m.label}: {m.value}" for m in self.measures))

    def figure(self):
        return charts.measures_chart(self.measures, title="One text, six lengths")


class TwoLimitsExplorer(Explorer):
    """A byte budget and a token limit over one fixture, with a reserve for the reply:
    which limit binds."""

    def __init__(self, system: str = article.BOUNDARY_SYSTEM,
                 history: Sequence[Turn] = article.BOUNDARY_HISTORY,
                 current: str = article.BOUNDARY_QUESTION, budget: int = 308,
                 max_tokens: int = 60, *, reserve_tokens: int = 20,
                 tokenizer: str = "o200k_base") -> None:
        from .tokens import request_tokens
        from .wire import request_bytes

        self.system, self.history, self.current = system, tuple(history), current
        self.reserve_tokens, self.tokenizer = reserve_tokens, tokenizer
        full_bytes = len(request_bytes(system, list(self.history), current))
        full_tokens = request_tokens(system, self.history, current, tokenizer=tokenizer)
        self.bytes_slider = budget_slider(budget, 100, max(full_bytes + 60, budget))
        self.tokens_slider = widgets.IntSlider(
            value=max_tokens, min=reserve_tokens + 1,
            max=max(full_tokens + reserve_tokens + 20, max_tokens), step=1,
            description="token limit", continuous_update=False,
            style={"description_width": "initial"}, layout=widgets.Layout(width="600px"))
        super().__init__([self.bytes_slider, self.tokens_slider])

    def _compute(self) -> None:
        self.result = charts.two_limits(
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

    def figure(self):
        return charts.two_limits_chart(self.result, self.bytes_slider.value,
                                       self.tokens_slider.value, self.reserve_tokens).figure
