"""The course site that `make book` builds, opened in Chromium as a reader would, with
every request to another host refused and recorded; and the build's own pieces.

`make test-browser` builds the site first. The pages are served from build/book/html
by a small HTTP server on loopback, in this process.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from collections.abc import Iterator

import pytest
from conftest import ROOT, missing, serve_folder
from docutils import nodes
from docutils.utils import new_document
from frontend import expect, open_rendered  # playwright, or a skip outside CI when it is missing

sys.path.insert(0, str(ROOT / "editions" / "book"))
import build  # noqa: E402  (editions/book/build.py)
import figure_alt  # noqa: E402  (editions/book/figure_alt.py)

SITE = ROOT / "build" / "book" / "html"
AXE = build.NODE_MODULES / "axe-core" / "axe.min.js"  # npm ci (editions/book/package.json pins it)
WIDTHS = (1280, 390)  # desktop and phone
READABLE_CHART = 560  # px: narrower, the chart's labels are too small to read
TINY_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAFElEQVR4nGNkKNrEAANMDEgANwcA"
            "OVoBLO7xPi0AAAAASUVORK5CYII=")
# The explorer's summary names the budget it was computed for, whatever the build left it at.
SUMMARY = re.compile(r"budget (\d+) bytes")


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        missing(f"no course site in {SITE}: run `make book` (make test-browser does)")
    yield from serve_folder(SITE)


def course_pages() -> list[str]:
    return [f"{notebook.stem}.html" for notebook in build.course_notebooks()]


def boundary_page() -> str:
    pages = [name for name in course_pages() if name.endswith("-the-boundary-table.html")]
    assert len(pages) == 1, pages
    return pages[0]


def site_pages() -> list[str]:
    return sorted(p.name for p in SITE.glob("*.html"))


def watch_console(page) -> list[str]:
    """Console errors, uncaught exceptions, failed requests and error responses, as text."""
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda error: problems.append(f"exception: {error}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    return problems


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_passes_axe_and_logs_no_error(page, site_url, outside, artifacts, width):
    """axe-core (served from node_modules, never a CDN) over every page of the site: no
    critical or serious violation; and nothing on the console, no failed request."""
    page.set_viewport_size({"width": width, "height": 900})
    problems = watch_console(page)
    counts, serious = {}, []
    for name in site_pages():
        open_rendered(page, site_url + name)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        for violation in result["violations"]:
            counts[violation["impact"]] = counts.get(violation["impact"], 0) + \
                len(violation["nodes"])
            if violation["impact"] in ("critical", "serious"):
                serious += [f"{name}: {violation['id']} at {node['target']}"
                            for node in violation["nodes"]]
    (artifacts / f"axe-{width}.json").write_text(json.dumps(counts))  # nodes by impact
    assert serious == [], "\n".join(serious)
    assert problems == [], "\n".join(problems)
    assert outside == []


@pytest.mark.parametrize("width", WIDTHS)
def test_explorers_are_static_named_and_readable(page, site_url, artifacts, width):
    """On the site nothing recomputes: every explorer says so and its controls are off;
    slider handles and charts have names; charts keep a readable size (scrolling sideways
    on a phone), the chart's description is at least 14 px, and no label, summary line or
    text output (a quiz's questions) is cut."""
    page.set_viewport_size({"width": width, "height": 900})
    explorers = 0
    for name in course_pages():
        open_rendered(page, site_url + name)
        for explorer in page.locator(".ledgerlab-explorer").all():
            explorers += 1
            expect(explorer.locator(".ledgerlab-static-note")).to_contain_text("Static copy")
            for handle in explorer.locator(".noUi-handle").all():
                assert handle.get_attribute("aria-label"), f"{name}: an unnamed slider handle"
            for readout in explorer.locator(".widget-readout").all():
                expect(readout).to_have_attribute("contenteditable", "false")
            for control in explorer.locator("button, input").all():
                expect(control).to_be_disabled()
            chart = explorer.locator("img.ledgerlab-chart")
            assert chart.get_attribute("alt"), f"{name}: a chart without alt text"
            assert chart.bounding_box()["width"] >= READABLE_CHART, name
            cut = explorer.evaluate("""box => [...box.querySelectorAll(
                    '.widget-label, .ledgerlab-summary pre, .ledgerlab-chart-description')]
                .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
            assert cut == [], f"{name} at {width} px cuts {cut}"
            caption = explorer.locator(".ledgerlab-chart-description .widget-html-content")
            size = caption.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
            assert size >= 14, f"{name}: the chart's description is {size} px"
        # A quiz's lines (and every text output) wrap at the edge: none is cut off.
        cut = page.evaluate("""() => [...document.querySelectorAll(
                'div.cell_output .output.text_plain pre, div.cell_output .output.stream pre')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
        assert cut == [], f"{name} at {width} px cuts the text output {cut}"
        if name == boundary_page():
            page.screenshot(path=artifacts / f"book-explorer-{width}.png", full_page=True)
    assert explorers >= 4  # 02, 03 (two), 04 and 07 at the time of writing


def test_boundary_table_page_shows_slider_summary_and_chart(page, site_url, outside, artifacts):
    page.goto(site_url + boundary_page())
    slider = page.locator(".widget-slider").first
    expect(slider).to_be_visible()  # rendered by the widget manager from the saved state
    summary = page.locator(".ledgerlab-summary").first
    expect(summary).to_contain_text("bytes")
    shown = SUMMARY.search(summary.inner_text())
    assert shown, summary.inner_text()
    assert slider.locator(".widget-readout").inner_text() == shown.group(1)
    chart = page.locator("img.ledgerlab-chart").first
    expect(chart).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=chart.element_handle())
    # The page says that it shows build-time state and where to recompute.
    expect(page.locator(".bd-header-announcement")).to_contain_text("make lab")
    page.screenshot(path=artifacts / "book-boundary-table.png", full_page=True)
    assert outside == []


def test_figures_carry_their_text_descriptions(page, site_url, outside, artifacts):
    page.goto(site_url + boundary_page())
    # The notebook's figures, not widgets' images: a Chart is an HTML figure with a caption.
    figures = page.locator(".cell_output img.ledgerlab-figure-image, .cell_output > img")
    # (A figure that answers a prediction is folded, hidden until clicked: the rest show.)
    expect(figures.filter(visible=True).first).to_be_visible()
    page.screenshot(path=artifacts / "book-figures.png", full_page=True)
    for alt in [figures.nth(i).get_attribute("alt") for i in range(figures.count())]:
        assert alt and alt.strip(), "a figure without alt text"
        assert not alt.startswith("<Figure size"), f"a default repr, not a description: {alt}"
        assert not alt.endswith(".png"), f"only the file name: {alt}"
    captions = page.locator(".cell_output figure.ledgerlab-figure figcaption")
    # The description is on the page, not only in alt.
    expect(captions.filter(visible=True).first).to_be_visible()
    assert captions.count() == page.locator(".cell_output img.ledgerlab-figure-image").count()
    assert outside == []


def test_navigation_follows_the_course_order_and_search_finds_pages(page, site_url, outside):
    page.goto(site_url)  # index.html sends the reader to the first notebook
    expect(page).to_have_url(re.compile(re.escape(course_pages()[0]) + "$"))
    links = page.locator("nav.bd-docs-nav a.reference.internal")
    expect(links).to_have_count(len(course_pages()))  # once the redirect's page has loaded
    assert links.evaluate_all(  # resolved: the current page links to itself as "#"
        "links => links.map(a => new URL(a.href).pathname.split('/').pop())") == course_pages()

    page.goto(site_url + "search.html?q=boundary")
    expect(page.locator("#search-results a").first).to_be_visible()
    hrefs = page.locator("#search-results a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")
    assert any(boundary_page() in href for href in hrefs), hrefs
    assert outside == []


def test_no_page_asks_another_host_for_anything(page, site_url, outside):
    for name in course_pages() + ["search.html", "genindex.html"]:
        page.goto(site_url + name)
        page.wait_for_load_state("networkidle")
    assert outside == []


def test_no_page_links_a_script_or_style_from_another_host():
    remote = re.compile(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(?:https?:)?//', re.I)
    for html in SITE.rglob("*.html"):
        assert not remote.search(html.read_text(encoding="utf-8")), html.name


# --- The build's pieces, without a browser ---------------------------------------------

def test_widget_state_is_saved_in_the_built_copy_only():
    built = SITE.parent / "src"
    if not built.is_dir():
        missing(f"no executed copies in {built}: run `make book` (make test-browser does)")
    with_state = 0
    for notebook in build.course_notebooks():
        assert "widgets" not in json.loads(notebook.read_text())["metadata"], notebook.name
        with_state += "widgets" in json.loads((built / notebook.name).read_text())["metadata"]
    assert with_state >= 2  # the explorers of the bad-slice and boundary-table notebooks


def committed(tmp_path, views=("m1",), saved=("m1",), execution_count=1):
    """A notebook as `make notebooks` leaves it (one run code cell showing ``views``), and
    the widget state saved beside it for ``saved``: (the notebook, the states folder)."""
    import nbformat

    outputs = [nbformat.v4.new_output("display_data", data={
        "text/plain": "explorer", build.WIDGET_VIEW: {"model_id": view, "version_major": 2,
                                                      "version_minor": 0}}) for view in views]
    cell = nbformat.v4.new_code_cell("1 / 0", execution_count=execution_count, outputs=outputs)
    notebook = tmp_path / "00-home.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), notebook)
    states = tmp_path / "widget-state"
    states.mkdir()
    models = {model: {"model_name": "IntSliderModel", "state": {"disabled": False, "value": 3}}
              for model in saved}
    (states / "00-home.json").write_text(json.dumps({build.WIDGET_STATE: {
        "state": models, "version_major": 2, "version_minor": 0}}))
    return notebook, states


def test_a_complete_committed_run_is_copied_with_its_widget_state_not_executed(tmp_path):
    notebook, states = committed(tmp_path)
    copy = tmp_path / "copy.ipynb"
    # Its cell raises: executed, the copy would fail (test_a_failing_cell_stops_the_build...).
    assert build.site_copy(notebook, copy, states) == "copied as committed"
    saved = json.loads(copy.read_text())
    assert saved["cells"][0]["outputs"] == json.loads(notebook.read_text())["cells"][0]["outputs"]
    assert saved["metadata"]["widgets"][build.WIDGET_STATE]["state"]["m1"]["state"] == {
        "disabled": True, "value": 3}
    assert "widgets" not in json.loads(notebook.read_text())["metadata"]


@pytest.mark.parametrize("case", ["a widget without saved state", "no saved state",
                                  "a code cell never run"])
def test_an_incomplete_committed_run_is_not_used(tmp_path, case):
    notebook, states = committed(tmp_path, views=("m1", "m2") if "without" in case else ("m1",),
                                 execution_count=None if "never run" in case else 1)
    if case == "no saved state":
        (states / "00-home.json").unlink()
    assert build.committed_run(notebook, states) is None


def test_the_course_order_comes_from_the_folder(tmp_path):
    for name in ("10-ten.ipynb", "02-two.ipynb", "00-home.ipynb", "notes.ipynb", "3-x.ipynb"):
        (tmp_path / name).write_text("{}")
    found = build.course_notebooks(tmp_path)
    assert [p.name for p in found] == ["00-home.ipynb", "02-two.ipynb", "10-ten.ipynb"]
    assert build.toc(found) == ("format: jb-book\nroot: 00-home\nchapters:\n"
                                "- file: 02-two\n- file: 10-ten\n")
    with pytest.raises(build.BookError):
        build.course_notebooks(tmp_path / "nothing")


def test_a_figure_description_becomes_the_alt_text_of_its_image():
    described, default = b"\x89PNG one", b"\x89PNG two"
    notebook = {"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "display_data", "data": {
            "image/png": base64.b64encode(described).decode(),
            "text/plain": ["Bars: 140 bytes mandatory,\n", "308 with both turns."]}},
        {"output_type": "execute_result", "data": {
            "image/png": base64.b64encode(default).decode(),
            "text/plain": "<Figure size 640x480 with 1 Axes>"}}]}]}
    found = figure_alt.descriptions(notebook)
    assert found == {hashlib.sha256(described).hexdigest():
                     "Bars: 140 bytes mandatory,\n308 with both turns."}

    doctree = new_document("page")
    for data in (described, default):
        doctree += nodes.image(uri=f"_images/{hashlib.sha256(data).hexdigest()}.png")
    assert figure_alt.set_alt(doctree, found) == 1
    images = list(doctree.findall(nodes.image))
    assert images[0]["alt"] == "Bars: 140 bytes mandatory,\n308 with both turns."
    assert "alt" not in images[1]


def test_the_widget_scripts_come_with_their_fonts_and_the_site_files(tmp_path):
    build.copy_widget_scripts(tmp_path)
    copied = {p.name for p in (tmp_path / "widgets").iterdir()}
    assert {"require.js", "widget-paths.js", "embed-amd.js"} <= copied
    assert any(name.endswith(".woff2") for name in copied)
    assert {p.name for p in (tmp_path / "site").iterdir()} == {
        "ledgerlab.js", "ledgerlab.css", "favicon.svg"}


def test_saved_controls_are_disabled_and_other_models_untouched():
    state = {"slider": {"state": {"disabled": False, "value": 235}},
             "image": {"state": {"format": "png"}}}
    build.disable_controls(state)
    assert state == {"slider": {"state": {"disabled": True, "value": 235}},
                     "image": {"state": {"format": "png"}}}


def test_a_built_page_gives_a_described_figure_its_alt_text(tmp_path):
    """The whole build on a one-notebook course whose figure carries a description."""
    import nbformat

    # A 4x4 PNG shown with a description, as the course's chart outputs are.
    described = nbformat.v4.new_code_cell(
        "from IPython.display import display\n"
        f"display({{'image/png': '{TINY_PNG}', 'text/plain': "
        "'Turns retained: 0 at 140 bytes, 1 at 235, 2 at 308.'}, raw=True)")
    course = tmp_path / "course"
    course.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Home"),
                                                   described]), course / "00-home.ipynb")
    assert build.main(["--out", str(tmp_path / "out"), "--notebooks", str(course)]) == 0
    page = (tmp_path / "out" / "html" / "00-home.html").read_text(encoding="utf-8")
    assert re.search(r'<img alt="Turns retained: 0 at 140 bytes, 1 at 235, 2 at 308\." ', page)


def test_bad_input_is_refused_before_anything_is_written(tmp_path, capsys):
    course = tmp_path / "course"
    course.mkdir()
    out = tmp_path / "out"
    assert build.main(["--out", str(out), "--notebooks", str(course)]) == 1
    assert "no NN-*.ipynb notebook" in capsys.readouterr().err
    assert not out.exists()

    (course / "00-home.ipynb").write_text("{}")
    (out / "html").mkdir(parents=True)
    (out / "keep.txt").write_text("not the book's")
    assert build.main(["--out", str(out), "--notebooks", str(course)]) == 1
    assert "did not write" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["html", "keep.txt"]


def test_a_failing_cell_stops_the_build_with_the_notebook_named(tmp_path, capsys):
    import nbformat

    course = tmp_path / "course"
    course.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")]),
                   course / "00-broken.ipynb")
    assert build.main(["--out", str(tmp_path / "out"), "--notebooks", str(course)]) == 1
    assert "00-broken.ipynb: a cell raised ZeroDivisionError" in capsys.readouterr().err
    assert not (tmp_path / "out" / "html").exists()


def test_links_to_a_heading_use_the_anchor_the_site_gives_it():
    text = ("[glossary](00-contents.ipynb#Glossary), [torn](05-the-ledger.ipynb#A-torn-tail), "
            "[here](#Glossary), [page](02-bad-slice-vs-whole-turn.ipynb)")
    assert build.site_anchors(text) == (
        "[glossary](00-contents.ipynb#glossary), [torn](05-the-ledger.ipynb#a-torn-tail), "
        "[here](#glossary), [page](02-bad-slice-vs-whole-turn.ipynb)")
