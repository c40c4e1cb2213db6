"""The budget explorer page that `make present` serves, driven in Chromium as a teacher would."""

import re

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
