"""Each course notebook opened in JupyterLab, as `make lab` serves it: a clean first open.

A notebook whose metadata differs from what JupyterLab writes back (a kernelspec
display name that is not the kernel's) opens marked modified, and autosave rewrites
it; a news or update pop-up covers the notebook the learner opened.
"""

from pathlib import Path

import pytest
from frontend import expect

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOKS = sorted(p.name for p in (ROOT / "learner")
                   .glob("[0-9][0-9]-*.ipynb"))
SETTLE_MS = 5_000  # more than two autosave intervals (2 s in the make_lab fixture)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_opening_a_notebook_leaves_it_unmodified_and_shows_no_pop_up(page, make_lab, name):
    url, root = make_lab
    before = (root / name).read_bytes()
    assert before == (ROOT / "learner" / name).read_bytes(), f"make lab did not copy {name}"
    page.goto(f"{url}{name}?reset", timeout=90_000)  # ?reset: only this notebook is open
    panel = page.locator(".jp-NotebookPanel")
    expect(panel.locator(".jp-Cell").first).to_be_visible(timeout=90_000)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator[data-status=idle]")).to_be_visible(
        timeout=90_000)
    page.wait_for_timeout(SETTLE_MS)
    tab = page.locator(".lm-TabBar-tab.jp-mod-current", has_text=name)
    expect(tab).to_have_count(1)
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    expect(page.locator(".Toastify__toast")).to_have_count(0)  # news, updates, errors
    assert (root / name).read_bytes() == before, f"{name} was rewritten on open"
