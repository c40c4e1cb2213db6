"""The course's figures: what they measure (``measures``) is exact, and what they draw
(``charts``) is labelled."""

import base64
import html.parser
import io

import pytest
from matplotlib import colors
from matplotlib._pylab_helpers import Gcf
from matplotlib.figure import Figure

from ledgerlab import BudgetError, Journal, JournalFull, Turn, request_bytes, select
from ledgerlab.course import charts, fixtures, measures, scenario
from ledgerlab.journal import DEFAULT_MAX_BYTES, encode_record
from ledgerlab import DEFAULT_MODEL, ENCODERS, get_encoder
from sentences import says

# A test marked `draws` renders with matplotlib: `make test` runs it, `make check` leaves it out.

BOUNDARY = (fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY, fixtures.BOUNDARY_QUESTION)
SLICE = (fixtures.SLICE_SYSTEM, fixtures.SLICE_HISTORY, fixtures.SLICE_QUESTION)
PALETTE = {colors.to_rgba(c) for c in (*charts.OKABE_ITO.values(), charts.ENVELOPE_COLOUR)}


def sent_bytes(segments):
    return sum(segment.nbytes for segment in segments if segment.kept)


@pytest.mark.parametrize("encoder", list(ENCODERS))
@pytest.mark.parametrize("fixture", [BOUNDARY, SLICE])
def test_whole_turn_segments_add_up_to_the_request(fixture, encoder):
    system, history, question = fixture
    for kept in range(len(history) + 1):
        flags = measures.whole_turn_flags(len(history), kept)
        segments = measures.message_segments(system, history, question, flags, encoder=encoder)
        expected = request_bytes(system, list(history[len(history) - kept:]), question,
                                 encoder=encoder)
        assert sent_bytes(segments) == len(expected)


@pytest.mark.parametrize("encoder", list(ENCODERS))
def test_count_slice_is_the_longest_message_suffix_that_fits(encoder):
    system, history, question = SLICE
    dumps = get_encoder(encoder).dumps
    total = 2 * len(history) + 2
    for budget in range(30, 340):
        last, size = measures.count_slice(system, history, question, budget, encoder=encoder)
        kept = scenario.message_count_slice(system, history, question, last) if last else []
        assert size == len(dumps({"model": DEFAULT_MODEL, "messages": kept}))
        assert size <= budget or last == 0
        if last < total:
            longer = scenario.message_count_slice(system, history, question, last + 1)
            assert len(dumps({"model": DEFAULT_MODEL, "messages": longer})) > budget
        flags = [index >= total - last for index in range(total)]
        segments = measures.message_segments(system, history, question, flags, encoder=encoder)
        assert sent_bytes(segments) == size


def test_the_articles_bad_slice_at_175_bytes():
    last, size = measures.count_slice(*SLICE, 175)
    labels = measures.message_labels(len(fixtures.SLICE_HISTORY))
    assert labels[-last:] == ["A2", "U3", "A3", "U4"]
    assert size == 174
    assert select(*SLICE, 175).size == 175


def test_message_labels():
    assert measures.message_labels(3) == ["SYSTEM", "U1", "A1", "U2", "A2", "U3", "A3", "U4"]
    assert measures.message_labels(0) == ["SYSTEM", "U1"]


def test_message_segments_needs_one_flag_per_message():
    with pytest.raises(ValueError, match="4 flags for 8 messages"):
        measures.message_segments(*SLICE, [True] * 4)


@pytest.mark.parametrize("encoder", list(ENCODERS))
def test_suffix_sizes_are_the_selectors_thresholds(encoder):
    sizes = measures.suffix_sizes(*BOUNDARY, encoder=encoder)
    for budget in range(1, sizes[-1] + 20):
        if budget < sizes[0]:
            with pytest.raises(BudgetError):
                select(*BOUNDARY, budget, encoder=encoder)
        else:
            kept = max(k for k, size in enumerate(sizes) if size <= budget)
            assert select(*BOUNDARY, budget, encoder=encoder).kept == kept


def test_suffix_sizes_of_the_boundary_fixture():
    assert measures.suffix_sizes(*BOUNDARY) == [140, 235, 308]
    assert measures.suffix_sizes(*BOUNDARY, encoder="requests") == [194, 318, 399]


def test_length_measures_of_the_mandatory_request():
    values = {m.label: m.value for m in measures.length_measures(fixtures.BOUNDARY_SYSTEM, [],
                                                                fixtures.BOUNDARY_QUESTION)}
    assert values["request body: wire bytes (gson)"] == 140
    assert values["request body: UTF-16 units (Java length())"] == 114
    assert values["request body: code points (Python len())"] == 113
    assert values["raw text: UTF-8 bytes"] == 40


def test_text_measures():
    values = [m.value for m in measures.text_measures("🙂")]
    assert values == [2, 1, 4, 6, 6, 14]  # units, code points, UTF-8, gson, httpx, requests
    separator = {m.label: m.value for m in measures.text_measures("\u2028")}
    assert separator["JSON string bytes (gson)"] == 8  # escaped as \u2028
    assert separator["JSON string bytes (httpx)"] == 5  # raw, 3 bytes of UTF-8


def bars(figure):
    return [patch for ax in figure.axes for patch in ax.patches]


def check_labelled(figure, size):
    assert isinstance(figure, Figure)
    assert tuple(figure.get_size_inches()) == size
    ax = figure.axes[0]
    assert ax.get_title()
    assert "bytes" in ax.get_xlabel()
    assert ax.get_legend() is not None or figure.legends


def legend_inside_figure(figure):
    """Whether every legend is drawn whole, inside the figure (none clipped at an edge)."""
    figure.savefig(io.BytesIO(), format="png")  # as the PNG is drawn: the layout is final
    renderer = figure._get_renderer()
    box = figure.bbox
    legends = [*figure.legends, *(ax.get_legend() for ax in figure.axes if ax.get_legend())]
    return all(box.x0 <= (extent := legend.get_window_extent(renderer)).x0
               and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1
               for legend in legends)


def budget_lines(figure):
    return [line.get_xdata()[0] for line in figure.axes[0].lines
            if line.get_linestyle() == "--" and len(set(line.get_xdata())) == 1]


def test_slice_chart():
    figure = charts.slice_chart(*SLICE, 175).figure
    check_labelled(figure, (9, 3.4))
    assert budget_lines(figure) == [175]
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert labels == ["message-count slice\n174 bytes", "whole-turn slice\n175 bytes"]
    patches = bars(figure)
    assert len(patches) == 2 * 9  # envelope + 8 messages, in each row
    solid = [p for p in patches if not p.get_hatch()]
    assert {p.get_facecolor() for p in solid} <= PALETTE
    assert sum(p.get_width() for p in solid) == 174 + 175


@pytest.mark.draws
def test_slice_chart_when_the_whole_turn_rule_refuses():
    figure = charts.slice_chart(*SLICE, 100).figure
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert labels[1] == "whole-turn slice\nrejected (needs 108)"
    # The legend is whole: a long tick label once narrowed the axes and clipped "budget (100 byt".
    assert legend_inside_figure(figure)
    texts = [text.get_text() for text in figure.legends[0].get_texts()]
    assert texts[-1] == "budget (100 bytes)"


@pytest.mark.draws
@pytest.mark.slow  # draws two charts for each of six budgets
@pytest.mark.parametrize("budget", [100, 107, 108, 175, 309, 400])
def test_every_slice_chart_legend_is_whole(budget):
    assert legend_inside_figure(charts.slice_chart(*SLICE, budget).figure)
    assert legend_inside_figure(charts.turn_bytes_chart(*BOUNDARY, budget + 31).figure)


@pytest.mark.draws
@pytest.mark.parametrize("budget, title", [
    (235, ("235 bytes", "gson", "1 of 2 turns", "235 bytes")),
    (139, ("139 bytes", "gson", "rejected", "mandatory input", "140 bytes")),
])
def test_turn_bytes_chart(budget, title):
    figure = charts.turn_bytes_chart(*BOUNDARY, budget).figure
    check_labelled(figure, (9, 2.6))
    says(figure.axes[0].get_title(), *title, in_order=True)
    assert budget_lines(figure) == [budget]
    widths = {p.get_width() for p in bars(figure) if not p.get_hatch()}
    dropped = {p.get_width() for p in bars(figure) if p.get_hatch()}
    if budget == 235:
        assert widths == {42, 60, 95, 38} and dropped == {73}
    else:
        assert widths == set() and dropped == {42, 60, 73, 95, 38}


@pytest.mark.draws
def test_retained_chart_steps_and_marks():
    figure = charts.retained_chart(*BOUNDARY, budgets=fixtures.BOUNDARY_BUDGETS,
                                   encoders=list(ENCODERS)).figure
    ax = figure.axes[0]
    assert ax.get_xlabel() == "budget (bytes)" and ax.get_ylabel() == "turns retained"
    steps = [line for line in ax.lines if line.get_label().startswith(("gson", "httpx", "requests"))]
    assert [list(line.get_xdata()[:3]) for line in steps] == [[140, 235, 308]] * 2 + [[194, 318, 399]]
    marks = [(line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines
             if line.get_marker() == "o"]
    assert marks == [(140, 0), (235, 1), (308, 2), (408, 2)]
    assert "140, 235, 308, 408" in ax.get_title()
    # Every marked budget is inside the axis, 408 (a ceiling, not a target) included.
    assert ax.get_xlim()[1] > 408


# --- Descriptions: what a screen reader, a terminal and nbval get instead of the PNG ------

@pytest.mark.draws
def test_a_chart_shows_as_png_with_its_description_as_text():
    chart = charts.turn_bytes_chart(*BOUNDARY, 235)
    bundle = chart._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert bundle["text/plain"] == chart.description == repr(chart)
    assert "Figure size" not in repr(chart)


@pytest.mark.draws
def test_a_chart_in_jupyterlab_shows_its_description_under_the_image():
    """JupyterLab renders the richest type, text/html: the figure, with the description both
    as the image's alt text and as a visible caption (the PNG alone showed no numbers)."""
    chart = charts.turn_bytes_chart(*BOUNDARY, 235)
    bundle = chart._repr_mimebundle_()
    page = html.parser.HTMLParser()
    found = {}
    page.handle_starttag = lambda tag, attrs: found.setdefault(tag, dict(attrs))
    page.handle_data = lambda data: found.setdefault("text", data)
    page.feed(bundle["text/html"])
    assert found["img"]["alt"] == chart.description
    assert found["img"]["src"] == "data:image/png;base64," + bundle["image/png"]
    assert "figcaption" in found and found["text"] == chart.description


@pytest.mark.draws
def test_a_description_with_markup_is_escaped_in_the_figure():
    chart = charts.Chart(Figure(), 'a <b>bold</b> "quote" & more')
    figure = chart.html("AAAA")
    assert "<b>" not in figure and "&lt;b&gt;" in figure and "&quot;quote&quot;" in figure


@pytest.mark.draws
@pytest.mark.parametrize("budget, parts, outcome", [
    (235, "envelope 42, system 60, turn 2 95, question 38, turn 1 73 (dropped)",
     ("1 of 2 turns", "235 bytes")),
    (139, "envelope 42 (dropped), system 60 (dropped), turn 1 73 (dropped), turn 2 95 (dropped), "
          "question 38 (dropped)", ("mandatory input", "140 bytes")),
])
def test_turn_bytes_chart_description(budget, parts, outcome):
    # How to read the bar (the budget dashed, dropped parts hatched), each part's bytes as
    # drawn (the sent parts first), then what the budget kept.
    says(charts.turn_bytes_chart(*BOUNDARY, budget).description, budget, "budget", "gson",
         "dashed", "hatched", parts, *outcome, in_order=True)


@pytest.mark.draws
def test_slice_chart_description_names_both_slices():
    text = charts.slice_chart(*SLICE, 175).description
    says(text, "Message-count", "A2 | U3 A3 | U4", "174 bytes", "orphan", "A2",
         "no system message", "Whole-turn", "SYSTEM | U3 A3 | U4", "175 bytes", in_order=True)
    says(charts.slice_chart(*SLICE, 100).description, "rejected", "mandatory input", "108 bytes",
         in_order=True)
    # predict02_count's hint sends the learner to this chart for each message's bytes; they
    # are listed as drawn, the sent ones first (a reader hears what a viewer sees).
    assert ("message-count row envelope 41, A2 35, U3 31, A3 36, U4 31, SYSTEM 37 (dropped), "
            "U1 31 (dropped), A1 36 (dropped), U2 31 (dropped); whole-turn row envelope 41, "
            "SYSTEM 36, U3 31, A3 36, U4 31, U1 31 (dropped)") in text


@pytest.mark.draws
def test_slice_chart_labels_each_message_with_its_bytes():
    chart = charts.slice_chart(*SLICE, 175)
    last, _ = measures.count_slice(*SLICE, 175)
    total = 2 * len(SLICE[1]) + 2
    row = measures.message_segments(*SLICE, [i >= total - last for i in range(total)])
    drawn = [t.get_text() for t in chart.figure.findobj(match=lambda a: hasattr(a, "get_gid")
                                                         and a.get_gid() == "segment:1")]
    # Every message, sent or dropped, named with its bytes; the envelope is in the legend.
    assert sorted(drawn) == sorted(f"{s.label}\n{s.nbytes}" for s in row if s.label != "envelope")
    assert "A2\n35" in drawn and sum(s.nbytes for s in row if s.kept) == 174


@pytest.mark.draws
def test_retained_chart_description_has_every_step_and_mark():
    text = charts.retained_chart(*BOUNDARY, budgets=(139, *fixtures.BOUNDARY_BUDGETS)).description
    says(text, "gson", "rejected", "140 bytes", "0 from 140", "1 from 235", "2 from 308",
         in_order=True)
    assert "139 rejected, 140 keeps 0, 235 keeps 1, 308 keeps 2, 408 keeps 2" in text


@pytest.mark.draws
def test_measures_and_disk_growth_descriptions():
    lengths = measures.length_measures(fixtures.BOUNDARY_SYSTEM, [], fixtures.BOUNDARY_QUESTION)
    text = charts.measures_chart(lengths, budget=139).description
    assert "request body: wire bytes (gson): 140" in text
    assert "request body: UTF-16 units (Java length()): 114" in text
    says(text, "budget", "139 bytes", "dashed", in_order=True)
    growth = measures.journal_growth(SHORT_TURN, max_bytes=600)
    text = charts.disk_growth_chart({"short": growth}, max_bytes=600).description
    assert "cap, 600 bytes (dashed)" in text and "short: 3 turns, 510 bytes" in text


@pytest.mark.draws
def test_measures_chart():
    lengths = measures.length_measures(fixtures.BOUNDARY_SYSTEM, [], fixtures.BOUNDARY_QUESTION)
    figure = charts.measures_chart(lengths, budget=139).figure
    check_labelled(figure, (9, 0.36 * 6 + 1.7))
    assert sorted(p.get_width() for p in bars(figure)) == [13, 14, 40, 113, 114, 140]
    assert budget_lines(figure) == [139]


@pytest.mark.draws
def test_charts_print_nothing_and_leave_no_pyplot_figures(capsys):
    charts.slice_chart(*SLICE, 175)
    charts.turn_bytes_chart(*BOUNDARY, 235)
    charts.retained_chart(*BOUNDARY).png()
    charts.measures_chart(measures.text_measures("x"))
    charts.disk_growth_chart({"x": measures.journal_growth(Turn("q", "a"), max_bytes=1000)},
                             max_bytes=1000)
    assert capsys.readouterr() == ("", "")
    assert Gcf.get_num_fig_managers() == 0


def test_group_colours_are_colour_blind_safe():
    groups = ["envelope", "system", "question"] + [f"turn {n}" for n in range(1, 8)]
    assert {colors.to_rgba(charts.group_colour(g)) for g in groups} <= PALETTE


SHORT_TURN = fixtures.SCENARIO_TURNS[0][1]


def test_journal_growth_is_what_a_real_journal_writes_up_to_its_cap(tmp_path):
    cap = 1000
    growth = measures.journal_growth(SHORT_TURN, max_bytes=cap)
    path = tmp_path / "growth.log"
    sizes = [0]
    with Journal(path, max_bytes=cap) as journal:
        with pytest.raises(JournalFull):
            for number in range(1, 100):
                journal.commit(measures.growth_id(number), SHORT_TURN.question,
                               SHORT_TURN.answer)
                sizes.append(path.stat().st_size)
    assert growth == sizes
    assert len(growth) - 1 == 5 and growth[-1] == 850  # 5 lines of 170 bytes; a 6th crosses


def test_journal_growth_gives_one_turn_one_line_size_so_the_file_is_lines_times_turns():
    # Notebook 06 shows the scenario's turn one as a 170-byte line under its own id, 'one';
    # the growth demo's ids give it the same size, and its table multiplies out.
    own = len(encode_record(fixtures.SCENARIO_TURNS[0][0], SHORT_TURN.question, SHORT_TURN.answer))
    for turn in (SHORT_TURN, Turn("q" * 100, "a" * 1000), Turn("问" * 100, "答" * 1000)):
        growth = measures.journal_growth(turn)
        assert len(set(b - a for a, b in zip(growth, growth[1:]))) == 1
        assert growth[-1] == growth[1] * (len(growth) - 1)
    assert measures.journal_growth(SHORT_TURN)[1] == own == 170
    assert [measures.growth_id(n) for n in (1, 42, 99_999)] == ["00001", "00042", "99999"]
    with pytest.raises(ValueError):
        measures.growth_id(100_000)


def test_journal_growth_stops_at_the_last_commit_under_the_default_cap():
    growth = measures.journal_growth(SHORT_TURN)
    next_line = len(encode_record(measures.growth_id(len(growth)), SHORT_TURN.question,
                                  SHORT_TURN.answer))
    assert growth[-1] <= DEFAULT_MAX_BYTES == 4 * 1024 * 1024 < growth[-1] + next_line
    assert len(growth) - 1 == 24672
    assert measures.journal_growth(Turn("q", "a" * 100), max_bytes=100) == [0]  # not even one


@pytest.mark.draws
def test_disk_growth_chart():
    long_turn = Turn("q" * 100, "a" * 1000)
    series = {"short": measures.journal_growth(SHORT_TURN),
              "long": measures.journal_growth(long_turn)}
    figure = charts.disk_growth_chart(series).figure
    assert isinstance(figure, Figure) and tuple(figure.get_size_inches()) == (9, 3.8)
    ax = figure.axes[0]
    assert ax.get_title() == "Journal file size against turns committed"
    assert ax.get_xlabel() == "turns committed" and ax.get_ylabel() == "journal file (bytes)"
    plotted = [line for line in ax.lines if len(line.get_xdata()) > 2]
    assert [list(line.get_ydata()) for line in plotted] == list(series.values())
    assert [list(line.get_xdata()) for line in plotted] == [list(range(len(s)))
                                                           for s in series.values()]
    ends = [(line.get_xdata()[0], line.get_ydata()[0]) for line in ax.lines
            if line.get_marker() == "o"]
    assert ends == [(24672, series["short"][-1]), (2644, series["long"][-1])]
    caps = [line.get_ydata()[0] for line in ax.lines
            if line.get_linestyle() == "--" and len(set(line.get_ydata())) == 1]
    assert caps == [DEFAULT_MAX_BYTES]
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend[0] == f"short: 24,672 turns, {series['short'][-1]:,} bytes"
    says(legend[-1], "cap", "4,194,304 bytes", "4 MiB", "next commit", "refused", in_order=True)
    assert {colors.to_rgba(line.get_color()) for line in ax.lines} <= PALETTE
    assert len({line.get_linestyle() for line in plotted}) == 2  # not told apart by hue alone


@pytest.mark.draws
def test_disk_growth_chart_with_a_small_cap_and_bad_input():
    figure = charts.disk_growth_chart({"short": measures.journal_growth(SHORT_TURN, max_bytes=600)},
                                      max_bytes=600).figure
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert len(legend) == 2 and legend[0] == "short: 3 turns, 510 bytes"
    says(legend[1], "cap", "600 bytes", "next commit", "refused", in_order=True)
    with pytest.raises(ValueError):
        charts.disk_growth_chart({})
    with pytest.raises(ValueError):
        charts.disk_growth_chart({"empty": []})


@pytest.mark.draws
@pytest.mark.parametrize("draw", [
    lambda: charts.slice_chart(*SLICE, 175),
    lambda: charts.turn_bytes_chart(*BOUNDARY, 308, encoder="requests"),
    lambda: charts.retained_chart(*BOUNDARY, budgets=(139, *fixtures.BOUNDARY_BUDGETS),
                                  encoders=("gson", "httpx", "requests")),
    lambda: charts.measures_chart(measures.text_measures("🙂"), budget=10),
    lambda: charts.disk_growth_chart({"short": measures.journal_growth(SHORT_TURN, max_bytes=600)},
                                     max_bytes=600),
    lambda: charts.budget_split_chart(*BOUNDARY, fixtures.PINNED_FACTS, range(140, 501),
                                      budget=264),
], ids=["slice", "turn-bytes", "retained", "measures", "disk-growth", "budget-split"])
def test_every_text_on_a_chart_is_projector_sized_and_inside_the_figure(draw):
    # At 13 pt (18 px of the PNG) a chart drawn 1200 px wide on a 1280-px slide has text as
    # large as the slide's 24 px body text (tests/editions/browser measures it there).
    from ledgerlab.course.chartstyle import TEXT_PT

    chart = draw()
    chart.png()  # tick labels are made as the figure is drawn
    renderer = chart.figure._get_renderer()
    box = chart.figure.bbox
    undrawn = {id(tick.label1) for ax in chart.figure.axes for axis in (ax.xaxis, ax.yaxis)
               for tick in axis.get_major_ticks() if not
               min(axis.get_view_interval()) <= tick.get_loc() <= max(axis.get_view_interval())}
    texts = [t for t in chart.figure.findobj(match=lambda a: hasattr(a, "get_fontsize"))
             if t.get_text().strip() and t.get_visible() and id(t) not in undrawn]
    assert len(texts) > 5
    assert min(t.get_fontsize() for t in texts) >= TEXT_PT
    outside = [t.get_text() for t in texts if not (
        box.x0 - 1 <= (extent := t.get_window_extent(renderer)).x0 and extent.x1 <= box.x1 + 1
        and box.y0 - 1 <= extent.y0 and extent.y1 <= box.y1 + 1)]
    assert outside == []
