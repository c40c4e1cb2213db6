"""Build the course site: ``python editions/book/build.py`` (what ``make book`` runs).

1. Copy every ``notebooks/NN-*.ipynb``, in file-name order, to ``build/book/src``, with
   its outputs as committed and its explorers' widget state from ``widget-state/`` (beside
   this file; ``make notebooks`` writes both in one run), so sliders, summaries and charts
   render on the page without a kernel. Strict nbval checks those outputs against a fresh
   run, so the site does not execute the course a second time. A notebook without a
   complete committed run (a code cell never run, or a widget whose state is not saved)
   is executed instead. The committed notebooks stay free of widget state (JupyterLab
   would restore it as controls that do nothing). The saved controls are disabled: on the
   site nothing recomputes, so a control that moved would disagree with the summary and
   chart beside it.
2. Write the table of contents from that same order (no hand-written list).
3. Put the widget manager and require.js, from ``node_modules`` (``npm ci --prefix
   editions/book``), in the site's ``_static/widgets``: no page loads a script from
   another host. The site's own script and style (``site/``) go to ``_static/site``.
4. Build with Jupyter Book (execution off) and move the HTML to ``build/book/html``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NOTEBOOKS = ROOT / "notebooks"
CONFIG = HERE / "_config.yml"
NODE_MODULES = HERE / "node_modules"  # npm ci --prefix editions/book (make book runs it)
HTML_MANAGER = NODE_MODULES / "@jupyter-widgets" / "html-manager" / "dist"
REQUIREJS = NODE_MODULES / "requirejs" / "require.js"
SITE_FILES = HERE / "site"
# NN-name.json: the widget state of a notebook's committed run (tools/run_notebooks.py).
WIDGET_STATES = HERE / "widget-state"
WIDGET_PATHS = "widget-paths.js"  # of site/, published beside the widget manager
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
CELL_TIMEOUT = 600  # seconds: generous; a cell that hangs fails the build, not stalls it
# The kernel speaks CurveZMQ on loopback (its kernelspec offers it), so it does not log
# "Kernel is running over TCP without encryption" once per notebook.
KERNEL_CONFIG = Config({"KernelManager": {"transport_encryption": "auto"}})
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


def widget_views(nb) -> set[str]:
    """The model ids of the widgets the notebook's outputs show."""
    return {output["data"][WIDGET_VIEW]["model_id"] for cell in nb.cells
            for output in cell.get("outputs", []) if WIDGET_VIEW in output.get("data", {})}


def committed_run(notebook: Path, states: Path = WIDGET_STATES):
    """The notebook as committed, with its saved widget state, if that run is complete:
    every code cell ran, and every widget it shows has its state in ``states``. Else None."""
    nb = nbformat.read(notebook, as_version=4)
    if any(cell.cell_type == "code" and cell.execution_count is None for cell in nb.cells):
        return None
    views = widget_views(nb)
    if views:
        saved = states / f"{notebook.stem}.json"
        if not saved.is_file():
            return None
        nb.metadata.widgets = nbformat.from_dict(json.loads(saved.read_text(encoding="utf-8")))
        if not views <= nb.metadata.widgets[WIDGET_STATE]["state"].keys():
            return None
    return nb


def execute(notebook: Path):
    """A run of ``notebook`` from its own folder (relative paths work as under nbval), with
    its outputs and widget state."""
    nb = nbformat.read(notebook, as_version=4)
    try:
        NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", store_widget_state=True,
                       config=KERNEL_CONFIG,
                       resources={"metadata": {"path": str(notebook.parent)}}).execute()
    except CellExecutionError as error:
        raise BookError(f"{notebook.name}: a cell raised {error.ename} "
                        "(make test runs every notebook and shows where)") from error
    return nb


def site_copy(notebook: Path, destination: Path, states: Path = WIDGET_STATES) -> str:
    """Write the site's copy of ``notebook`` to ``destination``: its committed run, or a run
    made here when that is not complete. Says which."""
    nb = committed_run(notebook, states)
    how = "copied as committed"
    if nb is None:
        started = time.monotonic()
        nb = execute(notebook)
        how = f"executed in {time.monotonic() - started:.1f} s"
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = site_anchors(cell.source)
    if widget_views(nb) and "widgets" not in nb.metadata:
        raise BookError(f"{notebook.name} shows widgets but no widget state was saved")
    if "widgets" in nb.metadata:
        disable_controls(nb.metadata.widgets[WIDGET_STATE]["state"])
    nbformat.write(nb, destination)
    return how


def disable_controls(state: dict) -> None:
    """Every saved control (any model with a ``disabled`` trait) is shown disabled."""
    for model in state.values():
        if "disabled" in model["state"]:
            model["state"]["disabled"] = True


def check_widget_scripts() -> None:
    if not (HTML_MANAGER / "embed-amd.js").is_file() or not REQUIREJS.is_file():
        raise BookError("node_modules lacks @jupyter-widgets/html-manager or requirejs: "
                        "run `npm ci --prefix editions/book` (make book does)")


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


def jupyter_book(source: Path, work: Path) -> None:
    """Jupyter Book's HTML build of ``source`` in ``work``. Its warnings and errors (stderr)
    show as they come; its banners (stdout) only if it fails: they name ``work``, which
    the site is moved out of afterwards (main prints where the site is)."""
    command = [Path(sys.executable).parent / "jupyter-book", "build", str(source),
               "--config", str(CONFIG), "--toc", str(source / "_toc.yml"),
               "--path-output", str(work), "--builder", "html", "--quiet", "--warningiserror",
               "--keep-going"]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if done.returncode:
        sys.stdout.write(done.stdout)
        raise subprocess.CalledProcessError(done.returncode, command)


def build(out: Path, folder: Path = NOTEBOOKS, states: Path = WIDGET_STATES) -> Path:
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
        print(f"{notebook.name}: {site_copy(notebook, source / notebook.name, states)}",
              flush=True)
    jupyter_book(source, work)
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
