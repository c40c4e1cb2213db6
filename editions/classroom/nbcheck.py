"""Compare a cell's outputs with the committed ones the way strict nbval does.

The markers, the sanitizing and the stream handling are nbval's own functions; the
comparison mirrors ``IPyNbCell.compare_outputs`` (a method of a pytest item, so it
cannot be called outside pytest). A mismatch is described by keys, sizes and hashes,
never by the text itself: outputs may hold conversation text.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbval.plugin import (coalesce_streams, find_comment_markers, find_metadata_tags,
                          get_sanitize_patterns, transform_streams_for_comparison)

# What nbval leaves out of the comparison (without --nbdime).
SKIP_COMPARE = {"metadata", "traceback", "prompt_number", "output_type", "name",
                "execution_count", "application/vnd.jupyter.widget-view+json",
                "image/png", "image/jpeg"}


@dataclass(frozen=True)
class Cell:
    number: int          # among code cells, from 0, as nbval numbers them
    source: str
    outputs: list        # the committed outputs, streams coalesced
    check: bool          # compare outputs (False: NBVAL_IGNORE_OUTPUT, or never run)
    raises: bool         # an exception is expected (NBVAL_RAISES_EXCEPTION, raises-exception)
    skip: bool           # NBVAL_SKIP


def code_cells(path: Path) -> list[Cell]:
    """The notebook's code cells with nbval's options; an unrun cell with outputs is an error."""
    notebook = nbformat.read(path, as_version=4)
    cells = []
    for cell in (c for c in notebook.cells if c.cell_type == "code"):
        options = dict(find_metadata_tags(cell.metadata))
        options.update(find_comment_markers(cell.source))  # comments win, as in nbval
        unrun = cell.execution_count is None
        if unrun and cell.outputs:
            raise ValueError(f"{path.name} cell {len(cells)}: unrun reference cell has outputs")
        cells.append(Cell(len(cells), cell.source, coalesce_streams(cell.outputs),
                          check=options.get("check", True) and not unrun,
                          raises=bool(options.get("check_exception")),
                          skip=bool(options.get("skip"))))
    return cells


def sanitizer(config: Path):
    """nbval's ``--nbval-sanitize-with``: every regex/replace pair, applied in order."""
    patterns = get_sanitize_patterns(config.read_text())

    def sanitize(value):
        if isinstance(value, str):
            for regex, replace in patterns:
                value = re.sub(regex, replace, value)
        return value

    return sanitize


def _flatten(outputs, sanitize) -> dict[str, list]:
    """nbval's shape: each key (a data MIME type flattened out) to its values, in order."""
    flat = defaultdict(list)
    for output in transform_streams_for_comparison(outputs):
        for key, value in output.items():
            if key in SKIP_COMPARE:
                continue
            if key == "data":
                for mime, data in value.items():
                    if mime not in SKIP_COMPARE:
                        flat[mime].append(sanitize(data))
            else:
                flat[key].append(sanitize(value))
    return flat


def fingerprint(value) -> str:
    text = value if isinstance(value, str) else repr(value)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{len(text)} chars, sha256 {digest}"


def difference(got: list, expected: list, sanitize) -> str | None:
    """None when nbval would pass the cell, else what differs (keys, sizes, hashes)."""
    test, ref = _flatten(coalesce_streams(got), sanitize), _flatten(expected, sanitize)
    if set(ref) - set(test):
        return f"missing output fields {sorted(set(ref) - set(test))}"
    if set(test) - set(ref):
        return f"unexpected output fields {sorted(set(test) - set(ref))}"
    for key, ref_values in ref.items():
        test_values = test[key]
        if len(test_values) != len(ref_values):
            return f"{len(test_values)} outputs of {key!r}, the notebook has {len(ref_values)}"
        for number, (mine, theirs) in enumerate(zip(test_values, ref_values)):
            if mine != theirs:
                return (f"{key!r} output {number} differs: got {fingerprint(mine)}, "
                        f"the notebook has {fingerprint(theirs)}")
    return None
