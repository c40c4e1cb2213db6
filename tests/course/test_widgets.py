"""The explorers: set a control's value, assert the state it computes."""

import html

import pytest
from traitlets import TraitError

from ledgerlab import BudgetError
from ledgerlab.course import charts, fixtures, scenario
from sentences import saying, says
from ledgerlab.course.widgets import (
    BudgetExplorer,
    FactsExplorer,
    SliceExplorer,
    PlainText,
    TextExplorer,
    join_labels,
    slice_problems,
)

# They render with matplotlib: `make test` runs them, `make check` leaves them out.
pytestmark = pytest.mark.draws

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_join_labels_groups_by_turn():
    assert join_labels(["A2", "U3", "A3", "U4"]) == "A2 | U3 A3 | U4"
    assert join_labels(["SYSTEM", "U3", "A3", "U4"]) == "SYSTEM | U3 A3 | U4"
    assert join_labels([]) == "(nothing)"


def test_slice_problems():
    assert slice_problems(["A2", "U3", "A3", "U4"], 3) == ["orphan answer A2", "no system message"]
    assert slice_problems(["SYSTEM", "U3", "A3", "U4"], 3) == []
    assert slice_problems(["SYSTEM", "U3"], 3) == ["orphan question U3", "no current question"]


def test_summary_shows_as_itself():
    assert repr(PlainText("a\nb")) == "a\nb"


def test_slice_explorer_at_the_articles_budget():
    explorer = SliceExplorer()
    assert explorer.slider.value == 175
    assert explorer.count_labels == ["A2", "U3", "A3", "U4"]
    assert explorer.count_bytes == 174
    assert explorer.count_problems == ["orphan answer A2", "no system message"]
    assert explorer.turn_labels == ["SYSTEM", "U3", "A3", "U4"]
    assert repr(explorer.selection) == "Selection(kept=1, dropped=2, bytes=175, budget=175)"
    assert explorer.error is None
    assert explorer.summary.splitlines() == [
        "budget 175 bytes",
        "  message-count slice: A2 | U3 A3 | U4  (174 bytes; orphan answer A2; no system message)",
        "  whole-turn slice:    SYSTEM | U3 A3 | U4  (175 bytes; 1 turn kept, 2 dropped)",
    ]


def test_slice_explorer_follows_the_slider():
    explorer = SliceExplorer()
    first_image = bytes(explorer.image.value)
    explorer.slider.value = 100
    assert explorer.selection is None
    assert isinstance(explorer.error, BudgetError) and explorer.error.mandatory_bytes == 108
    assert explorer.count_labels == ["U4"]
    assert explorer.turn_labels == []
    says(explorer.summary, "rejected", "mandatory input", "108 bytes", in_order=True)
    image = bytes(explorer.image.value)
    assert image.startswith(PNG_MAGIC) and image != first_image
    assert "rejected" in explorer.status.value

    explorer.slider.value = explorer.slider.max
    assert explorer.selection.kept == 3
    assert explorer.count_problems == []
    assert explorer.count_labels == explorer.turn_labels


def test_slider_range_covers_rejection_and_the_full_request():
    explorer = SliceExplorer()
    assert explorer.slider.min < 108 and explorer.slider.max >= 309


@pytest.mark.parametrize("row", scenario.boundary_table())
def test_budget_explorer_reproduces_the_table(row):
    explorer = BudgetExplorer()
    explorer.slider.value = row["budget"]
    assert (explorer.selection.kept, explorer.selection.dropped, explorer.selection.size) == (
        row["retained"], row["dropped"], row["bytes"])
    assert explorer.error is None


def test_budget_explorer_rejects_139_bytes():
    explorer = BudgetExplorer()
    explorer.slider.value = fixtures.REJECTED_BUDGET
    assert explorer.selection is None
    assert explorer.error.mandatory_bytes == 140 and explorer.error.budget == 139
    says(explorer.summary, "139 bytes", "gson", "BudgetError", "mandatory input", "140 bytes",
         in_order=True)


def test_budget_explorer_encoder_switch():
    explorer = BudgetExplorer(budget=308)
    says(explorer.summary, "308 bytes", "gson", "2 of 2 turns", "308 bytes", in_order=True)
    explorer.encoder.value = "requests"
    assert (explorer.selection.kept, explorer.selection.size) == (0, 194)
    explorer.slider.value = 140
    assert explorer.error.mandatory_bytes == 194
    explorer.encoder.value = "httpx"
    assert explorer.selection.size == 140


def test_text_explorer_measures_without_showing_the_text():
    explorer = TextExplorer()
    assert [m.value for m in explorer.measures] == [4, 3, 10, 12, 12, 26]
    explorer.text.value = "secret 🙂"
    assert [m.value for m in explorer.measures][:3] == [9, 8, 11]
    assert "secret" not in explorer.summary and "secret" not in explorer.status.value


@pytest.mark.parametrize("make", [SliceExplorer, BudgetExplorer, TextExplorer, FactsExplorer])
def test_explorers_show_as_widget_with_their_summary_and_chart_description_as_text(make):
    explorer = make()
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/plain"] == f"{explorer.summary}\nChart: {explorer.chart.description}"
    assert html.escape(explorer.chart.description) in explorer.caption.value
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.widget.model_id


@pytest.mark.slow  # every explorer redrawn 15 times
def test_callbacks_print_nothing(capsys):
    slicer, budget, text = SliceExplorer(), BudgetExplorer(), TextExplorer()
    for value in (60, 100, 175, 360):
        slicer.slider.value = value
        budget.slider.value = value + 40
    budget.encoder.value = "requests"
    text.text.value = "a\u2028b"
    facts = FactsExplorer()
    for value in (120, 264, 500):
        facts.budget_slider.value = value
        facts.cap_slider.value = value // 5
    assert capsys.readouterr() == ("", "")


# --- Edge cases: refused and reported, never clamped or swallowed --------------------

@pytest.mark.parametrize("budget", [0, 99, 460, 10**6])
def test_a_budget_outside_the_slider_is_refused_not_clamped(budget):
    with pytest.raises(TraitError, match=saying("budget", f"{budget} bytes", "range", 100,
                                                "459 bytes")):
        BudgetExplorer(budget=budget)
    explorer = BudgetExplorer(budget=308)
    with pytest.raises(TraitError, match="call select\\(\\) directly"):
        explorer.slider.value = budget
    assert explorer.slider.value == 308
    says(explorer.summary, "308 bytes", "gson", "2 of 2 turns", "308 bytes", in_order=True)


def test_the_slider_stops_60_bytes_past_the_largest_request_so_bars_stay_visible():
    explorer = BudgetExplorer()
    assert (explorer.slider.min, explorer.slider.max) == (100, 399 + 60)  # requests: 399 bytes
    explorer.slider.value = explorer.slider.max
    assert explorer.selection.kept == 2
    slicer = SliceExplorer()
    assert slicer.slider.max == 309 + 60


def test_encoder_none_is_refused_and_the_explorer_keeps_working():
    explorer = BudgetExplorer(budget=308)
    with pytest.raises(TraitError, match=saying("encoder", "gson", "httpx", "requests")):
        explorer.encoder.value = None
    assert explorer.encoder.value == "gson"
    explorer.slider.value = 235
    assert explorer.selection.kept == 1


def test_a_lone_surrogate_gets_a_message_not_a_unicode_error():
    explorer = TextExplorer()
    explorer.text.value = "secret\ud800"
    assert explorer.measures == [] and explorer.chart is None
    says(explorer.summary, "Unicode", "lone surrogate", "index 6", "7 code points", "UTF-8",
         "surrogate pair", in_order=True)
    assert "secret" not in explorer.summary
    assert bytes(explorer.image.value) == b""
    assert "secret" not in explorer.status.value + explorer.caption.value
    explorer.text.value = "ok"
    assert [m.value for m in explorer.measures][:3] == [2, 2, 2]


def test_a_failing_callback_shows_its_error_in_the_output_area(monkeypatch):
    explorer = BudgetExplorer()
    assert explorer.errors.outputs == ()

    def broken(*args, **kwargs):
        raise RuntimeError("chart failed at 200 bytes")

    monkeypatch.setattr(charts, "turn_bytes_chart", broken)
    with pytest.raises(RuntimeError):
        explorer.slider.value = 200
    assert explorer.errors.outputs == ({"output_type": "stream", "name": "stderr",
                                        "text": "RuntimeError: chart failed at 200 bytes\n"},)
    monkeypatch.undo()
    explorer.slider.value = 235
    assert explorer.errors.outputs == ()
