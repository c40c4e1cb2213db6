"""The whole-turn rule: the article's figures, the contract, and select == select_reference."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerlab import BudgetError, Turn, byte_breakdown, request_bytes, select, select_reference
from ledgerlab.article import (
    BOUNDARY_HISTORY,
    BOUNDARY_QUESTION,
    BOUNDARY_SYSTEM,
    SLICE_HISTORY,
    SLICE_QUESTION,
    SLICE_SYSTEM,
    message_count_slice,
)
from ledgerlab.wire import ENCODERS

SELECTORS = [select, select_reference]
FIXTURE = (BOUNDARY_SYSTEM, list(BOUNDARY_HISTORY), BOUNDARY_QUESTION)


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize(
    "budget, kept, dropped, size",
    [(140, 0, 2, 140), (235, 1, 1, 235), (308, 2, 0, 308), (408, 2, 0, 308)],
)
def test_boundary_table(selector, budget, kept, dropped, size):
    system, history, current = FIXTURE
    chosen = selector(system, history, current, budget)
    assert (chosen.kept, chosen.dropped, chosen.size) == (kept, dropped, size)
    assert chosen.payload == request_bytes(system, history[len(history) - kept:], current)


@pytest.mark.parametrize("selector", SELECTORS)
def test_139_is_rejected_and_history_keeps_two_turns(selector):
    system, history, current = FIXTURE
    before = copy.deepcopy(history)
    with pytest.raises(BudgetError) as caught:
        selector(system, history, current, 139)
    assert (caught.value.mandatory_bytes, caught.value.budget) == (140, 139)
    assert isinstance(caught.value, ValueError)
    assert history == before and len(history) == 2


@pytest.mark.parametrize("selector", SELECTORS)
def test_budget_between_boundaries_keeps_what_fits(selector):
    system, history, current = FIXTURE
    assert selector(system, history, current, 234).kept == 0
    assert selector(system, history, current, 307).kept == 1


@pytest.mark.parametrize("selector", SELECTORS)
def test_large_newest_turn_is_not_skipped_to_pack_an_older_one(selector):
    history = [Turn("old", "short"), Turn("new", "x" * 5000)]
    only_older = len(request_bytes("sys", history[:1], "now"))
    chosen = selector("sys", history, "now", only_older)
    assert (chosen.kept, chosen.dropped) == (0, 2)
    assert chosen.payload == request_bytes("sys", [], "now")


@pytest.mark.parametrize("selector", SELECTORS)
def test_whole_turn_slice_keeps_system_and_pairs(selector):
    history = list(SLICE_HISTORY)
    budget = len(request_bytes(SLICE_SYSTEM, history[-1:], SLICE_QUESTION))
    chosen = selector(SLICE_SYSTEM, history, SLICE_QUESTION, budget)
    assert chosen.kept == 1
    assert chosen.payload == request_bytes(SLICE_SYSTEM, [Turn("U3", "A3")], SLICE_QUESTION)


def test_message_count_slice_orphans_an_answer_and_drops_the_system_message():
    sliced = message_count_slice(SLICE_SYSTEM, SLICE_HISTORY, SLICE_QUESTION, 4)
    assert [m["content"] for m in sliced] == ["A2", "U3", "A3", "U4"]
    assert sliced[0]["role"] == "assistant"


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("budget", [0, -1, True, False, 1.5, 140.0, "140", None])
def test_budget_must_be_a_positive_int(selector, budget):
    system, history, current = FIXTURE
    with pytest.raises((TypeError, ValueError)) as caught:
        selector(system, history, current, budget)
    assert not isinstance(caught.value, BudgetError)


def test_selection_repr_shows_counts_and_sizes_never_text():
    chosen = select("SECRET-MARKER", [Turn("SECRET-MARKER", "SECRET-MARKER")], "SECRET-MARKER",
                    10_000)
    assert "SECRET" not in repr(chosen)
    assert repr(chosen) == f"Selection(kept=1, dropped=0, bytes={chosen.size}, budget=10000)"


@pytest.mark.parametrize("selector", SELECTORS)
def test_any_iterable_history_is_accepted_and_a_list_is_never_mutated(selector):
    history = list(BOUNDARY_HISTORY)
    for turns in (history, tuple(history), iter(history), (turn for turn in history)):
        assert selector(BOUNDARY_SYSTEM, turns, BOUNDARY_QUESTION, 235).kept == 1
    assert history == list(BOUNDARY_HISTORY) and len(history) == 2


def test_the_encoder_presets_cannot_be_changed():
    with pytest.raises(TypeError):
        ENCODERS["pretty"] = ENCODERS["gson"]


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_byte_breakdown_adds_up_to_the_request(encoder):
    parts = byte_breakdown(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION, encoder=encoder)
    total = parts["envelope"] + parts["system"] + sum(parts["turns"]) + parts["question"]
    full = request_bytes(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION, encoder=encoder)
    assert total == len(full)
    assert parts["envelope"] + parts["system"] + parts["question"] == len(
        request_bytes(BOUNDARY_SYSTEM, [], BOUNDARY_QUESTION, encoder=encoder))


# --- select is byte-identical to the article's loop --------------------------------
# Characters that change byte counts: escapes, control characters, line separators,
# multi-byte UTF-8, astral characters (two UTF-16 units), and plain ASCII.
SPECIAL = st.sampled_from(list('"\\\n\r\t\b\f\x00\x01\x1f\x7f\u2028\u2029é接🙂a /<>&\''))
TEXT = st.text(alphabet=st.one_of(SPECIAL, st.characters(exclude_categories=["Cs"])),
               max_size=30)
TURNS = st.lists(st.builds(Turn, TEXT, TEXT), max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(system=TEXT, history=TURNS, current=TEXT, encoder=st.sampled_from(sorted(ENCODERS)),
       model=st.sampled_from(["agnes-3.0-flash", "m\u2028\"é"]), slack=st.integers(-40, 40),
       pick=st.integers(0, 12))
def test_select_equals_select_reference(system, history, current, encoder, model, slack, pick):
    # Budgets around a real boundary: the exact size of some suffix, plus or minus a little.
    suffix = history[len(history) - min(pick, len(history)):]
    boundary = len(request_bytes(system, suffix, current, model=model, encoder=encoder))
    budget = max(1, boundary + slack)
    options = dict(model=model, encoder=encoder)
    try:
        expected = select_reference(system, history, current, budget, **options)
    except BudgetError as error:
        with pytest.raises(BudgetError) as caught:
            select(system, history, current, budget, **options)
        assert caught.value.mandatory_bytes == error.mandatory_bytes
        return
    assert select(system, history, current, budget, **options) == expected
