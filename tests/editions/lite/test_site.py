"""The Lite site that `make lite` builds, in Chromium from 127.0.0.1, with every request to
another host refused and recorded: the app lists the course and opens a notebook, and the
Pyodide kernel starts from the site's own files and runs the library.

Pyodide's own numpy, pandas, matplotlib and tiktoken come from its CDN when a notebook asks
for them; here that request is refused, and the setup cell says so instead of failing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from conftest import ROOT, missing, serve_folder

sys.path.insert(0, str(ROOT / "editions" / "lite"))
import build  # noqa: E402  (editions/lite/build.py)

SITE = ROOT / "build" / "lite"
KERNEL_SECONDS = 240_000  # Pyodide starting in a worker on 2 shared cores, in milliseconds
TABLE = "\n".join(f"{budget} {retained} {dropped} {size}" for budget, retained, dropped, size in
                  ((140, 0, 2, 140), (235, 1, 1, 235), (308, 2, 0, 308), (408, 2, 0, 308)))


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "jupyter-lite.json").is_file():
        missing(f"no Lite site in {SITE}: run `make lite`")
    yield from serve_folder(SITE)


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
    expect(cells.first).to_contain_text('sys.platform == "emscripten"')
    expect(page.locator(".jp-Notebook")).to_contain_text("the journal lives in memory")
    page.screenshot(path=artifacts / "lite-notebook.png")
    assert outside == []


def test_the_kernel_starts_from_the_site_and_runs_ledgerlab(page, site_url, outside, artifacts):
    """The REPL runs the notebooks' setup cell, then the boundary table."""
    from playwright.sync_api import expect

    table = ("from ledgerlab.course.scenario import boundary_table\n"
             "for row in boundary_table(): print(*row.values())")
    page.goto(site_url + "repl/index.html?kernel=python&toolbar=1"
              f"&code={quote(build.SETUP)}&code={quote(table)}")
    output = page.locator(".jp-CodeConsole-content")
    expect(output).to_contain_text(TABLE, timeout=KERNEL_SECONDS)
    expect(output).to_contain_text("Pyodide's CDN is out of reach")
    page.screenshot(path=artifacts / "lite-kernel.png")
    # The only requests refused: Pyodide's own packages (numpy, pandas, ...) from its CDN.
    cdn = build.CDN.format(version=build.PYODIDE_VERSION)
    assert outside and all(url.startswith(cdn) for url in outside), outside
