"""The two conceptual pictures: every byte they label is measured, and they describe
themselves in words."""

import pytest
from matplotlib import colors
from matplotlib._pylab_helpers import Gcf
from matplotlib.patches import Rectangle

from ledgerlab import BudgetError, byte_breakdown, select
from ledgerlab.course import charts, diagrams, fixtures
from sentences import says

# They render with matplotlib: `make test` runs them, `make check` leaves them out.
pytestmark = pytest.mark.draws

BOUNDARY = (fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY, fixtures.BOUNDARY_QUESTION)
SLICE = (fixtures.SLICE_SYSTEM, fixtures.SLICE_HISTORY, fixtures.SLICE_QUESTION)
SCENARIO = (fixtures.SCENARIO_SYSTEM, fixtures.SCENARIO_HISTORY, fixtures.NEXT_STEP_QUESTION)
PALETTE = {colors.to_rgba(c) for c in (*charts.OKABE_ITO.values(), charts.ENVELOPE_COLOUR)}


def labels(figure) -> dict[str, str]:
    """The text of each labelled artist, by its gid (``bytes:system``, ``request:turn 3``)."""
    return {text.get_gid(): text.get_text() for text in figure.findobj(match=lambda a:
            hasattr(a, "get_text") and a.get_gid())}


@pytest.mark.parametrize("fixture", [BOUNDARY, SLICE, SCENARIO], ids=["boundary", "slice",
                                                                      "scenario"])
@pytest.mark.parametrize("encoder", ["gson", "requests"])
def test_the_anatomy_labels_byte_breakdowns_bytes(fixture, encoder):
    parts = byte_breakdown(*fixture, encoder=encoder)
    chart = diagrams.request_anatomy(*fixture, encoder=encoder)
    expected = {"bytes:envelope": parts["envelope"], "bytes:system": parts["system"],
                "bytes:question": parts["question"],
                **{f"bytes:turn {n}": size for n, size in enumerate(parts["turns"], start=1)}}
    assert labels(chart.figure) == {key: f"{size} B" for key, size in expected.items()}
    total = sum(expected.values())
    says(chart.description, "Diagram", f"{total} bytes", encoder, in_order=True)
    for key, size in expected.items():
        assert f"{key.removeprefix('bytes:')} {size}" in chart.description


def test_the_articles_request_in_words():
    chart = diagrams.request_anatomy(*BOUNDARY)
    assert ("envelope 42, system 60, turn 1 73, turn 2 95, question 38 bytes"
            in chart.description)
    says(chart.description, "Diagram", "308 bytes", "gson", in_order=True)
    # The envelope is not one run of bytes on the wire, and the words do not say it is: its
    # opening, the comma before the question and its closing, drawn first as one piece.
    opening = b'{"model":"agnes-3.0-flash","messages":['
    assert byte_breakdown(*BOUNDARY)["envelope"] == len(opening) + len(b",") + len(b"]}")
    says(chart.description, "envelope", "opening", "comma", "question", "closing", "first",
         "messages", "wire order", in_order=True)
    assert "as one bar in wire order" not in chart.description


@pytest.mark.parametrize("budget", [108, 175, 242, 400])
def test_storage_vs_context_draws_every_stored_turn_and_the_request_select_sends(budget):
    chart = diagrams.storage_vs_context(*SLICE, budget)
    chosen = select(*SLICE, budget)
    parts = byte_breakdown(*SLICE)
    found = labels(chart.figure)
    assert [key for key in found if key.startswith("ledger:")] == [
        "ledger:turn 1", "ledger:turn 2", "ledger:turn 3"]
    kept = [f"turn {n}" for n in range(4 - chosen.kept, 4)]
    assert [key.removeprefix("request:") for key in found if key.startswith("request:")] == [
        "system", *kept, "question", "envelope", "total"]
    for n in range(1, 4):
        assert found[f"ledger:turn {n}"].endswith("not sent this call") == (f"turn {n}" not in kept)
    for turn in kept:
        assert found[f"request:{turn}"] == f"{turn} · {parts['turns'][int(turn[-1]) - 1]} B"
    assert found["request:total"] == f"{chosen.size} of the {budget}-byte budget"
    assert f"{chosen.size} of {budget} bytes" in chart.description
    says(chart.description, "nothing", "ledger", in_order=True)


def test_storage_vs_context_with_pinned_facts_adds_up_to_the_request():
    chosen = select(*SCENARIO, 400, facts=fixtures.PINNED_FACTS)
    chart = diagrams.storage_vs_context(*SCENARIO, 400, facts=fixtures.PINNED_FACTS)
    found = labels(chart.figure)
    assert found["ledger:facts"] == "pinned facts · 2 facts"
    assert found["request:facts"] == f"pinned facts: 2 of 2 · {chosen.fact_bytes} B"
    sizes = [int(text.split("·")[-1].removesuffix(" B")) for key, text in found.items()
             if key.startswith("request:") and key != "request:total"]
    assert sum(sizes) == chosen.size == 365
    assert "2 facts of the 2 pinned (101 bytes)" in chart.description
    says(chart.description, "Turn 1", "ledger", "not sent", in_order=True)


def test_a_budget_too_small_is_refused_as_select_refuses_it():
    with pytest.raises(BudgetError):
        diagrams.storage_vs_context(*SLICE, 107)


def test_the_pictures_show_alt_text_and_a_caption_and_leave_no_figure_open(capsys):
    for chart in (diagrams.storage_vs_context(*SLICE, 175), diagrams.request_anatomy(*SLICE)):
        bundle = chart._repr_mimebundle_()
        assert bundle["text/plain"] == chart.description
        escaped = chart.description.replace("'", "&#x27;")
        assert f'alt="{escaped}"' in bundle["text/html"]
        assert f"{escaped}</figcaption>" in bundle["text/html"]
        assert bundle["image/png"]
    assert capsys.readouterr() == ("", "")
    assert Gcf.get_num_fig_managers() == 0


@pytest.mark.parametrize("draw", [lambda: diagrams.storage_vs_context(
    *SCENARIO, 400, facts=fixtures.PINNED_FACTS), lambda: diagrams.request_anatomy(*BOUNDARY)],
    ids=["storage", "anatomy"])
def test_text_is_projector_sized_and_fills_are_colour_blind_safe(draw):
    figure = draw().figure
    texts = [t for t in figure.findobj(match=lambda a: hasattr(a, "get_fontsize")) if
             t.get_text()]
    assert texts and min(t.get_fontsize() for t in texts) >= 12
    fills = {p.get_facecolor() for p in figure.axes[0].patches if p.get_facecolor()[3] and
             p.get_facecolor() != colors.to_rgba("white")}
    assert fills - {colors.to_rgba(diagrams.FAINT)} <= PALETTE


@pytest.mark.parametrize("draw", [
    lambda: diagrams.storage_vs_context(*SCENARIO, 400, facts=fixtures.PINNED_FACTS),
    lambda: diagrams.storage_vs_context(*SLICE, 175),
    *(lambda fixture=fixture, encoder=encoder: diagrams.request_anatomy(*fixture, encoder=encoder)
      for fixture in (BOUNDARY, SLICE, SCENARIO) for encoder in ("gson", "requests"))],
    ids=["storage-facts", "storage-slice", *(f"anatomy-{f}-{e}" for f in ("boundary", "slice",
         "scenario") for e in ("gson", "requests"))])
def test_every_text_is_inside_the_figure_and_a_label_inside_its_box(draw):
    # Drawn 9 in wide (so that a slide shows their 13-pt text at body size), nothing may spill.
    chart = draw()
    chart.png()  # as test_charts does: the renderer that drew the PNG measures the text
    figure = chart.figure
    renderer = figure._get_renderer()
    texts = [t for t in figure.findobj(match=lambda a: hasattr(a, "get_fontsize"))
             if t.get_text().strip()]
    boxes = [p.get_window_extent(renderer) for p in figure.axes[0].patches
             if isinstance(p, Rectangle)]
    for text in texts:
        extent = text.get_window_extent(renderer)
        assert figure.bbox.x0 <= extent.x0 and extent.x1 <= figure.bbox.x1, text.get_text()
        assert figure.bbox.y0 <= extent.y0 and extent.y1 <= figure.bbox.y1, text.get_text()
        centre = ((extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2)
        for box in boxes:
            if box.contains(*centre):  # a label drawn on a box stays within it
                assert box.x0 <= extent.x0 and extent.x1 <= box.x1, text.get_text()
