"""A course notebook in JupyterLab: run its explorer cell, then use the slider it shows."""

import re

import frontend
from frontend import ONE_TURN, REJECTED
from playwright.sync_api import expect


def test_budget_slider_in_jupyterlab(page, lab_notebook_url, artifacts):
    try:
        drive_the_slider(page, lab_notebook_url, artifacts)
    except Exception as error:  # say which dialog got in the way, if one did
        dialog = page.locator(".jp-Dialog")
        if dialog.count():
            raise AssertionError(f"a JupyterLab dialog was open: {dialog.first.inner_text()!r}") \
                from error
        raise


def drive_the_slider(page, lab_notebook_url, artifacts):
    page.goto(lab_notebook_url, timeout=90_000)
    kernel_idle = page.locator(".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status=idle]")
    expect(kernel_idle).to_be_visible(timeout=90_000)
    cells = page.locator(".jp-NotebookPanel .jp-CodeCell")
    explorer = cells.filter(has_text="BudgetExplorer(budget=")

    run_button = page.locator(
        '.jp-NotebookPanel-toolbar [data-command="notebook:run-cell-and-select-next"]')

    # Run the imports, then the explorer's cell, as a learner does: click the cell, then the
    # toolbar's run button (a click does not depend on where the keyboard focus landed).
    for count, cell in enumerate((cells.first, explorer), start=1):
        run_cell(cell, run_button)
        expect(cell.locator(".jp-InputPrompt")).to_have_text(f"[{count}]:", timeout=60_000)
    budget = explorer.locator(".jp-OutputArea-output .widget-slider")
    summary = explorer.locator(".jp-OutputArea-output .ledgerlab-summary")
    chart = explorer.locator(".jp-OutputArea-output .ledgerlab-chart")
    expect(budget).to_be_visible()
    expect(summary).to_contain_text(ONE_TURN)  # the notebook starts the explorer at 235

    def settle(before: str) -> None:
        """The kernel has finished the callback (summary, then chart) and the chart is shown."""
        expect(kernel_idle).to_be_visible()
        frontend.chart_redrawn(page, chart, before)

    # The End key takes the handle to the top of its range: everything fits.
    before = chart.get_attribute("src")
    budget.locator(".noUi-handle").press("End")
    expect(summary).to_contain_text("2 of 2 turns kept, 308 bytes sent")
    settle(before)

    # Then type the article's two boundary budgets into the readout.
    for target, shows in ((235, ONE_TURN), (139, REJECTED)):
        before = chart.get_attribute("src")
        frontend.type_value(budget, target)
        expect(summary).to_contain_text(f"budget {target} bytes, gson encoder: {shows}")
        settle(before)
        explorer.evaluate("cell => cell.scrollIntoView({block: 'start'})")
        page.screenshot(path=artifacts / f"lab-{target}.png")
        # Named as ipywidgets does not: the handle by its label, the chart by its
        # description (the script each explorer carries, ledgerlab.course.widgets).
        expect(budget.locator(".noUi-handle")).to_have_attribute("aria-label", "budget")
        caption = explorer.locator(".jp-OutputArea-output .ledgerlab-chart-description")
        expect(chart).to_have_attribute("alt", caption.inner_text().strip())

    # axe over the cells' outputs, what the course puts on the page. Not over JupyterLab's
    # own chrome, where axe-core 4 finds, in JupyterLab 4.6 itself: aria-allowed-attr
    # (critical; toolbar jp-button elements, the file browser's Upload Files and Toggle File
    # Filter, the debugger's button and Voila's Render with Voila, carry aria-pressed, which
    # an element with no role may not have), aria-input-field-name (serious; each cell's
    # CodeMirror editor, role=textbox, has no accessible name) and aria-required-children
    # (critical; the notebook's windowed list, role=feed, holds cells that are not
    # role=article). None of those is in this repository's code.
    assert frontend.serious_violations(page, {"include": [[".jp-NotebookPanel .jp-OutputArea"]]}) \
        == []


def run_cell(cell, run_button, attempts: int = 3) -> None:
    """Click the cell, then run it; click again if the cell was not queued.

    On a loaded machine the first click on the toolbar can land before JupyterLab has made the
    notebook its current widget, and a run command with no current notebook does nothing: the
    prompt stays "[ ]:". A click that queued the cell turns the prompt to "[*]:" or a number,
    so clicking again never runs a cell twice.
    """
    prompt = cell.locator(".jp-InputPrompt")
    for attempt in range(1, attempts + 1):
        cell.locator(".jp-InputArea-editor").click()
        expect(cell).to_have_class(re.compile(r"\bjp-mod-active\b"))
        run_button.click()
        try:
            expect(prompt).not_to_have_text("[ ]:", timeout=15_000)
            return
        except AssertionError:
            if attempt == attempts:
                raise
