"""The whole-turn rule: the article's figures and the contract, select and select_reference
alike (that they are equal on random histories is in test_oracle.py)."""

import copy

import pytest

from ledgerlab import (BudgetError, Turn, byte_breakdown, request_bytes, request_tokens, select,
                       select_reference)
from ledgerlab.course.fixtures import (
    BOUNDARY_HISTORY,
    BOUNDARY_QUESTION,
    BOUNDARY_SYSTEM,
    SLICE_HISTORY,
    SLICE_QUESTION,
    SLICE_SYSTEM,
)
from ledgerlab import ENCODERS

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


# --- Two limits: bytes on the wire and tokens in the window -------------------------
# The fixture's request: 140 bytes / 20 tokens mandatory, 308 bytes / 45 tokens in full
# (o200k_base); the newest turn alone adds 95 bytes and some tokens.

def fixture_tokens(kept, tokenizer="o200k_base"):
    system, history, current = FIXTURE
    return request_tokens(system, history[len(history) - kept:], current, tokenizer=tokenizer)


@pytest.mark.parametrize("selector", SELECTORS)
def test_without_a_token_limit_there_is_no_token_count(selector):
    chosen = selector(*FIXTURE, 308)
    assert chosen.tokens is None
    assert repr(chosen) == "Selection(kept=2, dropped=0, bytes=308, budget=308)"


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("tokenizer", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("kept", [0, 1, 2])
def test_the_token_limit_keeps_the_suffix_that_fits_with_the_reserve(selector, tokenizer, kept):
    reserve = 50
    limit = fixture_tokens(kept, tokenizer) + reserve
    chosen = selector(*FIXTURE, 408, max_tokens=limit, reserve_tokens=reserve,
                      tokenizer=tokenizer)
    assert (chosen.kept, chosen.tokens) == (kept, fixture_tokens(kept, tokenizer))
    # One token less and the oldest kept turn no longer fits (nor, with none, the question).
    tighter = dict(max_tokens=limit - 1, reserve_tokens=reserve, tokenizer=tokenizer)
    if kept:
        assert selector(*FIXTURE, 408, **tighter).kept == kept - 1
    else:
        with pytest.raises(BudgetError):
            selector(*FIXTURE, 408, **tighter)
    assert f"tokens={chosen.tokens})" in repr(chosen)


@pytest.mark.parametrize("selector", SELECTORS)
def test_bytes_pass_but_tokens_reject_and_the_reverse(selector):
    # 408 bytes hold the whole request, but 19 tokens do not hold the mandatory 20.
    with pytest.raises(BudgetError) as caught:
        selector(*FIXTURE, 408, max_tokens=19)
    error = caught.value
    assert (error.limit, error.mandatory_tokens, error.max_tokens) == ("tokens", 20, 19)
    assert "20 tokens" in str(error) and "limit is 19" in str(error)
    # 1,000 tokens hold everything, but 139 bytes do not hold the mandatory 140.
    with pytest.raises(BudgetError) as caught:
        selector(*FIXTURE, 139, max_tokens=1000)
    error = caught.value
    assert (error.limit, error.mandatory_bytes, error.budget) == ("bytes", 140, 139)
    assert error.mandatory_tokens is None


@pytest.mark.parametrize("selector", SELECTORS)
def test_the_reserve_is_what_makes_the_mandatory_input_fail(selector):
    assert selector(*FIXTURE, 408, max_tokens=30, reserve_tokens=10).kept == 0
    with pytest.raises(BudgetError) as caught:
        selector(*FIXTURE, 408, max_tokens=30, reserve_tokens=11)
    assert (caught.value.limit, caught.value.reserve_tokens) == ("tokens", 11)


@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("options, error", [
    (dict(max_tokens=100, reserve_tokens=-1), ValueError),
    (dict(max_tokens=100, reserve_tokens=100), ValueError),
    (dict(max_tokens=100, reserve_tokens=250), ValueError),
    (dict(reserve_tokens=10), ValueError),
    (dict(max_tokens=0), ValueError),
    (dict(max_tokens=100, tokenizer="gpt2"), ValueError),
    (dict(tokenizer="o200k"), ValueError),
    (dict(max_tokens=100.0), TypeError),
    (dict(max_tokens=True), TypeError),
    (dict(max_tokens=100, reserve_tokens=1.5), TypeError),
])
def test_bad_token_options_are_typed_errors(selector, options, error):
    with pytest.raises(error) as caught:
        selector(*FIXTURE, 408, **options)
    assert not isinstance(caught.value, BudgetError)


def test_select_counts_tokens_only_for_the_turns_it_keeps(monkeypatch):
    from ledgerlab import tokens

    count = tokens.counter("o200k_base")
    counted = []
    real = count.turn
    monkeypatch.setattr(count, "turn", lambda turn: counted.append(turn) or real(turn))
    history = [Turn(f"question {i}", f"answer {i}") for i in range(20_000)]
    chosen = select("sys", history, "now", 10**9, max_tokens=300)
    assert 0 < chosen.kept < 50
    assert len(counted) == chosen.kept + 1  # the kept turns and the one that did not fit
