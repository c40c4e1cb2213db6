"""make slides: a deck per session from the executed notebooks, nothing from another host.

Two decks are built into a temporary folder (01: the diagrams and a prediction; 04: an
explorer, an error and three predictions). reveal.js comes from npm, installed by make slides
and by make test where npm is: without it this module skips (it fails in CI, which has npm).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from ledgerlab.course import syllabus

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("slides_build",
                                               ROOT / "editions" / "slides" / "build.py")
slides = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = slides  # dataclasses look their module up there
_spec.loader.exec_module(slides)

DECKS = ["01-storage-vs-context.ipynb", "04-the-boundary-table.ipynb"]


def reveal_installed() -> bool:
    return all((slides.REVEAL / name).is_file() for name in slides.REVEAL_FILES)


@pytest.fixture(scope="module")
def reveal() -> Path:
    """editions/slides/node_modules/reveal.js, as make slides (and make test) install it."""
    if not reveal_installed():
        reason = ("reveal.js is not installed: make slides installs it from npm "
                  "(apt-get install -y npm)")
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI is set: this test may not be skipped)", pytrace=False)
        pytest.skip(reason)
    return slides.REVEAL


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def built(reveal, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("slides")
    sources = [slides.NOTEBOOKS / name for name in DECKS]
    before = {path: digest(path) for path in sources}
    written = slides.build(out, sources, reveal)
    assert [path.name for path in written] == [name.replace(".ipynb", ".slides.html")
                                              for name in DECKS]
    # The notebooks are read, never written: no slideshow metadata lands in them.
    assert {path: digest(path) for path in sources} == before
    return out


def deck(out: Path, name: str) -> str:
    return (out / name.replace(".ipynb", ".slides.html")).read_text(encoding="utf-8")


def notebook(name: str):
    return nbformat.read(slides.NOTEBOOKS / name, as_version=4)


class Page(HTMLParser):
    """The src/href each script, link and img loads, the headings' text, and each slide's
    text in order (a slide is what follows one <section> up to the next)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.loads: list[tuple[str, str]] = []
        self.headings: list[str] = []
        self.slides: list[str] = []
        self._heading: list[str] | None = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe", "source"):
            self.loads += [(tag, value) for name, value in attrs if name in ("src", "href")
                           and value]
        if tag == "section":
            self.slides.append("")
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = []

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).replace("¶", "").split()))
            self._heading = None

    def handle_data(self, data):
        if self._heading is not None:
            self._heading.append(data)
        if self.slides:
            self.slides[-1] += data


def headings_of(name: str) -> list[str]:
    """Each markdown heading of the notebook as a reader sees it: no #, backticks or stars."""
    found = []
    for cell in notebook(name).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if re.match(r"^#{1,6}\s", line):
                    found.append(" ".join(re.sub(r"[`*]", "", line.lstrip("#")).split()))
    return found


@pytest.mark.parametrize("name", DECKS)
def test_each_deck_has_every_heading_of_its_notebook_each_on_a_slide_of_its_own(built, name):
    page = Page(deck(built, name))
    expected = headings_of(name)
    assert expected and [h for h in page.headings if h in expected] == expected
    for heading in expected:  # a heading starts a slide: the first text on it
        assert any(text.strip().startswith(heading.split()[0]) and heading in
                   " ".join(text.replace("¶", "").split()) for text in page.slides), heading
    assert len(page.slides) >= len(expected)


@pytest.mark.parametrize("name", DECKS)
def test_a_prediction_is_asked_on_one_slide_and_answered_on_a_later_one(built, name):
    page = Page(deck(built, name))
    checks = [match.group(1) for cell in notebook(name).cells if cell.cell_type == "code"
              for match in [slides.PREDICT_CHECK.search(cell.source)] if match]
    assert checks
    from ledgerlab.course import questions
    for prediction in checks:
        asked = [i for i, text in enumerate(page.slides) if f"{prediction}.check(my_answer)" in text]
        answer = str(getattr(questions, prediction).solution())
        answered = [i for i, text in enumerate(page.slides) if f"{prediction}.solution()" in text]
        assert len(asked) == 1 and len(answered) == 1, prediction
        assert answered[0] > asked[0], prediction
        assert answer in " ".join(page.slides[answered[0]].split())
        assert "Answer:" not in page.slides[asked[0]]
        # The saved "Not answered yet" output is not projected.
        assert "Not answered yet" not in page.slides[asked[0]]


@pytest.mark.parametrize("name", DECKS)
def test_the_arrow_keys_step_through_every_slide_so_no_answer_is_skipped(built, name):
    # reveal.js's default mode moves the right arrow past a slide's slides below it, and a
    # prediction's answer is one of those: linear mode steps through them all in order.
    calls = re.findall(r"Reveal\.initialize\(\{(.*?)\}\);", deck(built, name), re.S)
    assert len(calls) == 1
    assert re.search(r"^\s*navigationMode:\s*\"linear\",", calls[0], re.M)


@pytest.mark.parametrize("name", DECKS)
def test_the_learners_written_answer_cell_is_not_projected(built, name):
    written = [cell for cell in notebook(name).cells
               if "written" in cell.metadata.get("ledgerlab", {})]
    page = deck(built, name)
    text = " ".join(" ".join(Page(page).slides).split())
    for cell in written:  # its opening words as rendered: not on any slide
        opening = " ".join(re.sub(r"[*`]", "", cell.source).split()[:4])
        assert opening and opening not in text, opening
    assert "Double-click this cell" not in page
    if name == DECKS[0]:
        assert written  # 01 has one: this test would notice it projected


@pytest.mark.parametrize("name", [*DECKS, "index.html"])
def test_nothing_is_loaded_from_another_host_and_what_is_loaded_is_there(built, name):
    page = Page((built / name).read_text(encoding="utf-8") if name == "index.html"
                else deck(built, name))
    remote = [(tag, url) for tag, url in page.loads if re.match(r"^\s*(https?:)?//", url, re.I)]
    assert not remote
    local = [url for _, url in page.loads if not url.startswith(("data:", "#"))]
    if name != "index.html":
        assert sorted(set(local)) == sorted(f"reveal.js/{file}" for file in slides.REVEAL_FILES
                                            if file != "LICENSE")
    for url in local:
        assert (built / url).is_file(), url


def test_setup_cells_are_skipped_outputs_kept_and_explorers_shown_as_their_text(built):
    first = deck(built, DECKS[0])
    assert "from ledgerlab.course.questions import" not in first
    assert "%matplotlib inline" not in first
    # The pictures of notebook 01, with their descriptions as alt text and caption.
    for drawn in ("309 bytes (gson encoder) as one bar", "Diagram of storage and context."):
        assert first.count(drawn) == 2, drawn  # alt, and the caption or the speaker notes
    boundary = deck(built, DECKS[1])
    assert "application/vnd.jupyter.widget-view+json" not in boundary
    assert "BudgetError" in boundary  # an error output is kept
    explorer = next(output["data"]["text/plain"] for cell in notebook(DECKS[1]).cells
                    if cell.cell_type == "code" for output in cell.outputs
                    if slides.WIDGET_VIEW in output.get("data", {}))
    assert explorer.splitlines()[0] in boundary


def test_links_point_at_decks_or_are_dropped(built):
    page = deck(built, DECKS[0])
    hrefs = re.findall(r'<a [^>]*href="([^"]+)"', page)
    assert not [href for href in hrefs if ".ipynb" in href]
    # 01 links only to decks this run did not build (and to its own headings): text only.
    assert all((built / href.split("#")[0]).is_file() for href in hrefs
               if not href.startswith(("http", "#")))
    assert slides.relink("[a](04-the-boundary-table.ipynb#x) [b](02-x.ipynb) [c](#h)",
                         {"04-the-boundary-table"}) == "[a](04-the-boundary-table.slides.html) b c"


def test_the_index_lists_every_deck(built):
    index = (built / "index.html").read_text(encoding="utf-8")
    for name in DECKS:
        target = name.replace(".ipynb", ".slides.html")
        assert f'href="{target}"' in index
        assert slides.title_of(notebook(name)) in index


def test_markdown_splits_at_headings_and_between_paragraphs_never_inside_a_fence():
    long = "\n\n".join(f"Paragraph {n}. " + "word " * 150 for n in range(6))
    pieces = slides.split_markdown("## A\n\ntext\n\n### B\n\n```\ncode\n\nmore code\n```\n\n" + long)
    assert pieces[0] == "## A\n\ntext"
    assert pieces[1].startswith("### B\n\n```\ncode\n\nmore code\n```")
    assert len(pieces) > 3
    assert "\n\n".join(pieces) == "## A\n\ntext\n\n### B\n\n```\ncode\n\nmore code\n```\n\n" + long
    assert all(slides.markdown_lines(piece) <= slides.SLIDE_LINES for piece in pieces[2:])


def test_bad_input_is_refused_and_writes_nothing(reveal, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(slides.SlidesError, match="reveal.js is not installed"):
        slides.build(out, [slides.NOTEBOOKS / DECKS[0]], tmp_path / "no-reveal")
    unrun = notebook(DECKS[0])
    next(cell for cell in unrun.cells if cell.cell_type == "code").execution_count = None
    path = tmp_path / DECKS[0]
    nbformat.write(unrun, path)
    with pytest.raises(slides.SlidesError, match="have not been run"):
        slides.build(out, [slides.NOTEBOOKS / DECKS[1], path], reveal)
    with pytest.raises(slides.SlidesError, match="not a session notebook"):
        slides.build(out, [slides.NOTEBOOKS / syllabus.EXERCISES.file], reveal)
    assert not out.exists()


def test_an_exercise_check_is_projected_without_its_not_answered_yet():
    # No reveal.js needed: slide_cells is what the deck is made of. The lessons send their
    # exercises to 13 (practised once), so 13's cells stand in for a deck with an exercise.
    notebook = nbformat.read(ROOT / "notebooks" / syllabus.EXERCISES.file, as_version=4)
    checks = [cell for cell in notebook.cells if cell.cell_type == "code"
              and "q7.check(" in cell.source]
    assert checks and "Not answered yet" in str(checks[0].outputs)  # as committed
    projected = [cell for cell in slides.slide_cells(notebook, set())
                 if cell.cell_type == "code" and "q7.check(" in cell.source]
    assert projected and all(cell.outputs == [] for cell in projected)


def test_a_chart_is_on_a_slide_of_its_own_after_its_code_and_as_wide_as_the_slide(built):
    name = DECKS[1]
    charted = [cell for cell in notebook(name).cells if cell.cell_type == "code"
               and any("ledgerlab-figure-image" in o.get("data", {}).get("text/html", "")
                       for o in cell.outputs)]
    assert len(charted) >= 2
    page = Page(deck(built, name))
    for cell in charted:
        description = next(o["data"]["text/plain"] for o in cell.outputs
                           if "image/png" in o.get("data", {}))
        code = cell.source.splitlines()[-1]
        drawn = [i for i, text in enumerate(page.slides) if description in text]
        coded = [i for i, text in enumerate(page.slides) if code in text]
        # The figure's slide: its description (alt and caption) and none of its code.
        assert len(drawn) == 1 and coded and drawn[0] not in coded, code
        assert max(i for i in coded if i < drawn[0]) == drawn[0] - 1, code
    images = re.findall(r'<img [^>]*class="ledgerlab-figure-image"[^>]*>', deck(built, name))
    widths = [float(w) for image in images
              for w in re.findall(r'style="width: ([\d.]+)px', image)]
    assert len(widths) == len(charted)
    assert all(slides.IMAGE_MAX_PX * 900 / 380 >= w > 900 for w in widths), widths


def test_a_caption_with_no_room_under_its_chart_goes_to_the_speaker_notes(built):
    """01's diagrams fill the slide's width and nearly its height: their descriptions are
    spoken (the notes) and stay the images' alt text; 04's short charts keep theirs."""
    first = deck(built, DECKS[0])
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', first, re.S)
    captions = re.findall(r"<figcaption\b.*?</figcaption>", first, re.S)
    for drawn in ("309 bytes (gson encoder) as one bar", "Diagram of storage and context."):
        assert any(drawn in note for note in notes), drawn
        assert not any(drawn in caption for caption in captions), drawn
    assert re.findall(r"<figcaption\b", deck(built, DECKS[1]))


@pytest.mark.parametrize("name", ["07-two-limits.ipynb", "11-images-loops-and-reasoning.ipynb"])
def test_the_quiz_is_listed_without_how_to_check_it(name):
    # No reveal.js needed: the cells a deck is made of, before the export.
    listing = [output["data"]["text/plain"] for cell in slides.slide_cells(notebook(name), set())
               if cell.cell_type == "code" and slides.QUIZ_LISTING.match(cell.source)
               for output in cell.outputs]
    assert len(listing) == 1
    numbered = re.findall(r"^(\d+)\. ", listing[0], re.M)
    assert numbered == [str(n) for n in range(1, len(numbered) + 1)] and len(numbered) >= 3
    assert ".check(" not in listing[0] and ".solution()" not in listing[0]
    assert "(in words)" in listing[0]


def test_a_folded_explanation_is_projected_open():
    # The notebook folds it under the result (<details>); the deck's answer slide comes first.
    texts = [cell.source for cell in slides.slide_cells(notebook("07-two-limits.ipynb"), set())
             if cell.cell_type == "markdown"]
    folded = [cell.source for cell in notebook("07-two-limits.ipynb").cells
              if cell.cell_type == "markdown" and "<details>" in cell.source]
    assert folded and not [text for text in texts if "<details" in text or "<summary" in text]
    assert any("35 tokens kept" in text for text in texts)
