"""The budget explorer page that `make present` serves, driven in Chromium as a teacher would."""

import re
from urllib.parse import urlsplit

import frontend
from frontend import ONE_TURN, REJECTED
from playwright.sync_api import expect


def test_budget_slider_in_voila(page, voila_url, artifacts):
    page.goto(voila_url, timeout=90_000)  # Voilà runs the notebook before it answers
    budget = page.locator(".budget-slider")
    summary = page.locator(".budget-summary")
    current_row = page.locator(".budget-table tr.current td")
    chart = page.locator(".budget-chart")
    expect(budget).to_be_visible(timeout=90_000)
    expect(summary).to_contain_text("2 of 2 turns kept, 308 bytes sent")
    expect(current_row).to_have_text(["308 (slider)", "2", "0", "308"])
    # Each slider handle has an accessible name: its description (ledgerlab.course.widgets).
    expect(budget.locator(".noUi-handle")).to_have_attribute("aria-label", "budget")
    for handle in page.locator(".widget-slider .noUi-handle").all():
        expect(handle).to_have_attribute("aria-label", re.compile(r"\S"))
    # The chart's description is not small print: at least 14 px.
    caption = page.locator(".ledgerlab-chart-description .widget-html-content")
    assert caption.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 14

    # Drag close to 235, then step the rest of the way with the arrow keys.
    before = chart.get_attribute("src")
    frontend.drag_to(page, budget, 230)
    assert abs(frontend.value(budget) - 230) <= 5, "the drag did not move the handle"
    frontend.step_to(budget, 235)
    expect(summary).to_contain_text(f"budget 235 bytes, gson encoder: {ONE_TURN}")
    # The table is redrawn after the summary and the chart: once it shows 235, all three do.
    expect(current_row).to_have_text(["235 (slider)", "1", "1", "235"])
    frontend.chart_redrawn(page, chart, before)
    page.screenshot(path=artifacts / "voila-235.png", full_page=True)

    # Type below the mandatory input.
    before = chart.get_attribute("src")
    frontend.type_value(budget, 139)
    expect(summary).to_contain_text(f"budget 139 bytes, gson encoder: {REJECTED}")
    expect(current_row).to_have_text(
        ["139 (slider)", "rejected: the mandatory input needs 140 bytes"])
    frontend.chart_redrawn(page, chart, before)
    page.screenshot(path=artifacts / "voila-139.png", full_page=True)


# A projector's screen: the page must fit it whole, with no scrolling.
PROJECTOR = {"width": 1366, "height": 768}

# Where each part is and how big, as the browser lays it out; every text's font size but
# the headings' and the chart description's.
LAYOUT = """() => {
  const box = selector => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width,
            height: r.height};
  };
  const chart = document.querySelector(".budget-chart");
  const sizes = [];
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (texts.nextNode()) {
    const parent = texts.currentNode.parentElement;
    if (!texts.currentNode.textContent.trim() || !parent.getClientRects().length) continue;
    if (parent.closest("h1, h2, h3, h4, h5, h6, style, script, .ledgerlab-chart-description"))
      continue;
    sizes.push(parseFloat(getComputedStyle(parent).fontSize));
  }
  const caption = document.querySelector(".ledgerlab-chart-description .widget-html-content");
  return {slider: box(".budget-slider"), row: box(".budget-table tr.current"),
          chart: box(".budget-chart"), natural: [chart.naturalWidth, chart.naturalHeight],
          viewport: [innerWidth, innerHeight], scrolled: [scrollX, scrollY],
          caption: parseFloat(getComputedStyle(caption).fontSize), otherText: Math.max(...sizes)};
}"""


def test_the_present_page_fits_a_projector_and_asks_only_loopback(page, voila_url, outside,
                                                                 artifacts):
    """At 1366×768 the slider, the chart and the table's highlighted row are all on screen
    at once, whichever row it is; the chart is drawn at its own size (a PNG stretched wider
    has soft text); its description is the largest text but the title, and is the chart's
    alt; every request goes to 127.0.0.1 (Voila's own template links a CDN); axe finds no
    serious or critical violation on the page."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda socket: requests.append(socket.url))
    page.set_viewport_size(PROJECTOR)
    page.goto(voila_url, timeout=90_000)
    budget = page.locator(".budget-slider")
    summary = page.locator(".budget-summary")
    current_row = page.locator(".budget-table tr.current td")
    chart = page.locator(".budget-chart")
    caption = page.locator(".ledgerlab-chart-description")
    expect(budget).to_be_visible(timeout=90_000)
    expect(summary).to_contain_text("2 of 2 turns kept, 308 bytes sent")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=chart.element_handle())

    # 308: the table's five rows; 230: a sixth, the slider's (the tallest table);
    # 139: rejected (the longest description).
    for target, row in ((None, "308 (slider)"), (230, "230 (slider)"), (139, "139 (slider)")):
        if target is not None:
            before = chart.get_attribute("src")
            frontend.type_value(budget, target)
            expect(current_row.first).to_have_text(row)
            frontend.chart_redrawn(page, chart, before)
        expect(current_row.first).to_have_text(row)
        expect(chart).to_have_attribute("alt", caption.inner_text().strip())
        layout = page.evaluate(LAYOUT)
        width, height = layout["viewport"]
        assert layout["scrolled"] == [0, 0], f"{row}: the page scrolled"
        for part in ("slider", "row", "chart"):
            box = layout[part]
            assert box["top"] >= 0 and box["left"] >= 0, f"{row}: {part} above or left: {box}"
            assert box["bottom"] <= height and box["right"] <= width, \
                f"{row}: {part} past the {width}×{height} screen: {box}"
        natural_width, natural_height = layout["natural"]
        assert layout["chart"]["width"] == natural_width, "the chart is scaled"
        assert abs(layout["chart"]["height"] - natural_height) <= 1, "the chart is distorted"
        assert layout["caption"] >= 16 and layout["caption"] >= layout["otherText"], layout
        page.screenshot(path=artifacts / f"voila-projector-{target or 308}.png")

    assert frontend.serious_violations(page) == []
    assert outside == []
    elsewhere = [url for url in requests if urlsplit(url).scheme in ("http", "https", "ws", "wss")
                 and urlsplit(url).hostname != "127.0.0.1"]
    assert elsewhere == []
    assert any("/api/kernels/" in url for url in requests)  # the recorder saw the kernel's socket


# Whether any word of the element's text is laid out on more than one line: each word's
# Range has a client rect per line box it is on.
BROKEN_WORDS = """element => {
  const broken = [];
  const texts = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  while (texts.nextNode()) {
    const node = texts.currentNode;
    for (const match of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                           .map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""


def test_the_room_reads_the_chart_and_summary_and_sees_the_legend(page, voila_url, artifacts):
    """With the requests encoder (the longest summary): at 1366×768 the chart's text, drawn at
    the chart's own size, is at least the body text's size; at that width and narrower no
    word of the summary is split across two lines; in a 1366×625 window the whole chart,
    its legend at the bottom, is on screen without scrolling."""
    from ledgerlab.course.chartstyle import TEXT_PT
    from ledgerlab.course.charts import DPI

    page.set_viewport_size(PROJECTOR)
    page.goto(voila_url, timeout=90_000)
    summary = page.locator(".budget-summary")
    chart = page.locator(".budget-chart")
    expect(page.locator(".budget-slider")).to_be_visible(timeout=90_000)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=chart.element_handle())
    before = chart.get_attribute("src")
    page.get_by_role("button", name="requests", exact=True).click()
    expect(summary).to_contain_text("requests encoder: 0 of 2 turns kept, 194 bytes sent")
    frontend.chart_redrawn(page, chart, before)

    sizes = page.evaluate("""() => {
      const chart = document.querySelector(".budget-chart");
      const body = document.querySelector(".jp-RenderedMarkdown p");
      return {shown: chart.getBoundingClientRect().width, natural: chart.naturalWidth,
              body: parseFloat(getComputedStyle(body).fontSize)};
    }""")
    chart_text = TEXT_PT * DPI / 72 * sizes["shown"] / sizes["natural"]
    assert chart_text >= sizes["body"], sizes

    for width, height in ((1366, 768), (1024, 768), (800, 625), (600, 625)):
        page.set_viewport_size({"width": width, "height": height})
        lines = summary.locator("pre").evaluate("e => e.getClientRects()[0].height")
        assert summary.locator("pre").evaluate(BROKEN_WORDS) == [], f"{width}×{height}"
        if width == 1366:
            assert lines > 30  # the summary does wrap there: the check above saw line boxes

    page.set_viewport_size({"width": 1366, "height": 625})
    page.screenshot(path=artifacts / "voila-requests-625.png")
    box = chart.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 625, box  # legend included
    assert page.evaluate("document.querySelector('#rendered_cells').scrollTop") == 0
