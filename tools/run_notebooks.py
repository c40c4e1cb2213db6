"""Re-execute course notebooks in place, as they are committed: ``make notebooks``.

Strict nbval compares every cell with the committed outputs, so a change to the package
that changes what a notebook shows is committed with the notebook re-run. Each runs in a
fresh kernel from its own folder (as nbval runs it), without per-cell timing or widget
state (random model ids), and with the kernelspec the kernel itself reports, so that
JupyterLab does not mark a notebook modified when it opens it.

    python tools/run_notebooks.py                 # every notebooks/NN-*.ipynb
    python tools/run_notebooks.py notebooks/05-the-ledger.ipynb
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
KERNEL = "python3"


def run(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name=KERNEL, record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    notebook.metadata.pop("widgets", None)
    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    notebook.metadata["kernelspec"] = {"display_name": spec.display_name,
                                       "language": spec.language, "name": KERNEL}
    nbformat.write(notebook, path)


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
