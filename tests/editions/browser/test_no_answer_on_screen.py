"""Ask, then tell, on the screen a learner sees (issue 48): every question's answer is nowhere
on the rendered page above the question, nor within one screen below it before anything runs.

Three renderings, each in Chromium:

- **JupyterLab**: one server over a copy of every ``learner/NN-*.ipynb``, one browser page; each
  copy is opened from the file browser (a double click, as a learner does), read, and closed.
  JupyterLab windows a long notebook (by default it skips the layout of cells off the screen,
  and its other modes leave them out of the page): this server's user settings set
  ``windowingMode`` to ``none``, so every cell is laid out at its real height, and the test
  waits until every markdown cell is rendered and every code cell's editor shows its whole
  source. One screen is the height of the notebook's scrolling area.
- **The site** (``make book``, built from ``notebooks/`` with their outputs): each page as
  served, with its saved widgets rendered; one screen is the window's height.
- **The slides** (``editions/slides/build.py``): each slide a screen.

Each page is read as words in document order, with where each is drawn (``words.js``). For
every question of tests/leaks.py (predictions, quiz questions, questions in words, exercises),
what a learner has read when they answer is:

- above it: all of ``00-contents`` as rendered (its series table, its glossary), and on the
  question's own page everything before the question: the learning goals, earlier cells and,
  on the site, their outputs and explorers, the navigation (the contents table, the page's own
  headings); a fold above counts open (its own question was answered first);
- below it: what is drawn within one screen below the cell the learner answers in, with folds
  closed (their summary only); on a slide, the rest of the question's slide.

In that text the test looks for the answer, as the text-level test does (tests/leaks.py: its
number of 10 or more, the phrases of ``REVEALS``, a model answer's six-word runs). A hit
fails unless ``REVIEWED`` or ``REVIEWED_IN_A_BROWSER`` (by the words matched) or
``REVIEWED_ON_SCREEN`` (by the cell they are in) lists it; an entry no rendering matches any
more fails too. docs/leaks.md says why each entry is harmless, and how many leaks the test
found on the main before issue 48.
"""

from __future__ import annotations

import bisect
import importlib.util
import json
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import BIN, ENCRYPTED, ROOT, free_port, missing, serve, serve_folder
from frontend import expect, open_rendered
from leaks import (CONTENTS, NOTEBOOKS, REVIEWED, REVIEWED_IN_A_BROWSER, REVIEWED_ON_SCREEN,
                   answer_patterns, asked_on_screen, cells, course_notebooks, item,
                   model_answer_runs, source, words)

WORDS = (Path(__file__).parent / "words.js").read_text(encoding="utf-8")
# A laptop's screen: JupyterLab's notebook area is 679 px of it, about 30 lines of prose.
VIEWPORT = {"width": 1280, "height": 800}
SITE = ROOT / "build" / "book" / "html"
NAVIGATION, OUTSIDE_CELLS = -2, -1  # words.js's places on the site
PREDICT = re.compile(r"^\W*Predict\b")

_spec = importlib.util.spec_from_file_location("slides_build_leaks",
                                               ROOT / "editions" / "slides" / "build.py")
slides = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = slides  # dataclasses look their module up there
_spec.loader.exec_module(slides)


@dataclass(frozen=True)
class Word:
    text: str
    top: float
    bottom: float
    block: int
    fold: bool      # in a closed fold's body: hidden until the learner opens it
    cell: int       # the notebook cell it comes from; -1: none (the site's navigation)
    screen: int     # on a deck, the slide it is on; else 0


@dataclass
class Page:
    """One rendering of one notebook: its words in document order, a screen's height, where
    each cell ends (JupyterLab's cells, by their boxes) and whether it is a deck of slides."""
    words: list[Word]
    screen: float
    ends: dict[int, float] = field(default_factory=dict)
    deck: bool = False


NOTHING = Page([], 0)  # a deck has no 00-contents


def text_of(words: list[Word]) -> tuple[str, list[int]]:
    """The words as one text (a line break between blocks, typographic quotes made plain) and
    where each word starts in it."""
    parts, starts, at, block = [], [], 0, None
    for word in words:
        if block is not None and word.block != block:
            parts.append("\n")
            at += 1
        starts.append(at)
        parts.append(word.text)
        at += len(word.text)
        block = word.block
    text = "".join(parts).translate(str.maketrans("’‘“”", "''\"\""))
    return text, starts


# --- Reading the three renderings ---------------------------------------------------------

def learner_settings(home: Path) -> None:
    """This server's user settings: no news or update pop-up; every cell laid out."""
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab"
    for plugin, values in (("apputils-extension/notification",
                            {"fetchNews": "false", "checkForUpdates": False}),
                           ("notebook-extension/tracker", {"windowingMode": "none"})):
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def read_lab(browser, home: Path) -> dict[str, Page]:
    """Every learner copy opened in one JupyterLab, read as rendered, by notebook number."""
    root = home / "root"
    root.mkdir()
    for notebook in course_notebooks():
        shutil.copy(notebook, root)
    learner_settings(home)
    port = free_port()
    server = serve([str(BIN / "jupyter"), "lab", "--no-browser", "--allow-root",
                    "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
                    "--ServerApp.port_retries=0", "--IdentityProvider.token=",
                    f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
                    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", ENCRYPTED],
                   port, "/lab?reset", home, cwd=root)
    pages = {}
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    try:
        page = context.new_page()
        page.goto(next(server), timeout=90_000)
        for notebook in course_notebooks():
            pages[notebook.name[:2]] = read_notebook(page, notebook)
    finally:
        context.close()
        server.close()  # stops JupyterLab and its kernels
    return pages


def read_notebook(page, notebook: Path) -> Page:
    """Open ``notebook`` from the file browser, wait until every cell is rendered, read it,
    close it."""
    # Each cell as it must be drawn: a code cell's editor shows its whole source, a markdown
    # cell is rendered, with text if it has any (marked renders after the cell is marked so).
    expected = [[cell["cell_type"], " ".join(source(cell).split())]
                for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]]
    # The file browser names each item in its title: "Name: 04-the-boundary-table.ipynb\n...".
    page.locator(f'.jp-DirListing-item[title^="Name: {notebook.name}\\a "]').dblclick()
    expect(page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current")).to_have_text(
        re.compile(re.escape(notebook.name)), timeout=60_000)
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    expect(page.locator(f"{panel} .jp-Cell")).to_have_count(len(expected), timeout=60_000)
    page.wait_for_function("""([panel, expected]) => {
        const cells = [...document.querySelectorAll(`${panel} .jp-Cell`)];
        const drawn = (cell, [kind, text]) => kind === "code"
            ? cell.querySelector(".cm-content")?.innerText.split(/\\s+/).join(" ").trim() === text
            : cell.classList.contains("jp-mod-rendered") && (!text ||
              cell.querySelector(".jp-RenderedMarkdown")?.innerText.trim().length > 0);
        return document.fonts.status === "loaded" &&
            [...document.querySelectorAll(`${panel} img`)].every(img => img.complete) &&
            cells.length === expected.length && cells.every((cell, i) => drawn(cell, expected[i]));
    }""", arg=[panel, expected], timeout=60_000)
    read = page.evaluate(WORDS, {"roots": f"{panel} .jp-Cell",
                                 "scroller": f"{panel} .jp-WindowedPanel-outer"})
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current .lm-TabBar-tabCloseIcon").click()
    expect(page.locator(".jp-NotebookPanel")).to_have_count(0)  # closed, not asking to save
    return Page([Word(*row[:5], cell=at, screen=0) for at, root in enumerate(read["roots"])
                 for row in root["words"]], read["screen"],
                ends={at: root["bottom"] for at, root in enumerate(read["roots"])})


def read_site(browser, url: str) -> dict[str, Page]:
    pages = {}
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    try:
        page = context.new_page()
        for notebook in course_notebooks("notebooks"):
            open_rendered(page, f"{url}{notebook.stem}.html")
            page.wait_for_function("""() => document.fonts.status === "loaded" &&
                [...document.images].every(img => img.complete)""")
            read = page.evaluate(WORDS, {"roots": "body", "scroller": None, "site": True})
            number = notebook.name[:2]
            pages[number] = Page(site_cells(number, read["roots"][0]["words"]), read["screen"])
    finally:
        context.close()
    return pages


def site_cells(number: str, rows: list) -> list[Word]:
    """The site's words, each given the notebook cell it comes from: a code cell by its place
    among the page's code cells, a markdown cell as the one between the code cells around it
    whose words the block's first words are (MyST-NB writes no mark between markdown cells)."""
    notebook = cells("notebooks", number)
    code = [i for i, cell in enumerate(notebook) if cell["cell_type"] == "code"]
    found, seen_code, current, block_words = [], -1, 0, {}
    for text, top, bottom, block, fold, place in rows:
        block_words.setdefault(block, []).append(text)
    for text, top, bottom, block, fold, place in rows:
        if place == NAVIGATION:
            cell = -1
        elif place != OUTSIDE_CELLS:
            seen_code = place
            cell = current = code[place]
        else:
            low = code[seen_code] + 1 if seen_code >= 0 else 0
            high = code[seen_code + 1] if seen_code + 1 < len(code) else len(notebook)
            current = max(current, low)
            start = words("".join(block_words[block]))[:4]
            for candidate in range(current, high):
                said = words(source(notebook[candidate]))
                if any(said[i:i + len(start)] == start for i in range(len(said))):
                    current = candidate
                    break
            cell = current
        found.append(Word(text, top, bottom, block, fold, cell, 0))
    return found


def read_slides(browser, folder: Path) -> dict[str, Page]:
    if not all((slides.REVEAL / name).is_file() for name in slides.REVEAL_FILES):
        missing("reveal.js is not installed: make slides installs it from npm")
    pages = {}
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    try:
        page = context.new_page()
        for deck in slides.build(folder):
            number = deck.name[:2]
            ids = {cell["id"]: at for at, cell in enumerate(cells("notebooks", number))}
            page.goto(deck.as_uri())
            page.wait_for_function("() => window.Reveal && Reveal.isReady()")
            read = page.evaluate(WORDS, {"roots": "slides", "scroller": None})
            pages[number] = Page([Word(*row[:5], cell=deck_cell(row[5], ids), screen=at)
                                  for at, root in enumerate(read["roots"])
                                  for row in root["words"]], read["screen"], deck=True)
    finally:
        context.close()
    return pages


def deck_cell(cell_id: str | None, ids: dict[str, int]) -> int:
    """The notebook cell a slide's element comes from: its id, a part of it (``id-2``), or the
    answer shown after a prediction (``answer-id``, its check cell's)."""
    if cell_id is None:
        return -1
    cell_id = cell_id.removeprefix("answer-")
    return ids.get(cell_id, ids.get(cell_id.rsplit("-", 1)[0], -1))


@pytest.fixture(scope="module")
def rendered(browser, tmp_path_factory) -> Iterator[dict[str, dict[str, Page]]]:
    """Every notebook of the course as each rendering draws it: {rendering: {number: page}}."""
    if not (SITE / "index.html").is_file():
        missing(f"no course site in {SITE}: run `make book` (make test-browser does)")
    site = serve_folder(SITE)
    try:
        found = {"jupyterlab": read_lab(browser, tmp_path_factory.mktemp("lab")),
                 "site": read_site(browser, next(site)),
                 "slides": read_slides(browser, tmp_path_factory.mktemp("slides"))}
        yield found
    finally:
        site.close()


# --- What a learner has read when they answer ----------------------------------------------

def seen(page: Page, contents: Page, prompt: int, check: int, written: bool,
         first_words: list[str]) -> list[tuple[str, list[Word]]]:
    """What is read before answering, as (where, words): 00-contents, the page above the
    question, and a screen below the cell the learner answers in."""
    above = [w for w in page.words if w.cell < prompt]
    if not written:  # the prompt cell's words before "Predict" (the question's own words after)
        own = [w for w in page.words if w.cell == prompt]
        asks = next((i for i, w in enumerate(own) if PREDICT.match(w.text)), len(own))
        above += own[:asks]
    if page.deck:  # the question's slide is its screen
        slide = question_slide(page, prompt, check, first_words)
        above = [w for w in above if w.screen <= slide]
        below = [w for w in page.words if w.screen == slide and w.cell > check and not w.fold]
    else:
        end = page.ends.get(check) or max(w.bottom for w in page.words if w.cell == check)
        below = [w for w in page.words if w.cell > check and not w.fold
                 and end <= w.top < end + page.screen]
    return [("00", contents.words), ("above", above), ("below", below)]


def question_slide(page: Page, prompt: int, check: int, first_words: list[str]) -> int:
    """The slide that asks: the check cell's (a prediction's), or the one whose text holds the
    question's first words (a quiz's listing, its check cells being left off the slides)."""
    checks = [w.screen for w in page.words if w.cell == check]
    if checks:
        return checks[0]
    slides_of_prompt = sorted({w.screen for w in page.words if w.cell == prompt})
    for slide in slides_of_prompt:
        said = words(text_of([w for w in page.words if w.screen == slide])[0])
        if any(said[i:i + len(first_words)] == first_words for i in range(len(said))):
            return slide
    return slides_of_prompt[0] if slides_of_prompt else -1


def hits(page: Page, contents: Page, number: str, name: str, prompt: int, check: int,
         written: bool) -> list[tuple[str, str]]:
    """Each (cell, words) a learner reads before answering that states the answer. Overlapping
    matches of a model answer's runs are one hit, the passage they cover."""
    question = item(number, name)
    first_words = words(getattr(question, "prompt", ""))[:6]
    runs = set(model_answer_runs(question))
    found = []
    for part, shown in seen(page, contents, prompt, check, written, first_words):
        if not shown:
            continue
        text, starts = text_of(shown)
        spans = []
        for pattern in answer_patterns(number, name, below=part == "below"):
            for match in re.finditer(pattern, text, re.I):
                spans.append([match.start(), match.end(), pattern in runs])
        spans.sort()
        merged = []
        for span in spans:
            if merged and span[2] and merged[-1][2] and span[0] < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], span[1])
            else:
                merged.append(span)
        for start, end, _ in merged:
            word = shown[bisect.bisect_right(starts, start) - 1]
            where = (f"{CONTENTS} · {word.cell + 1}" if part == "00" else
                     f"{number} · {word.cell + 1}" if word.cell >= 0 else "the navigation")
            found.append((where, " ".join(text[start:end].split())))
    return found


def reviewed(number: str, name: str, where: str, what: str) -> bool:
    return ((number, name, what) in REVIEWED or (number, name, what) in REVIEWED_IN_A_BROWSER
            or (number, name, where) in REVIEWED_ON_SCREEN)


def questions() -> list[tuple[str, str, int, int, bool]]:
    return [(number, name, prompt, check, prompt == check)
            for number in NOTEBOOKS for name, prompt, check in asked_on_screen(number)]


RENDERINGS = ("jupyterlab", "site", "slides")


def cases() -> list:
    decks = {path.name[:2] for path in slides.session_notebooks()}
    return [pytest.param(rendering, *question, id=f"{rendering}-{question[0]}-{question[1]}")
            for rendering in RENDERINGS for question in questions()
            if rendering != "slides" or question[0] in decks]


@pytest.mark.parametrize(("rendering", "number", "name", "prompt", "check", "written"), cases())
def test_no_answer_on_the_screen_before_it_is_asked(rendered, rendering, number, name, prompt,
                                                    check, written):
    pages = rendered[rendering]
    found = [f"{where}: {what!r}" for where, what in
             hits(pages[number], pages.get(CONTENTS, NOTHING),
                  number, name, prompt, check, written)
             if not reviewed(number, name, where, what)]
    assert not found, (f"{rendering}: {number} · {name}'s answer is on the screen before the "
                       f"learner answers:\n" + "\n".join(found))


def test_every_reviewed_hit_still_happens_in_a_browser(rendered):
    live = set()
    for rendering, pages in rendered.items():
        contents = pages.get(CONTENTS, NOTHING)
        for number, name, prompt, check, written in questions():
            if number in pages:
                for where, what in hits(pages[number], contents, number, name, prompt, check,
                                        written):
                    live |= {(number, name, what), (number, name, where)}
    stale = sorted((set(REVIEWED) | set(REVIEWED_IN_A_BROWSER) | set(REVIEWED_ON_SCREEN)) - live)
    assert not stale, f"reviewed, and no longer on any screen: {stale}"


def test_every_cell_of_every_learner_copy_is_read(rendered):
    """JupyterLab drew every cell (the fixture waited for each code cell's whole source), and
    every markdown cell's words are read; the site and the slides have each notebook."""
    for number, page in rendered["jupyterlab"].items():
        notebook = cells("learner", number)
        drawn = {w.cell for w in page.words if w.text.strip()}
        blank = {at for at, cell in enumerate(notebook) if not source(cell).strip()}
        assert drawn | blank == set(range(len(notebook))), number
    assert set(rendered["site"]) == set(rendered["jupyterlab"])
    assert {path.name[:2] for path in slides.session_notebooks()} == set(rendered["slides"])
