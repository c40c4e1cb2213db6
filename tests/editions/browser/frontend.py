"""What a user does with an ipywidgets 8 IntSlider (drag its handle, step it with the
arrow keys, or type into its readout, an editable ``div``, and press Enter) and how a
test knows the page has caught up."""

from __future__ import annotations

import os

import pytest

if not os.environ.get("CI"):  # in CI a missing Playwright is an import error: a failure
    pytest.importorskip("playwright", reason="Playwright is not installed: run `make test-browser`")

from conftest import ROOT, missing  # noqa: E402
from playwright.sync_api import Locator, Page, expect  # noqa: E402

# From npm (editions/book/package.json pins it; `make book` runs npm ci), never a CDN.
AXE = ROOT / "editions" / "book" / "node_modules" / "axe-core" / "axe.min.js"

# What the explorer's summary says at the article's two boundary budgets.
ONE_TURN = "1 of 2 turns kept, 235 bytes sent"
REJECTED = "BudgetError: the mandatory input needs 140 bytes"


def value(slider: Locator) -> int:
    """What the readout shows now."""
    return int(slider.locator(".widget-readout").inner_text())


def drag_to(page: Page, slider: Locator, target: int) -> None:
    """Press the handle, move the mouse along the track to where ``target`` lies, release."""
    handle = slider.locator(".noUi-handle")
    track = slider.locator(".noUi-base").bounding_box()
    low = float(handle.get_attribute("aria-valuemin"))
    high = float(handle.get_attribute("aria-valuemax"))
    start = handle.bounding_box()
    y = start["y"] + start["height"] / 2
    page.mouse.move(start["x"] + start["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(track["x"] + track["width"] * (target - low) / (high - low), y, steps=12)
    page.mouse.up()


def step_to(slider: Locator, target: int, limit: int = 40) -> None:
    """Arrow keys on the handle, one step a press, until the readout shows ``target``."""
    handle = slider.locator(".noUi-handle")
    for _ in range(limit):
        now = value(slider)
        if now == target:
            return
        handle.press("ArrowRight" if now < target else "ArrowLeft")
    raise AssertionError(f"{limit} key presses did not bring the slider to {target}")


def type_value(slider: Locator, target: int) -> None:
    """Click the readout, replace its text with ``target``, press Enter."""
    readout = slider.locator(".widget-readout")
    readout.click()
    readout.press("ControlOrMeta+A")
    readout.press_sequentially(str(target))
    readout.press("Enter")
    expect(readout).to_have_text(str(target))


def chart_redrawn(page: Page, chart: Locator, before: str) -> None:
    """The Image widget shows a new PNG (a new blob URL), decoded and laid out."""
    expect(chart).not_to_have_attribute("src", before)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=chart.element_handle())


def open_rendered(page, url: str) -> None:
    """Open ``url`` and wait until every saved widget view and explorer is rendered and
    repaired by the site's script (editions/book/site/ledgerlab.js)."""
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_function("""() =>
        document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')
            .length === document.querySelectorAll('.widget-subarea').length &&
        document.querySelectorAll('.ledgerlab-explorer:not(.ledgerlab-static)').length === 0""")


def serious_violations(page: Page, context: dict | None = None) -> list[str]:
    """axe-core over the page, or over ``context`` (axe's include/exclude): each critical or
    serious violation, as its rule and the element it is on."""
    if not AXE.is_file():
        missing(f"no axe-core at {AXE}: run `make book` (npm ci --prefix editions/book)")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "context => axe.run(context || document, {resultTypes: ['violations']})", context)
    return [f"{violation['id']} ({violation['impact']}) at {node['target']}"
            for violation in result["violations"] if violation["impact"] in ("critical", "serious")
            for node in violation["nodes"]]
