"""The article's figures: the boundary table, the projection scenario, the audit's checks."""

import pytest

from ledgerlab import Journal, select_reference
from ledgerlab.course.fixtures import (OLD_FACT, SCENARIO_TURNS, SLICE_HISTORY, SLICE_QUESTION,
                                       SLICE_SYSTEM)
from ledgerlab.course.scenario import (
    REPORT_KEYS,
    boundary_rejection,
    boundary_table,
    message_count_slice,
    run_projection_scenario,
)

ARTICLE_REPORT = {
    "narrow_request_bytes": 264,
    "narrow_kept_turns": 1,
    "old_fact_in_narrow_request": False,
    "projection_preserved_file_bytes": True,
    "reopened_turns": 3,
    "wide_request_bytes": 480,
    "old_fact_in_wide_request": True,
    "rejected_request_preserved_file_bytes": True,
}


@pytest.mark.parametrize("selector", [None, select_reference])
def test_boundary_table_and_rejection(selector):
    options = {"selector": selector} if selector else {}
    assert boundary_table(**options) == [
        {"budget": 140, "retained": 0, "dropped": 2, "bytes": 140},
        {"budget": 235, "retained": 1, "dropped": 1, "bytes": 235},
        {"budget": 308, "retained": 2, "dropped": 0, "bytes": 308},
        {"budget": 408, "retained": 2, "dropped": 0, "bytes": 308},
    ]
    assert boundary_rejection(**options) == {"budget": 139, "mandatory_bytes": 140}


def test_scenario_report_is_the_articles(tmp_path):
    report = run_projection_scenario(tmp_path / "conversation.log")
    assert report == ARTICLE_REPORT
    assert tuple(report) == REPORT_KEYS


def test_scenario_log_reopens_to_three_turns_with_the_fact_in_turn_one(tmp_path):
    log = tmp_path / "conversation.log"
    run_projection_scenario(log)
    with Journal(log) as journal:
        history = journal.history()
        assert len(history) == 3
        assert OLD_FACT in history[0].question
        assert journal.find("one") == SCENARIO_TURNS[0][1]


def test_scenario_refuses_an_existing_log(tmp_path):
    log = tmp_path / "conversation.log"
    log.write_bytes(b"")
    with pytest.raises(FileExistsError):
        run_projection_scenario(log)
    assert log.read_bytes() == b""


def test_message_count_slice_orphans_an_answer_and_drops_the_system_message():
    sliced = message_count_slice(SLICE_SYSTEM, SLICE_HISTORY, SLICE_QUESTION, 4)
    assert [m["content"] for m in sliced] == ["A2", "U3", "A3", "U4"]
    assert sliced[0]["role"] == "assistant"
