"""Four fixtures give look-alike figures (issue 38, section 2): fixtures.py names each one and
its figures, measured here from the library, and a notebook that gives a fixture's figures in
its prose names the fixture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledgerlab import Turn, request_bytes, select
from ledgerlab.course import fixtures, measures, scenario

ROOT = Path(__file__).resolve().parents[2]


def tool_sizes() -> tuple[int, int]:
    tools = (fixtures.LOOKUP_TOOL,)
    alone = request_bytes(fixtures.TOOL_SYSTEM, [], fixtures.TOOL_QUESTION, tools=tools)
    full = request_bytes(fixtures.TOOL_SYSTEM, fixtures.TOOL_HISTORY, fixtures.TOOL_QUESTION,
                         tools=tools)
    return len(alone), len(full)


def scenario_sizes() -> tuple[int, int]:
    history = list(fixtures.SCENARIO_HISTORY)
    narrow = select(fixtures.SCENARIO_SYSTEM, history, fixtures.NEXT_STEP_QUESTION,
                    scenario.narrow_budget(history)).size
    wide_history = [*history, Turn(fixtures.NEXT_STEP_QUESTION,
                             fixtures.LOCAL_FIXTURE_REPLY)]
    wide = len(request_bytes(fixtures.SCENARIO_SYSTEM, wide_history, fixtures.WIDE_QUESTION))
    return narrow, wide


# The name the notebooks call each fixture by, and its figures, measured.
FIGURES = {
    "the slice fixture": lambda: measures.suffix_sizes(
        fixtures.SLICE_SYSTEM, fixtures.SLICE_HISTORY, fixtures.SLICE_QUESTION),
    "the boundary fixture": lambda: measures.suffix_sizes(
        fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY, fixtures.BOUNDARY_QUESTION),
    "the projection scenario": scenario_sizes,
    "the tool fixture": tool_sizes,
}


@pytest.mark.parametrize("name", FIGURES)
def test_fixtures_py_names_each_fixture_with_its_measured_figures(name):
    (line,) = [line for line in fixtures.__doc__.split("\n- ") if f"**{name}**" in line]
    stated = [int(n) for n in re.findall(r"(?<![\w-])(\d{3})(?![\w-])", line)]
    assert stated == list(FIGURES[name]()), (name, stated)


def prose(notebook: str) -> str:
    (path,) = (ROOT / "notebooks").glob(f"{notebook}-*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def shown(notebook: str) -> str:
    """The notebook's prose and its outputs' text."""
    (path,) = (ROOT / "notebooks").glob(f"{notebook}-*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    texts = [prose(notebook)]
    for cell in cells:
        for output in cell.get("outputs", []):
            texts.append("".join(output.get("text", "")))
            texts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


# Every lesson that gives a fixture's figures, and the fixture it names (11 gives none: its
# "308,280" is the photo's budget, not the boundary fixture's 308; 12's exercises are on a
# variant of their own).
NAMED = {"01": "the slice fixture", "02": "the slice fixture", "03": "the boundary fixture",
         "04": "the boundary fixture", "05": "the projection scenario",
         "06": "the projection scenario", "07": "the boundary fixture",
         "08": "the projection scenario", "09": "the projection scenario",
         "10": "the tool fixture"}


@pytest.mark.parametrize(("notebook", "name"), NAMED.items())
def test_a_notebook_names_the_fixture_whose_figures_it_gives(notebook, name):
    figures = [n for n in FIGURES[name]() if re.search(rf"(?<!\d){n}(?!\d)", shown(notebook))]
    assert figures, (notebook, name)  # it does show some of them
    assert name in prose(notebook).lower(), (notebook, name)
