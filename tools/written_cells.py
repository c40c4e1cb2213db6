"""Put the written-answer cell after each course notebook's quiz: a maintainer's tool.

``ledgerlab.course.written`` makes the cell and says where it goes; this writes it into the
notebooks, again after a question's prompt changes (tests/course/test_written.py fails until
it is re-run). Only the written cell changes, never an output, so no re-run is needed.

    python tools/written_cells.py add notebooks/02-bad-slice-vs-whole-turn.ipynb ...
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from ledgerlab.course.written import ADDED, UPDATED, WrittenError, with_written_cell


def _read(path: Path):
    try:
        return nbformat.read(path, as_version=4)
    except OSError:
        raise
    except Exception as error:  # nbformat raises several kinds for a file that is no notebook
        raise WrittenError(f"not a notebook ({type(error).__name__})") from None


def add_written_cells(*paths: Path) -> dict[Path, str]:
    """Put the written cell after the quiz of each notebook at ``paths``; what was done
    to each (``with_written_cell``). Idempotent; only that cell changes, never an output.
    Every file is read and checked before any is written: on a WrittenError, or an
    OSError while reading, no file has changed."""
    done, texts = {}, {}
    for path in map(Path, paths):
        try:
            notebook = _read(path)
            done[path] = with_written_cell(notebook)
        except WrittenError as error:
            raise WrittenError(f"{path}: {error} (no notebook was changed)") from None
        if done[path] in (ADDED, UPDATED):
            text = nbformat.writes(notebook)
            texts[path] = text if text.endswith("\n") else text + "\n"
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add = commands.add_parser("add", help="put the written cell after each notebook's quiz "
                              "(idempotent; a notebook without a discussion is skipped)")
    add.add_argument("notebooks", nargs="+", type=Path, metavar="NOTEBOOK")
    args = parser.parse_args(argv)
    try:
        done = add_written_cells(*args.notebooks)
    except (WrittenError, OSError) as error:
        print(f"written_cells.py add: {error}", file=sys.stderr)
        return 1
    for path, what in done.items():
        print(f"{path}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
