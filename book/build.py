"""Build the course site: ``python book/build.py`` (what ``make book`` runs).

1. Copy every ``notebooks/NN-*.ipynb``, in file-name order, to ``build/book/src`` and
   execute the copy there, keeping the widget state: sliders, summaries and charts then
   render on the page without a kernel. The committed notebooks stay free of widget state.
   The saved controls are disabled: on the site nothing recomputes, so a control that
   moved would disagree with the summary and chart beside it.
2. Write the table of contents from that same order (no hand-written list).
3. Put the widget manager and require.js, from ``node_modules`` (``npm ci``), in the
   site's ``_static/widgets``: no page loads a script from another host. The site's own
   script and style (book/site) go to ``_static/site``.
4. Build with Jupyter Book (execution off) and move the HTML to ``build/book/html``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CONFIG = ROOT / "book" / "_config.yml"
HTML_MANAGER = ROOT / "node_modules" / "@jupyter-widgets" / "html-manager" / "dist"
REQUIREJS = ROOT / "node_modules" / "requirejs" / "require.js"
SITE_FILES = ROOT / "book" / "site"
WIDGET_PATHS = "widget-paths.js"  # of book/site, published beside the widget manager
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
CELL_TIMEOUT = 600  # seconds: generous; a cell that hangs fails the build, not stalls it
PARTS = ("src", "html", "sphinx")  # all that a build writes in its folder


class BookError(Exception):
    """The site cannot be built as asked (nothing is written outside ``build/``)."""


def course_notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    """The course in order: every ``NN-name.ipynb`` of the folder, sorted by name."""
    found = sorted(folder.glob("[0-9][0-9]-*.ipynb"))
    if not found:
        raise BookError(f"no NN-*.ipynb notebook in {folder}")
    return found


def toc(notebooks: list[Path]) -> str:
    """A jb-book table of contents: the first notebook is the home page, then the rest."""
    lines = ["format: jb-book", f"root: {notebooks[0].stem}"]
    if notebooks[1:]:
        lines.append("chapters:")
        lines += [f"- file: {notebook.stem}" for notebook in notebooks[1:]]
    return "\n".join(lines) + "\n"


def site_anchors(text: str) -> str:
    """Links to a heading, as the site names it: JupyterLab's anchor keeps the heading's
    case (``#Glossary``); MyST's (``myst_heading_anchors``) is lower case (``#glossary``)."""
    return re.sub(r"(\]\((?:[^)\s#]*\.ipynb)?#)([^)\s]+)\)",
                  lambda m: m[1] + m[2].lower() + ")", text)


def execute(notebook: Path, destination: Path) -> None:
    """Run a copy of ``notebook`` from its own folder (relative paths work as under nbval)
    and write it, outputs and widget state included, to ``destination``."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = site_anchors(cell.source)
    try:
        NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(notebook.parent)}}).execute()
    except CellExecutionError as error:
        raise BookError(f"{notebook.name}: a cell raised {error.ename} "
                        "(make test runs every notebook and shows where)") from error
    shows_widgets = any(WIDGET_VIEW in output.get("data", {})
                        for cell in nb.cells for output in cell.get("outputs", []))
    if shows_widgets and "widgets" not in nb.metadata:
        raise BookError(f"{notebook.name} shows widgets but no widget state was saved")
    if "widgets" in nb.metadata:
        disable_controls(nb.metadata.widgets[WIDGET_STATE]["state"])
    nbformat.write(nb, destination)


def disable_controls(state: dict) -> None:
    """Every saved control (any model with a ``disabled`` trait) is shown disabled."""
    for model in state.values():
        if "disabled" in model["state"]:
            model["state"]["disabled"] = True


def check_widget_scripts() -> None:
    if not (HTML_MANAGER / "embed-amd.js").is_file() or not REQUIREJS.is_file():
        raise BookError("node_modules lacks @jupyter-widgets/html-manager or requirejs: "
                        "run `npm ci` (make book does)")


def check_out_folder(out: Path) -> None:
    """A build replaces its own parts; a folder holding anything else is refused untouched."""
    others = [p.name for p in out.iterdir() if p.name not in PARTS] if out.is_dir() else []
    if others or (out.exists() and not out.is_dir()):
        raise BookError(f"{out} holds {len(others) or 1} entries that a book build did not "
                        "write: choose an empty or new --out folder")


def copy_widget_scripts(static: Path) -> None:
    """Into ``static``/widgets, published as ``_static/widgets`` (see _config.yml).
    embed-amd.js loads its icon fonts from beside itself, so they come along."""
    check_widget_scripts()
    target = static / "widgets"
    target.mkdir(parents=True)
    shutil.copy(REQUIREJS, target / "require.js")
    # Current browsers take the .woff2 fonts; .eot, .woff, .ttf and .svg are fallbacks for
    # old ones (a missing file is a 404 from the site, never a request elsewhere).
    for asset in [HTML_MANAGER / "embed-amd.js", SITE_FILES / WIDGET_PATHS,
                  *HTML_MANAGER.glob("*.woff2")]:
        shutil.copy(asset, target / asset.name)
    shutil.copytree(SITE_FILES, static / "site", ignore=shutil.ignore_patterns(WIDGET_PATHS))


def build(out: Path, folder: Path = NOTEBOOKS) -> Path:
    notebooks = course_notebooks(folder)
    check_widget_scripts()
    check_out_folder(out)
    source, html, work = (out / part for part in PARTS)
    for stale in (source, html, work):
        shutil.rmtree(stale, ignore_errors=True)
    source.mkdir(parents=True)
    copy_widget_scripts(source / "_widgets")
    (source / "_toc.yml").write_text(toc(notebooks), encoding="utf-8")
    for notebook in notebooks:
        started = time.monotonic()
        execute(notebook, source / notebook.name)
        print(f"executed {notebook.name} in {time.monotonic() - started:.1f} s", flush=True)
    subprocess.run([Path(sys.executable).parent / "jupyter-book", "build", str(source),
                    "--config", str(CONFIG), "--toc", str(source / "_toc.yml"),
                    "--path-output", str(work), "--builder", "html", "--quiet", "--warningiserror",
                    "--keep-going"], check=True)
    (work / "_build" / "html").rename(html)
    shutil.rmtree(work)
    return html


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "book",
                        help="build folder (default build/book); the site lands in OUT/html")
    parser.add_argument("--notebooks", type=Path, default=NOTEBOOKS,
                        help="the course's folder (default notebooks)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        html = build(args.out.resolve(), args.notebooks.resolve())
    except (BookError, subprocess.CalledProcessError) as error:
        print(f"book: {error}", file=sys.stderr)
        return 1
    print(f"book: {html / 'index.html'} built in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
