"""Every deck of `make slides` projected at 1366×768: every chart and diagram as large as its
text needs, and no figure's slide scrolls (issue 38, section 4).

reveal.js scales the 1280×720 slide to the screen, so the chart's text and the body text
are compared as drawn: a chart's text is 13 pt at 100 dpi in its PNG (chartstyle; every
text on a chart is checked to be that size in tests/course/test_charts.py; diagrams.py
draws at 13 pt too), times the width the slide shows the PNG at over its own width.
"""

from __future__ import annotations

import importlib.util
import sys

from conftest import ROOT, missing

_spec = importlib.util.spec_from_file_location("slides_build_projected",
                                               ROOT / "editions" / "slides" / "build.py")
slides = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = slides  # dataclasses look their module up there
_spec.loader.exec_module(slides)

# Every session's deck: 01's diagrams, captions long and short, 8- and 9-inch charts.
DECKS = [path.name for path in slides.session_notebooks()]

FIGURES = """() => {
  const scale = document.querySelector(".reveal .slides").getBoundingClientRect().width
      / Reveal.getConfig().width;
  const body = parseFloat(getComputedStyle(
      document.querySelector(".reveal .jp-RenderedMarkdown p")).fontSize) * scale;
  const found = [];
  for (const img of document.querySelectorAll(".reveal img.ledgerlab-figure-image")) {
    Reveal.slide(...Object.values(Reveal.getIndices(img.closest("section"))));
    const section = img.closest("section");
    const box = img.getBoundingClientRect();
    const area = img.closest(".jp-OutputArea-output").getBoundingClientRect();
    found.push({shown: box.width, height: box.height, natural: img.naturalWidth,
                naturalHeight: img.naturalHeight, area: area.width,
                scrolls: section.scrollHeight - section.clientHeight});
  }
  return {body, scale, figures: found};
}"""


def test_chart_text_on_a_slide_is_at_least_the_body_text_and_no_slide_scrolls(
        page, tmp_path, artifacts):
    from ledgerlab.course.chartstyle import TEXT_PT
    from ledgerlab.course.charts import DPI

    if not all((slides.REVEAL / name).is_file() for name in slides.REVEAL_FILES):
        missing("reveal.js is not installed: make slides installs it from npm")
    written = slides.build(tmp_path)
    page.set_viewport_size({"width": 1366, "height": 768})
    checked = 0
    for deck in written:
        page.goto(deck.as_uri())
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        measured = page.evaluate(FIGURES)
        # (05 draws no chart: the count below is over every deck.)
        for figure in measured["figures"]:
            text = TEXT_PT * DPI / 72 * figure["shown"] / figure["natural"]
            assert text >= measured["body"], (deck.name, figure, measured["body"])
            assert figure["scrolls"] <= 0, (deck.name, figure)  # the whole slide is seen
            # As wide as the slide allows: the output area's width, unless the chart would
            # then be taller than build.py leaves it (IMAGE_MAX_PX, in slide pixels).
            tall = figure["area"] * figure["naturalHeight"] / figure["natural"]
            assert (figure["shown"] >= 0.97 * figure["area"]
                    or tall > slides.IMAGE_MAX_PX * measured["scale"]), (deck.name, figure)
            assert abs(figure["height"] / figure["shown"]
                       - figure["naturalHeight"] / figure["natural"]) < 0.01  # not distorted
            checked += 1
        page.screenshot(path=artifacts / deck.name.replace(".html", ".png"))
    assert checked >= 15  # the figures of 01-10 (15 on 2 December 2026)
