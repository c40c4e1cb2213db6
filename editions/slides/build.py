"""Build the slides: ``python editions/slides/build.py`` (what ``make slides`` runs).

One reveal.js deck per session, ``build/slides/NN-name.slides.html`` for each lesson (01-12,
``ledgerlab.course.syllabus.sessions()``),
and ``build/slides/index.html`` listing them. Each deck is made from the notebook as
committed, with its outputs (strict nbval checks them, so nothing is run again), by
nbconvert's SlidesExporter with the template in ``template/`` beside this file. Slide
types are assigned here, on a copy: the notebooks carry no slideshow metadata.

- Each markdown heading starts a slide; a slide that would overflow the screen continues
  on the next one down (a subslide); a long markdown cell is split between paragraphs.
- The setup cell (the imports) is skipped, and so are the quiz's unanswered
  ``quiz[n].check(...)`` cells: the questions are listed in the cell above them, without the
  learner's "(check it: quiz[n].check(...))", as nothing runs on a slide. So is the
  cell a learner writes discussion answers in (``ledgerlab.course.written``): a class
  discusses them aloud, and "double-click this cell" means nothing on a slide.
- A prediction is asked before it is answered: its question and check cell on one slide,
  then its answer, ``predictNN.solution()``, on the next. (Its saved output, "Not answered
  yet", says nothing to a class; nor does an exercise's, which is left out.)
- A result's folded explanation (``<details>`` in the notebook) is shown open: the deck
  asks before it answers by its slides.
- A chart is drawn as wide as the slide allows, so that its text is as large as the body
  text, on a slide of its own (a subslide), without its code: the code is on the slide
  before it, with the prose that leads to it.
- An explorer shows the text its widget saves beside it; it runs live in JupyterLab or
  under ``make present``.
- reveal.js comes from npm (``npm ci --prefix editions/slides``, which make slides runs) and
  is copied into ``build/slides/reveal.js``: no deck loads anything from another host, and
  the build fails if one would.

Inputs are checked before anything is written: a missing reveal.js or a notebook without a
complete committed run is a SlidesError, and ``build/slides`` is left as it was.
"""

from __future__ import annotations

import argparse
import ast
import base64
import copy
import html
import re
import shutil
import struct
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter
from traitlets.config import Config

from ledgerlab.course import syllabus

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "slides"
INDEX_PAGE = HERE / "index-page.html"  # the list of decks; {{ }} are its CSS braces
REVEAL = HERE / "node_modules" / "reveal.js"  # npm ci --prefix editions/slides
# What the template loads (template/ledgerlab-slides/index.html.j2), and the licence.
REVEAL_FILES = ("dist/reveal.js", "dist/reveal.css", "dist/theme/white.css",
                "dist/plugin/notes.js", "LICENSE")
REVEAL_DIR = "reveal.js"  # in the output folder, beside the decks
# The lessons (01-12), one deck each: not the contents, the exercises or their solutions.
SESSIONS = frozenset(lesson.file for lesson in syllabus.sessions())
SESSION_RANGE = f"{syllabus.sessions()[0].number:02}-{syllabus.sessions()[-1].number:02}"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# How much fits on one 1280 x 720 slide, in lines of 24 px text (32 px with its spacing),
# measured on screenshots of the decks: about 100 characters to a line of prose or code.
LINE_PX = 32
SLIDE_LINES = 17
CHARS_PER_LINE = 100
# A chart is drawn as wide as the slide allows (its output area is 1262 px of the 1280): a
# 9-inch chart (900 px, its text 18 px) drawn 1240 px wide has text of 24.8 px, as large as the
# slide's 24 px body text (chartstyle, diagrams). Its slide holds it and its caption (18 px
# type, 25 px lines of 110 characters or more) in 720 px, of which the cell's padding takes
# 91 px in Chromium (96 counted). A caption with no room goes to the speaker notes (it stays
# the alt text). tests/editions/browser/test_slides_projected.py measures it all.
SLIDE_HEIGHT_PX = 720
FIGURE_PADDING_PX = 96
CAPTION_LINE_PX = 25.2
CAPTION_CHARS_PER_LINE = 110
IMAGE_MAX_PX = SLIDE_HEIGHT_PX - FIGURE_PADDING_PX
IMAGE_WIDTH_PX = 1240
FIGCAPTION = re.compile(r"<figcaption\b.*?</figcaption>", re.S)
FIGURE_IMAGE = 'class="ledgerlab-figure-image" style="'
FIGURE_TAG = "ledgerlab-figure"  # a chart's cell on its own slide: its input is removed

HEADING = re.compile(r"^#{1,6}\s")
FENCE = re.compile(r"^\s*(```|~~~)")
PREDICT_CHECK = re.compile(r"\b(predict\w*)\.check\(my_answer\)")
EXERCISE_CHECK = re.compile(r"\bq\d+\.check\(")
UNANSWERED_QUIZ = re.compile(r"^\s*quiz\[\d+\]\.check\(\.\.\.\)\s*$")
# A result's explanation is folded under it in the notebooks (<details>, opened once the
# learner has answered); a deck already shows the answer on the slide after its question,
# so the fold is opened: its paragraphs, without the markup.
FOLD_MARKUP = re.compile(r"^[ \t]*(?:<details>|</details>|<summary>.*?</summary>)[ \t]*\n?", re.M)
QUIZ_LISTING = re.compile(r"^\s*quiz = quiz\d\d\s*\n\s*quiz\s*$")
# How the listing tells a learner to answer each question, "(check it: quiz[1].check(...))":
# there is nothing to run on a slide; a question in words is discussed aloud.
HOW_TO_ANSWER = re.compile(r"  \((check it: quiz\[\d+\]\.check\(\.\.\.\)|in words, .*? shows a model "
                           r"answer)\)$", re.M)
NOTEBOOK_LINK = re.compile(r"\[([^\]]+)\]\((\d\d-[\w-]+)\.ipynb(#[^)]*)?\)")
ANCHOR_LINK = re.compile(r"\[([^\]]+)\]\(#[^)]*\)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class SlidesError(Exception):
    """The slides cannot be built as asked (nothing has been written)."""


@dataclass(frozen=True)
class Deck:
    source: Path
    title: str
    html: str
    slides: int

    @property
    def name(self) -> str:
        return self.source.stem + ".slides.html"


def session_notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    """The lessons' notebooks in file-name order: one deck per session."""
    return sorted(path for path in folder.glob("*.ipynb") if path.name in SESSIONS)


# --- Reading a notebook ---------------------------------------------------------------------

def read_executed(path: Path):
    """The notebook as committed; a SlidesError unless every code cell has been run."""
    try:
        notebook = nbformat.read(path, as_version=4)
    except (OSError, ValueError) as error:  # nbformat's read errors are ValueErrors
        raise SlidesError(f"{path.name}: cannot read it as a notebook ({type(error).__name__})")
    never_run = [number for number, cell in enumerate(notebook.cells, start=1)
                 if cell.cell_type == "code" and cell.source.strip()
                 and cell.get("execution_count") is None]
    if never_run:
        raise SlidesError(f"{path.name}: cells {never_run} have not been run; the slides show "
                          "the committed outputs (make notebooks writes them)")
    return notebook


def is_setup(source: str) -> bool:
    """The setup cell: it imports the notebook's questions, or does nothing but import."""
    if "from ledgerlab.course.questions import" in source:
        return True
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%"))
    try:
        statements = ast.parse(code).body
    except SyntaxError:
        return False
    return bool(statements) and all(isinstance(s, (ast.Import, ast.ImportFrom))
                                    for s in statements)


def title_of(notebook, name: str = "the notebook") -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise SlidesError(f"{name} has no '# ' title")


# --- How tall a cell is on a slide ------------------------------------------------------------

def text_lines(text: str) -> float:
    """Lines of preformatted text (code, outputs): each wraps on its own, and code type
    is smaller than prose (20 px to 24)."""
    return 0.8 * sum(max(1, -(-len(line) // CHARS_PER_LINE)) if line.strip() else 0.5
                     for line in text.splitlines())


def markdown_lines(markdown: str) -> float:
    """Lines of rendered markdown: a paragraph flows, a list item, table row or code line
    is a line of its own, and a heading is larger."""
    total = 0.0
    for block in blocks(markdown):
        rows = block.splitlines()
        if HEADING.match(block):
            total += 1.7 + markdown_lines("\n".join(rows[1:])) if len(rows) > 1 else 1.7
        elif re.match(r"^\s*([-*+|]|\d+\.|```|~~~)", block):
            total += text_lines(block) / 0.8
        else:
            total += max(1, -(-len(" ".join(rows)) // CHARS_PER_LINE))
        total += 0.5
    return total


def png_size(data: str) -> tuple[int, int]:
    """A PNG's (width, height), from its header (base64)."""
    return struct.unpack(">II", base64.b64decode(data[:64])[16:24])


def caption_fits(data: str, description: str) -> bool:
    """Whether the chart at the slide's full width and its caption fit on one slide."""
    width, height = png_size(data)
    caption = CAPTION_LINE_PX * -(-len(description) // CAPTION_CHARS_PER_LINE)
    return IMAGE_WIDTH_PX * height / width + caption <= IMAGE_MAX_PX


def shown_width(data: str) -> float:
    """How wide a slide shows a figure: the slide's width, or less if it would be too tall."""
    width, height = png_size(data)
    return min(IMAGE_WIDTH_PX, IMAGE_MAX_PX * width / height)


def png_lines(data: str) -> float:
    """The lines a PNG takes at the size a slide shows it."""
    width, height = png_size(data)
    return shown_width(data) * height / width / LINE_PX


def widen_figures(cell) -> tuple[bool, list[str]]:
    """Each figure of the cell's outputs drawn at the width a slide shows it (its HTML as
    the chart wrote it, with ``max-width: 100%``, would keep the PNG's own, smaller size),
    its caption taken off where the two do not fit a slide. Whether the cell has one, and
    the descriptions taken off."""
    found, taken_off = False, []
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data and FIGURE_IMAGE in data.get("text/html", ""):
            description = data.get("text/plain", "")
            if not caption_fits(data["image/png"], description):
                data["text/html"] = FIGCAPTION.sub("", data["text/html"], count=1)
                taken_off.append(description)
            width = f"width: {shown_width(data['image/png']):.0f}px; "
            data["text/html"] = data["text/html"].replace(FIGURE_IMAGE, FIGURE_IMAGE + width, 1)
            found = True
    return found, taken_off


def notes_cell(cell_id: str, descriptions: list[str]):
    """The speaker notes of a figure's slide: what each figure shows, in words."""
    cell = nbformat.v4.new_markdown_cell("\n\n".join(descriptions), id=f"{cell_id}-notes")
    cell.metadata["slideshow"] = {"slide_type": "notes"}
    return cell


def output_lines(output) -> float:
    if output.output_type == "stream":
        return text_lines(output.text)
    if output.output_type == "error":
        return text_lines(ANSI.sub("", "\n".join(output.traceback)))
    data = output.get("data", {})
    if "image/png" in data:  # a Chart: the figure, and its description as an 18 px caption
        caption = len(data.get("text/plain", ""))
        return png_lines(data["image/png"]) + 0.8 * -(-caption // CAPTION_CHARS_PER_LINE)
    if "text/html" in data and "<tr" in data["text/html"]:
        return data["text/html"].count("<tr") * 1.1
    return text_lines(data.get("text/plain", ""))


def cell_lines(cell) -> float:
    if cell.cell_type == "markdown":
        return markdown_lines(cell.source)
    # The input box and each output area have padding of their own.
    code = 0 if FIGURE_TAG in cell.metadata.get("tags", []) else text_lines(cell.source) + 1.2
    return code + sum(output_lines(o) + 0.3
                                               for o in cell.get("outputs", []))


# --- Markdown: split at headings and between paragraphs -----------------------------------

def blocks(markdown: str) -> list[str]:
    """Paragraph-sized blocks: split at blank lines and before headings, fences kept whole."""
    found, current, fenced = [], [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        if not fenced and (not line.strip() or HEADING.match(line)) and current:
            found.append("\n".join(current))
            current = []
        if fenced or line.strip():
            current.append(line)
    if current:
        found.append("\n".join(current))
    return found


def split_markdown(markdown: str) -> list[str]:
    """The cell as pieces: each heading starts one, and a piece holds what fits a slide."""
    pieces: list[list[str]] = []
    for block in blocks(markdown):
        if (not pieces or HEADING.match(block)
                or markdown_lines("\n\n".join(pieces[-1] + [block])) > SLIDE_LINES - 2):
            pieces.append([block])
        else:
            pieces[-1].append(block)
    return ["\n\n".join(piece) for piece in pieces]


def relink(markdown: str, decks: set[str]) -> str:
    """Links to another session point at its deck; links elsewhere in the course lose
    their target (the slides are not the notebooks) and keep their text."""
    def notebook(match: re.Match) -> str:
        text, stem = match.group(1), match.group(2)
        return f"[{text}]({stem}.slides.html)" if stem in decks else text
    return ANCHOR_LINK.sub(r"\1", NOTEBOOK_LINK.sub(notebook, markdown))


# --- Slide types ----------------------------------------------------------------------------

def answer_cell(name: str, check_id: str):
    """``predictNN.solution()`` and what it shows, for the slide after the question."""
    from ledgerlab.course import questions
    from ledgerlab.course.feedback import Question

    question = getattr(questions, name, None)
    if not isinstance(question, Question):
        raise SlidesError(f"{name} is not a prediction in ledgerlab.course.questions")
    cell = nbformat.v4.new_code_cell(f"{name}.solution()", id=f"answer-{check_id}")
    text = str(question.solution())
    cell.outputs = [nbformat.v4.new_output("execute_result", {
        "text/plain": text, "text/html": f'<p class="ledgerlab-answer">{html.escape(text)}</p>'},
        execution_count=None)]
    return cell


def projected_quiz(cell) -> None:
    """The quiz's listing as a class reads it: the questions, without how to check each."""
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "text/plain" in data:
            data["text/plain"] = HOW_TO_ANSWER.sub(
                lambda match: "" if match.group(1).startswith("check") else "  (in words)",
                data["text/plain"])


def slide_cells(notebook, decks: set[str]) -> list:
    """The deck's cells, each with ``metadata.slideshow.slide_type`` set."""
    cells: list = []
    for cell in notebook.cells:
        if "written" in cell.metadata.get("ledgerlab", {}):
            continue  # the learner's answer cell: nothing to project
        if cell.cell_type == "markdown":
            unfolded = FOLD_MARKUP.sub("", cell.source).strip("\n")
            for number, piece in enumerate(split_markdown(relink(unfolded, decks))):
                part = nbformat.v4.new_markdown_cell(piece, id=f"{cell.id}-{number}")
                cells.append(part)
            continue
        cell = copy.deepcopy(cell)
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        if is_setup(cell.source) or UNANSWERED_QUIZ.match(cell.source):
            cell.metadata["slideshow"] = {"slide_type": "skip"}
            cells.append(cell)
            continue
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
        if QUIZ_LISTING.match(cell.source):
            projected_quiz(cell)
        figure, taken_off = widen_figures(cell)
        prediction = PREDICT_CHECK.search(cell.source)
        if prediction:
            cell.outputs = []
            cell.metadata["ledgerlab_check"] = True
            cells.append(cell)
            answer = answer_cell(prediction.group(1), cell.id)
            answer.metadata["ledgerlab_answer"] = True
            cells.append(answer)
            continue
        if EXERCISE_CHECK.search(cell.source):
            cell.outputs = []  # its saved "Not answered yet" says nothing to a class
        elif figure:  # the code, then what it draws on the next slide
            drawn = copy.deepcopy(cell)
            drawn.id = f"{cell.id}-figure"
            drawn.metadata["tags"] = [*cell.metadata.get("tags", []), FIGURE_TAG]
            drawn.metadata["ledgerlab_figure"] = True
            cell.outputs = []
            cells += [cell, drawn]
            if taken_off:  # the speaker still has the words the slide has no room for
                cells.append(notes_cell(cell.id, taken_off))
            continue
        cells.append(cell)

    shown = [cell for cell in cells
             if cell.metadata.get("slideshow", {}).get("slide_type") not in ("skip", "notes")]
    filled = None  # lines on the current slide; None before the first
    for index, cell in enumerate(shown):
        lines = cell_lines(cell)
        # Prose is measured with the code cell it introduces, so that the two share a slide
        # (a prediction's question and its check cell always do).
        after = shown[index + 1] if index + 1 < len(shown) else None
        needs = lines + (cell_lines(after) if after is not None and cell.cell_type == "markdown"
                         and after.cell_type == "code" else 0)
        if needs > SLIDE_LINES and not (after is not None
                                        and after.metadata.get("ledgerlab_check")):
            needs = lines  # they cannot share one slide anyway: the prose stays where it fits
        if filled is None or (cell.cell_type == "markdown" and HEADING.match(cell.source)):
            kind, filled = "slide", lines
        elif (cell.metadata.pop("ledgerlab_answer", False)
              or cell.metadata.pop("ledgerlab_figure", False)):
            kind, filled = "subslide", lines
        elif cell.metadata.pop("ledgerlab_check", False) or filled + needs <= SLIDE_LINES:
            kind, filled = "-", filled + lines
        else:
            kind, filled = "subslide", lines
        cell.metadata["slideshow"] = {"slide_type": kind}
    return cells


# --- Exporting, and checking what a deck loads --------------------------------------------

class _Sources(HTMLParser):
    """The src and href of every script, link and img, and the slides: the sections with
    no section inside (a slide with slides below it is a section of sections)."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.sections = 0
        self._open: list[bool] = []  # for each open section: has it a section inside?

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "section":
            if self._open:
                self._open[-1] = True
            self._open.append(False)
        if tag in ("script", "link", "img", "iframe", "source"):
            self.loads += [value for name, value in attrs if name in ("src", "href") and value]

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self._open:
            self.sections += not self._open.pop()


def loaded(page: str) -> tuple[list[str], int]:
    parser = _Sources()
    parser.feed(page)
    return parser.loads, parser.sections


def remote(url: str) -> bool:
    return bool(re.match(r"^\s*(https?:)?//", url, re.I))


def exporter() -> SlidesExporter:
    config = Config()
    config.SlidesExporter.reveal_url_prefix = REVEAL_DIR
    config.SlidesExporter.reveal_theme = "white"
    config.SlidesExporter.reveal_transition = "none"  # a projector's slide change, no motion
    config.SlidesExporter.reveal_width = "1280"
    config.SlidesExporter.reveal_height = "720"
    config.SlidesExporter.exclude_input_prompt = True
    config.SlidesExporter.exclude_output_prompt = True
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_input_tags = {FIGURE_TAG}
    return SlidesExporter(config=config, extra_template_basedirs=[str(HERE / "template")],
                          template_name="ledgerlab-slides")


def make_deck(path: Path, decks: set[str], slides: SlidesExporter) -> Deck:
    notebook = read_executed(path)
    title = title_of(notebook, path.name)
    deck = copy.deepcopy(notebook)
    deck.cells = slide_cells(notebook, decks)
    deck.metadata.pop("widgets", None)
    page, _ = slides.from_notebook_node(deck, resources={"metadata": {"name": title}})
    loads, count = loaded(page)
    outside = [url for url in loads if remote(url)]
    if outside:
        raise SlidesError(f"{path.name}: the deck would load {len(outside)} file(s) from "
                          f"another host, first {outside[0]}")
    return Deck(path, title, page, count)


def index_page(decks: list[Deck]) -> str:
    rows = "\n".join(
        f'  <li><a href="{html.escape(deck.name)}">{html.escape(deck.title)}</a> '
        f'<span class="count">({deck.slides} slides)</span></li>' for deck in decks)
    return INDEX_PAGE.read_text(encoding="utf-8").format(rows=rows)


def build(out: Path = OUT, notebooks: list[Path] | None = None,
          reveal: Path = REVEAL) -> list[Path]:
    """Write the decks and index.html to ``out``; return the decks' paths."""
    missing = [name for name in REVEAL_FILES if not (reveal / name).is_file()]
    if missing:
        raise SlidesError(f"reveal.js is not installed ({missing[0]} is missing): run "
                          "npm ci --prefix editions/slides --ignore-scripts (make slides does)")
    paths = session_notebooks() if notebooks is None else list(notebooks)
    if not paths:
        raise SlidesError(f"no session notebook ({SESSION_RANGE}) to build")
    strays = [path.name for path in paths if path.name not in SESSIONS]
    if strays:
        raise SlidesError(f"not a session notebook ({SESSION_RANGE}): {strays[0]}")
    names = {path.stem for path in paths}
    slides = exporter()
    decks = [make_deck(path, names, slides) for path in paths]  # every check before a write

    out.mkdir(parents=True, exist_ok=True)
    target = out / REVEAL_DIR
    for name in REVEAL_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(reveal / name, target / name)
    if notebooks is None:  # the whole course: a deck whose notebook is gone goes too
        for stale in set(out.glob("*.slides.html")) - {out / deck.name for deck in decks}:
            stale.unlink()
    for deck in decks:
        (out / deck.name).write_text(deck.html, encoding="utf-8")
    (out / "index.html").write_text(index_page(decks), encoding="utf-8")
    return [out / deck.name for deck in decks]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help=f"session notebooks to build (default: notebooks/{SESSION_RANGE})")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (build/slides)")
    args = parser.parse_args(argv)
    try:
        written = build(args.out, args.notebooks or None)
    except SlidesError as error:
        print(f"slides: {error}", file=sys.stderr)
        return 1
    print(f"{len(written)} decks and index.html in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
