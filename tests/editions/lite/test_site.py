"""The Lite site that `make lite` builds, in Chromium from 127.0.0.1, with every request to
another host refused and recorded: the app lists the course and opens a notebook, and the
Pyodide kernel starts from the site's own files and runs the library.

Pyodide's own numpy, pandas, matplotlib and tiktoken come from its CDN when a notebook asks
for them; here that request is refused, and the setup cell's output says which did not load.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import nbformat
import pytest
from conftest import ROOT, missing, serve_folder

sys.path.insert(0, str(ROOT / "editions" / "lite"))
import build  # noqa: E402  (editions/lite/build.py)

SITE = ROOT / "build" / "lite"
KERNEL_SECONDS = 240_000  # Pyodide starting in a worker on 2 shared cores, in milliseconds
TABLE = "\n".join(f"{budget} {retained} {dropped} {size}" for budget, retained, dropped, size in
                  ((140, 0, 2, 140), (235, 1, 1, 235), (308, 2, 0, 308), (408, 2, 0, 308)))


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "jupyter-lite.json").is_file():
        missing(f"no Lite site in {SITE}: run `make lite`")
    return SITE


@pytest.fixture(scope="module")
def site_url(site) -> Iterator[str]:
    yield from serve_folder(site)


def course() -> list[str]:
    return [notebook.name for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))]


def test_the_app_lists_the_course(page, site_url, outside, artifacts):
    from playwright.sync_api import expect

    page.goto(site_url + "lab/index.html")
    listing = page.locator(".jp-DirListing-content")
    for name in [*course(), "TEACHING.md"]:
        expect(listing.get_by_text(name, exact=True)).to_be_visible()
    page.screenshot(path=artifacts / "lite-files.png")
    assert outside == []


def test_a_notebook_opens_with_its_setup_cell_and_the_in_memory_note(page, site_url, outside,
                                                                        artifacts):
    from playwright.sync_api import expect

    (ledger,) = [name for name in course() if name.startswith("05-")]
    page.goto(site_url + f"lab/index.html?path={ledger}")
    cells = page.locator(".jp-Notebook .jp-Cell")
    # It opens on its title, then the in-memory note, then the setup cell.
    expect(cells.nth(0)).to_contain_text("05 · The ledger")
    expect(cells.nth(1)).to_contain_text("the journal lives in memory")
    expect(cells.nth(2)).to_contain_text('sys.platform == "emscripten"')
    page.screenshot(path=artifacts / "lite-notebook.png")
    assert outside == []


def test_every_notebook_of_the_site_opens_on_its_title_and_runs_the_setup_cell_first(site):
    """What the REPL test below runs is what each notebook of the site runs first, and it
    comes below the title: a notebook opens on its title, not on the setup code."""
    notebooks = sorted((site / "files").glob("*.ipynb"))
    assert [notebook.name for notebook in notebooks] == course()
    for notebook in notebooks:
        cells = nbformat.read(notebook, as_version=4).cells
        committed = nbformat.read(ROOT / "learner" / notebook.name, as_version=4).cells
        assert (cells[0].cell_type, cells[0].source) == ("markdown", committed[0].source)
        assert cells[0].source.startswith("# "), notebook.name
        code = [cell for cell in cells if cell.cell_type == "code"]
        assert code[0].source == build.SETUP, notebook.name
        noted = notebook.name[:2] in build.IN_MEMORY
        assert [cell.get("id") for cell in cells[1:3 if noted else 2]] == (
            ["lite-in-memory", "lite-setup"] if noted else ["lite-setup"]), notebook.name


def test_no_notebook_of_the_site_shows_an_output(site):
    """The site's notebooks are learner/'s: no prediction's answer shows before it is run."""
    for notebook in sorted((site / "files").glob("*.ipynb")):
        nb = nbformat.read(notebook, as_version=4)
        shown = [number for number, cell in enumerate(nb.cells, start=1)
                 if cell.cell_type == "code" and (cell.outputs or cell.execution_count)]
        assert not shown, f"{notebook.name} shows outputs in cells {shown}"
        assert "widgets" not in nb.metadata, notebook.name


def console_cells(page, site_url: str, *sources: str):
    """The REPL, running ``sources`` as its cells in order: those cells (source and output)."""
    page.goto(site_url + "repl/index.html?kernel=python&toolbar=1"
              + "".join(f"&code={quote(source)}" for source in sources))
    return page.locator(".jp-CodeConsole-content .jp-CodeCell")


def output(cell):
    """What a cell printed: its output area only, never its source (which quotes messages)."""
    return cell.locator(".jp-OutputArea-output")


def test_the_kernel_starts_from_the_site_and_runs_ledgerlab(page, site_url, outside, artifacts):
    """The REPL runs the notebooks' setup cell, offline here, then the boundary table: the
    setup cell's output says which of Pyodide's packages did not load, and why."""
    from playwright.sync_api import expect

    table = ("from ledgerlab.course.scenario import boundary_table\n"
             "for row in boundary_table(): print(*row.values())")
    cells = console_cells(page, site_url, build.SETUP, table)
    expect(output(cells.nth(1))).to_have_text(TABLE, timeout=KERNEL_SECONDS)
    expect(output(cells.first)).to_have_text(
        "Pyodide's CDN is out of reach (offline, or cdn.jsdelivr.net is blocked): numpy, "
        "pandas, matplotlib, tiktoken did not load. ledgerlab works, but the cells that use "
        "pandas, charts or token counts will fail.")
    page.screenshot(path=artifacts / "lite-kernel.png")
    # The only requests refused: Pyodide's own packages (numpy, pandas, ...) from its CDN.
    cdn = build.CDN.format(version=build.PYODIDE_VERSION)
    assert outside and all(url.startswith(cdn) for url in outside), outside


def test_the_setup_cell_prints_nothing_when_its_packages_load(page, site_url, outside):
    """The same cell, checking packages that this site serves itself (no CDN here to serve
    numpy and the others): nothing in its output."""
    from playwright.sync_api import expect

    cells = console_cells(page, site_url, build.setup_cell(("micropip", "jedi")))
    # The prompt shows the cell's number once the kernel has replied, after any output.
    expect(cells.first.locator(".jp-InputPrompt")).to_have_text("[1]:",
                                                                timeout=KERNEL_SECONDS)
    expect(output(cells.first)).to_have_count(0)
    assert outside == []
