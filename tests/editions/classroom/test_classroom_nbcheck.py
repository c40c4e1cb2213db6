"""The classroom run's cell comparison agrees with strict nbval, and never prints outputs.

(The class itself runs with ``make test-classroom``; these checks are fast and run in
``make test``.)
"""

import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "editions" / "classroom"))
from nbcheck import code_cells, difference, sanitizer  # noqa: E402  (editions/classroom)
from run_class import places  # noqa: E402  (editions/classroom/run_class.py)

SANITIZE = sanitizer(ROOT / "notebooks" / "nbval-sanitize.cfg")
SECRET = "My project code is ORCHID-17."


def text(value, mime="text/plain"):
    return new_output("execute_result", data={mime: value}, execution_count=1)


def stream(value, name="stdout"):
    return new_output("stream", name=name, text=value)


def write(tmp_path, *cells):
    path = tmp_path / "n.ipynb"
    nbformat.write(new_notebook(cells=list(cells)), path)
    return path


@pytest.mark.parametrize("notebook", ["02-bad-slice-vs-whole-turn", "04-the-boundary-table",
                                      "05-the-ledger"])
def test_the_committed_outputs_match_themselves(notebook):
    cells = code_cells(ROOT / "notebooks" / f"{notebook}.ipynb")
    assert cells and all(difference(c.outputs, c.outputs, SANITIZE) is None for c in cells)


def test_the_raises_exception_tag_is_read():
    cells = code_cells(ROOT / "notebooks" / "04-the-boundary-table.ipynb")
    raising = [c for c in cells if c.raises]
    assert raising and all("139" in c.source for c in raising)


def test_a_changed_text_output_is_reported_without_its_text():
    problem = difference([text(SECRET + "!")], [text(SECRET)], SANITIZE)
    assert "text/plain" in problem and "sha256" in problem
    assert "ORCHID" not in problem


def test_streams_are_coalesced_and_memory_addresses_sanitized():
    assert difference([stream("a "), stream("b\n")], [stream("a b\n")], SANITIZE) is None
    assert difference([text("<X at 0x7f00aa>")], [text("<X at 0x5511bc>")], SANITIZE) is None
    assert difference([stream("a\n", "stderr")], [stream("a\n")], SANITIZE) is not None


def test_missing_and_extra_outputs_fail():
    assert "missing" in difference([], [text("1")], SANITIZE)
    assert "unexpected" in difference([text("1"), stream("x")], [text("1")], SANITIZE)
    assert "outputs of" in difference([stream("x"), text("1"), text("2")],
                                      [stream("x"), text("1")], SANITIZE)


def test_images_and_widget_ids_are_not_compared():
    widget = "application/vnd.jupyter.widget-view+json"
    got = [new_output("display_data", data={"image/png": "AAAA", widget: {"model_id": "1"},
                                            "text/plain": "<Figure>"})]
    ref = [new_output("display_data", data={"image/png": "BBBB", widget: {"model_id": "2"},
                                            "text/plain": "<Figure>"})]
    assert difference(got, ref, SANITIZE) is None


def test_exceptions_compare_type_and_value_not_traceback():
    def error(value, trace):
        return new_output("error", ename="BudgetError", evalue=value, traceback=[trace])
    assert difference([error("140 > 139", "a")], [error("140 > 139", "b")], SANITIZE) is None
    assert difference([error("140 > 138", "a")], [error("140 > 139", "a")], SANITIZE)


def test_markers_and_unrun_cells(tmp_path):
    ignored = new_code_cell("# NBVAL_IGNORE_OUTPUT\n1", execution_count=1, outputs=[text("1")])
    skipped = new_code_cell("# NBVAL_SKIP\n2", execution_count=2)
    unrun = new_code_cell("3")
    raises = new_code_cell("4", execution_count=3, metadata={"tags": ["raises-exception"]})
    cells = code_cells(write(tmp_path, ignored, skipped, unrun, raises))
    assert [(c.number, c.check, c.skip, c.raises) for c in cells] == [
        (0, False, False, False), (1, True, True, False), (2, False, False, False),
        (3, True, False, True)]
    with pytest.raises(ValueError, match="unrun reference cell has outputs"):
        code_cells(write(tmp_path, new_code_cell("5", outputs=[text("5")])))


def test_written_places_are_folded():
    assert places({"temp:tmpab12", "temp:tmpab12/conversation.log", "home:.cache",
                   "home:.cache/matplotlib", "home:.cache/matplotlib/fontlist.json"}) == [
        "home:.cache/matplotlib/fontlist.json", "temp:tmp*/conversation.log"]
