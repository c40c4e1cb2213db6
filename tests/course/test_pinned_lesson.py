"""Notebook 08's course layer: its fixture, the budget split, the facts explorer, exercise 8."""

import pytest
from traitlets import TraitError

from ledgerlab import request_bytes, select
from ledgerlab.course import charts, fixtures, measures, scenario
from ledgerlab.course.exercises import ARTICLE, q8  # the article's fixture: exercise 8 on 08's figures
from ledgerlab.course.widgets import FactsExplorer
from sentences import saying, says

FIXTURE = (fixtures.SCENARIO_SYSTEM, fixtures.SCENARIO_HISTORY, fixtures.NEXT_STEP_QUESTION)
MANDATORY = len(request_bytes(fixtures.SCENARIO_SYSTEM, [], fixtures.NEXT_STEP_QUESTION))


def test_the_fixture_is_notebook_05s_scenario_with_its_figures():
    assert MANDATORY == 157
    assert select(*FIXTURE, 264).kept == 1  # notebook 05's narrow request
    pinned = select(*FIXTURE, 10_000, facts=fixtures.PINNED_FACTS)
    assert (pinned.facts_kept, pinned.fact_bytes, pinned.size) == (2, 101, 466)
    assert select(*FIXTURE, 10_000, facts=fixtures.PINNED_FACTS[:1]).fact_bytes == 67


@pytest.mark.parametrize("budget", [157, 223, 224, 257, 258, 264, 364, 365, 465, 466, 600])
@pytest.mark.parametrize("cap", [None, 0, 66, 67, 100, 101])
def test_each_split_adds_up_to_what_select_sends(budget, cap):
    split, = measures.budget_split(*FIXTURE, fixtures.PINNED_FACTS, [budget], max_fact_bytes=cap)
    chosen = select(*FIXTURE, budget, facts=fixtures.PINNED_FACTS, max_fact_bytes=cap)
    assert split.sent == chosen.size and split.mandatory == MANDATORY
    assert (split.facts, split.facts_kept, split.turns_kept) == \
        (chosen.fact_bytes, chosen.facts_kept, chosen.kept)
    assert split.turns == chosen.size - MANDATORY - chosen.fact_bytes


def test_a_budget_below_the_mandatory_input_is_a_gap_in_the_split():
    assert measures.budget_split(*FIXTURE, fixtures.PINNED_FACTS, [156, 157])[0] is None


def test_the_split_chart_says_where_each_part_arrives():
    chart = charts.budget_split_chart(*FIXTURE, fixtures.PINNED_FACTS, range(140, 501), budget=264)
    text = chart.description
    assert "rejected below 157 bytes" in text
    for step in ("from 224: 1 fact (67 bytes), 0 turns", "from 258: 2 facts (101 bytes)",
                 "from 365: 2 facts (101 bytes), 1 turn (107 bytes), 365 sent",
                 "from 466: 2 facts (101 bytes), 2 turns (208 bytes), 466 sent"):
        assert step in text, step
    says(text, "264 bytes", "mandatory", 157, "facts", 101, "turns", 0, "258 bytes",
         in_order=True)  # the marked budget, part by part
    assert chart.png().startswith(b"\x89PNG")


def test_under_a_cap_the_chart_shows_no_fact_where_the_first_does_not_fit():
    text = charts.budget_split_chart(*FIXTURE, fixtures.PINNED_FACTS, range(140, 501),
                                     max_fact_bytes=66).description
    assert "facts cap 66 bytes" in text
    assert "1 fact (" not in text and "2 facts (" not in text
    assert "from 264: 0 facts (0 bytes), 1 turn (107 bytes), 264 sent" in text


def test_the_explorer_moves_with_both_sliders():
    explorer = FactsExplorer(budget=365)
    assert explorer.cap_slider.value == 101  # starts where every fact fits, as no cap would
    says(explorer.summary, "budget", "365 bytes", "facts cap", "101 bytes", "2 of 2 facts",
         "1 of 2 turns", "365 bytes", in_order=True)
    explorer.cap_slider.value = 66
    says(explorer.summary, "0 of 2 facts", "2 of 2 turns", "365 bytes", "mandatory", 157,
         "facts", 0, "turns", 208, "365 bytes", in_order=True)
    assert "facts cap 66 bytes" in explorer.description
    explorer.budget_slider.value = 150
    says(explorer.summary.splitlines()[-1], "BudgetError", "mandatory input", "157 bytes",
         in_order=True)
    assert explorer.errors.outputs == ()


def test_the_explorer_refuses_a_cap_outside_its_slider():
    explorer = FactsExplorer()
    with pytest.raises(TraitError, match=saying("facts cap", "162 bytes", "range", 0,
                                                "161 bytes")):
        explorer.cap_slider.value = 162
    assert explorer.cap_slider.value == 101


def test_trace_finds_the_text_raw_or_decoded_and_reports_only_booleans(tmp_path):
    with scenario.pinned_journal(tmp_path / "conversation.log") as journal:
        assert scenario.trace(tmp_path, "ORCHID-17") == {"conversation.log": True,
                                                        "conversation.log.facts": True}
        journal.forget("one")
        assert scenario.trace(tmp_path, "ORCHID-17") == {"conversation.log": False,
                                                        "conversation.log.facts": False}
        assert scenario.trace(tmp_path, "Java 8") == {"conversation.log": True,
                                                     "conversation.log.facts": True}
    (tmp_path / "notes.txt").write_bytes(b"ORCHID-17 in plain text")
    assert scenario.trace(tmp_path, "ORCHID-17")["notes.txt"] is True


@pytest.mark.parametrize("answer, named", [
    (264, "no fact"),
    (365, "two facts of section 3"),
    (394, "which JSON writes as \\n (2 bytes)"),
    (425, "a message of its own"),
    (361, "not the system message that carries them"),
    (289, "3 of 3 facts and 0 turns"),
    (395, "0 turns"),
    (397, "find the smallest"),
    (156, "below the mandatory input"),
    (-5, "positive"),
    ("396", "not a str"),
])
def test_q8_names_the_mistake(answer, named):
    feedback = q8.check(answer, fixture=ARTICLE)
    assert feedback.status == "incorrect" and named in feedback.message
    assert "396" not in feedback.message


def test_q8_accepts_the_smallest_budget_and_explains_it():
    feedback = q8.check(396, fixture=ARTICLE)
    assert feedback.status == "correct"
    says(feedback.message, 396, "157 mandatory", 132, "three facts", 107, "turn two",
         in_order=True)
