"""teacher/TEACHING.md: cell references point at the cells they name; plans fit their time."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
GUIDE = (ROOT / "teacher" / "TEACHING.md").read_text(encoding="utf-8")


def notebook(number):
    return json.loads(next(NOTEBOOKS.glob(f"{number}-*.ipynb")).read_text())["cells"]


def source(number, cell):
    """The source of ``cell``, numbered from 1 as JupyterLab's status bar and the guide number it."""
    return "".join(notebook(number)[cell - 1]["source"])


REFERENCE = re.compile(r"\b(0\d) · (\d+)(?:–(\d+))?")


def test_every_cell_reference_is_inside_its_notebook():
    found = REFERENCE.findall(GUIDE)
    assert len(found) > 30
    for number, first, last in found:
        assert 1 <= int(first) <= int(last or first) <= len(notebook(number)), f"{number} · {first}–{last}"


def test_every_pause_points_at_a_prediction_and_its_check():
    pauses = re.findall(r"\*\*(?:[Pp]ause at )?(0\d) · (\d+)–(\d+)", GUIDE)
    assert len(pauses) >= 10
    for number, prompt, check in pauses:
        assert "**Predict" in source(number, int(prompt)) or "**Think" in source(number, int(prompt))
        assert ".check(my_answer)" in source(number, int(check)), f"{number} · {check}"


def contents_minutes():
    table = next("".join(c["source"]) for c in notebook("00")
                 if "".join(c["source"]).startswith("## The series"))
    listed = dict(re.findall(r"^\| \[(\d\d) · [^]]+\]\(.*?\) \|.*\| (\d+) \|$", table,
                             re.MULTILINE))
    first = "".join(notebook("00")[0]["source"])
    listed["00"] = re.search(r"\*\*Time:\*\* about (\d+) minutes", first).group(1)
    return {number: int(minutes) for number, minutes in listed.items()}


def plan(heading):
    """The (start, end, notebook column) rows of the table under ``heading``."""
    text = GUIDE[GUIDE.index(heading):]
    text = text[:text.index("\n\n", text.index("|---"))]
    return [(int(a), int(b), where) for a, b, where in
            re.findall(r"^\| (\d+)–(\d+) \| ([^|]+?) \|", text, re.MULTILINE)]


@pytest.mark.parametrize("heading, length", [
    ("## A 45-minute session", 45),
    ("## The whole lesson in one 90-minute session", 90),
    ("### Session 1 (113 minutes)", 113),
    ("### Session 2 (114 minutes)", 114),
])
def test_each_plan_runs_from_its_start_to_its_end_without_gaps(heading, length):
    rows = plan(heading)
    assert rows[0][0] == 0 and rows[-1][1] == length
    assert all(end == next_start for (_, end, _), (next_start, _, _) in zip(rows, rows[1:]))


def test_the_whole_course_gives_each_notebook_its_own_estimate():
    minutes = contents_minutes()
    rows = plan("### Session 1 (113 minutes)") + plan("### Session 2 (114 minutes)")
    assert [where for _, _, where in rows] == [f"{n:02}" for n in range(10)]
    for start, end, where in rows:
        assert end - start == minutes[where], where


def test_the_90_minute_session_covers_the_whole_lesson_with_slack():
    rows = plan("## The whole lesson in one 90-minute session")
    assert [where.split(" ·")[0] for _, _, where in rows] == [f"{n:02}" for n in range(10)] + ["slack"]
    start, end, _ = rows[-1]
    assert 10 <= end - start <= 15


def test_the_45_minute_session_keeps_the_length_trap_and_orchid_17s_return():
    notebooks = [where.split(" ·")[0] for _, _, where in plan("## A 45-minute session")]
    assert "03" in notebooks and "05" in notebooks
    assert "ORCHID-17" in GUIDE[GUIDE.index("## A 45-minute session"):GUIDE.index("## The whole lesson")]
