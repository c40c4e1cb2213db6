"""A handed-in notebook read for grading: parsed once, without its outputs, then validated.

Nothing a notebook's saved outputs hold is graded (the sandbox runs it anew), and checking
them costs the grader: nbformat validated 20,000 invalid outputs in 17 s (about 1 ms each, measured here), before
any time limit started. So the outputs, execution counts and attachments are dropped first,
each cell's shape (type and source, what grading reads) is checked here in one pass, and
nbformat validates only what is left. A notebook that fails is that student's 0 with a
reason that names the cell by number, never its content.
"""

from __future__ import annotations

import json

import nbformat

CELL_TYPES = ("code", "markdown", "raw")


def parse_notebook(data: bytes):
    """The notebook in ``data`` (a NotebookNode of format 4, every source a str, no
    outputs), or why it is not graded: a str ending "not graded"."""
    try:
        found = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        return "not a notebook (not UTF-8 text): not graded"
    except (ValueError, RecursionError):
        return "not a notebook (not JSON): not graded"
    if isinstance(found, dict) and found.get("nbformat") == 3:  # Jupyter before 2015
        try:
            found = nbformat.convert(nbformat.from_dict(found), 4)
        except Exception:  # the converter raises several kinds for a broken file
            return "not a notebook (a format 3 notebook that cannot be read): not graded"
    problem = _shape_problem(found)
    if problem:
        return f"not a valid notebook ({problem}): not graded"
    notebook = nbformat.from_dict(found)
    try:
        nbformat.validate(notebook)
    except Exception as error:  # a ValidationError, or no schema for its nbformat_minor
        return f"not a valid notebook ({_where(error)} does not follow the notebook format): not graded"
    return notebook


def _shape_problem(found: object) -> str:
    """What is wrong with ``found`` as a format 4 notebook, "" if nothing grading reads is;
    on the way, each cell's outputs are dropped, its source joined into one str and its id
    made plain (ids are not graded, and a missing one is all nbformat would warn of)."""
    if not isinstance(found, dict) or found.get("nbformat") != 4:
        return "not a notebook of format 4"
    if type(found.get("nbformat_minor")) is not int:
        return "no nbformat_minor"
    cells = found.get("cells")
    if not isinstance(cells, list):
        return "no list of cells"
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            return f"cell {number} is not a cell"
        if "cell_type" not in cell:
            return f"cell {number} has no cell_type"
        if cell["cell_type"] not in CELL_TYPES:
            return f"cell {number} has a cell_type that is not code, markdown or raw"
        source = cell.get("source")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            cell["source"] = "".join(source)
        elif not isinstance(source, str):
            return f"cell {number} has {'no source' if source is None else 'a source that is not text'}"
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cell.pop("attachments", None)
        if found["nbformat_minor"] >= 5:
            cell["id"] = f"cell-{number}"
        else:
            cell.pop("id", None)
    return ""


def _where(error: Exception) -> str:
    """The part of the notebook a validation error is in, by cell number: never a key or a
    value of the student's, which the error's own message would quote."""
    path = list(getattr(error, "absolute_path", ()))
    if len(path) >= 2 and path[0] == "cells" and type(path[1]) is int:
        return f"cell {path[1] + 1}"
    if path[:1] == ["metadata"]:
        return "its metadata"
    return "its top level"
