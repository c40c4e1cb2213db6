"""teacher/TEACHING.md: cell references point at the cells they name; plans fit their time."""

import json
import re
from pathlib import Path

import pytest

from ledgerlab.course import syllabus

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
GUIDE = (ROOT / "teacher" / "TEACHING.md").read_text(encoding="utf-8")


def notebook(number):
    return json.loads(next(NOTEBOOKS.glob(f"{number}-*.ipynb")).read_text())["cells"]


def source(number, cell):
    """The source of ``cell``, numbered from 1 as JupyterLab's status bar and the guide number it."""
    return "".join(notebook(number)[cell - 1]["source"])


REFERENCE = re.compile(r"\b(\d\d) · (\d+)(?:–(\d+))?")


def test_every_cell_reference_is_inside_its_notebook():
    found = REFERENCE.findall(GUIDE)
    assert len(found) > 30
    for number, first, last in found:
        assert 1 <= int(first) <= int(last or first) <= len(notebook(number)), f"{number} · {first}–{last}"


def test_every_pause_points_at_a_prediction_and_its_check():
    pauses = re.findall(r"\*\*(?:[Pp]ause at )?(\d\d) · (\d+)–(\d+)", GUIDE)
    assert len(pauses) >= 10
    for number, prompt, check in pauses:
        assert "**Predict" in source(number, int(prompt)) or "**Think" in source(number, int(prompt))
        assert ".check(my_answer)" in source(number, int(check)), f"{number} · {check}"


def plan(heading):
    """The (start, end, notebook column) rows of the table under ``heading``."""
    text = GUIDE[GUIDE.index(heading):]
    text = text[:text.index("\n\n", text.index("|---"))]
    return [(int(a), int(b), where) for a, b, where in
            re.findall(r"^\| (\d+)–(\d+) \| ([^|]+?) \|", text, re.MULTILINE)]


SESSIONS = re.findall(r"^(### Session \d \((\d+) minutes\))", GUIDE, re.MULTILINE)
PLANS = [("## A 45-minute session", 45), ("## The whole lesson in one 90-minute session", 90),
         *((heading, int(length)) for heading, length in SESSIONS)]


@pytest.mark.parametrize("heading, length", PLANS)
def test_each_plan_runs_from_its_start_to_its_end_without_gaps(heading, length):
    rows = plan(heading)
    assert rows[0][0] == 0 and rows[-1][1] == length
    assert all(end == next_start for (_, end, _), (next_start, _, _) in zip(rows, rows[1:]))


def test_the_whole_course_gives_each_notebook_its_own_minutes():
    assert len(SESSIONS) == 2
    rows = [row for heading, _ in SESSIONS for row in plan(heading)]
    # the contents and every lesson, not the exercises or their solutions
    assert [where for _, _, where in rows] == [f"{n:02}" for n in range(syllabus.EXERCISES.number)]
    for start, end, where in rows:
        assert end - start == syllabus.lesson(int(where)).minutes, where


def plan_rows(heading):
    """The (minutes, what to do) of each row of the table under ``heading``."""
    text = GUIDE[GUIDE.index(heading):]
    text = text[:text.index("\n\n", text.index("|---"))]
    return [(int(b) - int(a), what) for a, b, what in
            re.findall(r"^\| (\d+)–(\d+) \| [^|]+? \| (.*) \|$", text, re.MULTILINE)]


@pytest.mark.parametrize("heading, length", PLANS)
def test_each_pause_has_three_minutes_of_its_row(heading, length):
    """A pause is read, guessed, checked and talked over: about three minutes of its row."""
    for minutes, what in plan_rows(heading):
        pauses = len(re.findall(r"\*\*(?:[Pp]ause at )?\d\d · \d+–\d+", what))
        assert minutes >= 3 * pauses, (heading, what[:60])


def test_the_90_minute_session_covers_the_whole_lesson_with_slack_and_a_pause_at_most_in_each():
    heading = "## The whole lesson in one 90-minute session"
    rows = plan(heading)
    assert [where.split(" ·")[0] for _, _, where in rows] == [f"{n:02}" for n in range(11)] + ["slack"]
    start, end, _ = rows[-1]
    assert 10 <= end - start <= 15
    assert all(what.lower().count("pause at") <= 1 for _, what in plan_rows(heading))


def test_the_45_minute_session_keeps_the_length_trap_and_orchid_17s_return_with_slack():
    rows = plan("## A 45-minute session")
    notebooks = [where.split(" ·")[0] for _, _, where in rows]
    assert "03" in notebooks and "05" in notebooks
    start, end, where = rows[-1]
    assert where == "slack" and end - start >= 5
    assert "ORCHID-17" in GUIDE[GUIDE.index("## A 45-minute session"):GUIDE.index("## The whole lesson")]
