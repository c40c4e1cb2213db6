"""Re-execute course notebooks in place, as they are committed: ``make notebooks``.

Strict nbval compares every cell with the committed outputs, so a change to the package
that changes what a notebook shows is committed with the notebook re-run. Each runs in a
fresh kernel from its own folder (as nbval runs it), without per-cell timing, and with the
kernelspec the kernel itself reports, so that JupyterLab does not mark a notebook modified
when it opens it.

The widget state of the run (what the explorers showed) is written beside the course site
that shows it, to ``editions/book/widget-state/NN-name.json``, not into the notebook:
JupyterLab would restore it on open as controls that do nothing until the cell is run.
The site takes outputs and state from this one run (its model ids name the same widgets),
so the course is not executed again to build it.

    python tools/run_notebooks.py                 # every notebooks/NN-*.ipynb
    python tools/run_notebooks.py notebooks/05-the-ledger.ipynb

Before it, ``python tools/syllabus.py`` writes the titles, minutes and links the course's
manifest (``ledgerlab/course/syllabus.py``) gives. After it,
``python -m ledgerlab.course.learner build`` writes ``learner/``, the notebooks as
learners open them, without outputs (``make notebooks`` runs it after this script; a test
fails while ``learner/`` is behind).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "python3"
WIDGET_STATES = ROOT / "editions" / "book" / "widget-state"  # read by editions/book/build.py
# CurveZMQ on loopback: no "Kernel is running over TCP without encryption" per notebook.
KERNEL_CONFIG = Config({"KernelManager": {"transport_encryption": "auto"}})
# The learner's progress (ledgerlab/course/progress.py) is neither read nor written by the
# course's own runs: 00's saved table is what a fresh learner sees. The kernels inherit it.
os.environ["LEDGERLAB_PROGRESS"] = "off"


def run(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name=KERNEL, record_timing=False,
                   store_widget_state=True, config=KERNEL_CONFIG,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    save_widget_state(path.stem, notebook.metadata.pop("widgets", None))
    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    notebook.metadata["kernelspec"] = {"display_name": spec.display_name,
                                       "language": spec.language, "name": KERNEL}
    nbformat.write(notebook, path)


def save_widget_state(name: str, state: dict | None) -> None:
    """``NAME.json`` holds the run's widget state; a notebook that shows none has no file."""
    saved = WIDGET_STATES / f"{name}.json"
    if state is None:
        saved.unlink(missing_ok=True)
        return
    WIDGET_STATES.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every notebooks/NN-*.ipynb)")
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    for path in paths:
        started = time.monotonic()
        run(path)
        print(f"ran {path.name} in {time.monotonic() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
