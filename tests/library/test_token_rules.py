"""Each provider's own token rules, checked on its docs' worked examples, and the label every
token figure carries (``TokenCount``: exact or an estimate, and why)."""

from __future__ import annotations

import copy
import math
import pickle
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledgerlab import (ProviderTool, Selection, TokenCount, Tool, Turn, byte_breakdown,
                       image_tokens, request_bytes, request_tokens, select, select_reference,
                       text_tokens, tool_tokens)
from ledgerlab.dialects import (ANTHROPIC_TOOL_PROMPT, anthropic_image_tokens,
                                anthropic_tool_prompt, openai_image_tokens, request_basis)
from test_image_tokens import sized
from tiers import examples

OPENAI, ANTHROPIC = "openai-chat", "anthropic-messages"
TOOL = Tool("lookup", "Look a key up.", {"type": "object", "properties": {
    "key": {"type": "string", "description": "The key."}}})


# --- Anthropic's image rule: the vision guide's own figures --------------------------------

@pytest.mark.parametrize(("width", "height", "tokens"), [
    (200, 200, 54), (1000, 1000, 1334), (1092, 1092, 1590),  # "Calculate image costs"
])
def test_anthropics_worked_examples(width, height, tokens):
    assert image_tokens(sized(width, height), ANTHROPIC) == tokens


@pytest.mark.parametrize(("width", "height"), [
    (1092, 1092), (951, 1268), (896, 1344), (819, 1456), (784, 1568),
])
def test_the_largest_sizes_anthropic_does_not_resize_use_about_1600_tokens(width, height):
    tokens = image_tokens(sized(width, height), ANTHROPIC)
    assert 1580 <= tokens <= 1600
    assert image_tokens(sized(height, width), ANTHROPIC) == tokens


def test_anthropic_scales_the_long_edge_to_1568_and_caps_at_1600():
    # 4000x500: the long edge to 1568 keeps 196 px of height: 1568 * 196 / 750 = 409.8
    assert image_tokens(sized(4000, 500), ANTHROPIC) == 410
    assert image_tokens(sized(1568, 100), ANTHROPIC) == math.ceil(1568 * 100 / 750)
    assert image_tokens(sized(8000, 8000), ANTHROPIC) == 1600  # 1568x1568 is over 1,600
    assert image_tokens(sized(2048, 4096), ANTHROPIC) == 1600  # 784x1568: about 1,600
    assert image_tokens(sized(1, 1), ANTHROPIC) == 1


@given(st.integers(1, 8000), st.integers(1, 8000))
@settings(max_examples=examples(300))
def test_anthropics_rule_in_exact_arithmetic(width, height):
    scale = min(Fraction(1), Fraction(1568, max(width, height)))
    expected = min(math.ceil(width * height * scale * scale / 750), 1600)
    assert anthropic_image_tokens(width, height) == expected
    assert image_tokens(sized(width, height), ANTHROPIC) == expected


# --- OpenAI's rules: the images guide's examples, the models each applies to ---------------

def test_openais_tile_rule_is_gpt_4os_by_default_in_every_openai_dialect():
    assert image_tokens(sized(1024, 1024)) == 765  # the guide's examples, for gpt-4o
    assert image_tokens(sized(2048, 4096), OPENAI) == 1105
    for model in ("gpt-4o", "gpt-4.1", "gpt-4o-2024-08-06"):
        assert image_tokens(sized(1024, 1024), model=model) == 765
    # another dialect name (OpenAI's Responses API, added beside this) falls back to OpenAI's
    assert openai_image_tokens(1024, 1024) == 765


@pytest.mark.parametrize(("model", "tokens"), [
    ("gpt-4o-mini", 2833 + 5667 * 4),  # the same 4 tiles, at the table's figures
    ("o1", 75 + 150 * 4), ("o3", 75 + 150 * 4), ("computer-use-preview", 65 + 129 * 4),
    ("gpt-5", 70 + 140 * 4),
])
def test_other_tile_models_use_their_own_figures(model, tokens):
    assert image_tokens(sized(1024, 1024), model=model) == tokens


@pytest.mark.parametrize(("width", "height", "patches"), [
    (1024, 1024, 1024), (1800, 2400, 1452),  # the guide's two examples for the patch rule
    (32, 32, 1), (33, 1, 2), (1536 * 32, 1, 1536),
])
def test_the_patch_rule_and_its_multipliers(width, height, patches):
    assert image_tokens(sized(width, height), model="gpt-4.1-mini") == math.ceil(
        patches * Fraction("1.62"))
    assert image_tokens(sized(width, height), model="gpt-4.1-nano") == math.ceil(
        patches * Fraction("2.46"))
    assert image_tokens(sized(width, height), model="o4-mini") == math.ceil(
        patches * Fraction("1.72"))


@given(st.integers(1, 10000), st.integers(1, 10000))
@settings(max_examples=examples(300))
def test_the_patch_rule_never_passes_its_cap(width, height):
    assert image_tokens(sized(width, height), model="gpt-4.1-mini") <= math.ceil(
        1536 * Fraction("1.62"))


@pytest.mark.parametrize("model", ["gpt-3.5-turbo", "agnes-3.0-flash", "claude-sonnet-4-5"])
def test_a_model_the_guide_does_not_name_is_refused_not_guessed(model):
    with pytest.raises(ValueError, match="gives no image rule") as info:
        image_tokens(sized(10, 10), model=model)
    assert "gpt-4o" in str(info.value) and "gpt-4.1-mini" in str(info.value)


def test_an_unknown_dialect_is_refused():
    with pytest.raises(ValueError):
        image_tokens(sized(10, 10), "gemini")


def test_a_request_counts_its_images_by_its_dialects_rule():
    photo = sized(2048, 4096)
    for dialect, tokens in ((OPENAI, 1105), (ANTHROPIC, 1600)):
        with_photo = request_tokens("S", [], ("look", photo), dialect=dialect)
        without = request_tokens("S", [], ("look",), dialect=dialect)
        assert with_photo - without == tokens == image_tokens(photo, dialect)


# --- Anthropic's tool-use system prompt, counted only where there are tools ----------------

def test_anthropics_tool_prompt_is_counted_only_with_tools_and_only_in_its_dialect():
    plain = {dialect: request_tokens("S", [], "Q", dialect=dialect) for dialect in (OPENAI,
                                                                                    ANTHROPIC)}
    assert plain[OPENAI] == plain[ANTHROPIC]  # without tools the dialects count alike
    schemas = tool_tokens([TOOL])
    assert request_tokens("S", [], "Q", tools=[TOOL]) == plain[OPENAI] + schemas
    assert request_tokens("S", [], "Q", tools=[TOOL], dialect=ANTHROPIC) == (
        plain[ANTHROPIC] + schemas + 346)
    assert tool_tokens([TOOL], dialect=ANTHROPIC) == schemas + 346
    assert tool_tokens([], dialect=ANTHROPIC) == 0


@pytest.mark.parametrize(("model", "prompt"), [
    ("claude-opus-4-5-20251101", 346), ("claude-sonnet-4-20250514", 346),
    ("claude-3-7-sonnet-20250219", 346), ("claude-3-5-sonnet-20241022", 346),
    ("claude-3-5-sonnet-20240620", 294), ("claude-3-5-haiku-20241022", 264),
    ("claude-3-opus-20240229", 530), ("claude-3-sonnet-20240229", 159),
    ("claude-3-haiku-20240307", 264), ("agnes-3.0-flash", 346),
])
def test_the_tool_prompt_follows_the_pricing_table_by_model(model, prompt):
    assert anthropic_tool_prompt(model) == prompt
    with_tools = request_tokens("S", [], "Q", tools=[TOOL], dialect=ANTHROPIC, model=model)
    assert with_tools - request_tokens("S", [], "Q", dialect=ANTHROPIC, model=model) == (
        tool_tokens([TOOL]) + prompt)


def test_every_table_row_holds_both_tool_choices():
    assert all(len(row) == 2 and min(row) > 0 for row in ANTHROPIC_TOOL_PROMPT.values())


def test_a_provider_tool_alone_also_brings_the_tool_prompt():
    search = ProviderTool({"type": "web_search_20250305", "name": "web_search"}, ANTHROPIC)
    counted = request_tokens("S", [], "Q", tools=[search], dialect=ANTHROPIC)
    assert counted > request_tokens("S", [], "Q", dialect=ANTHROPIC) + 346


@pytest.mark.parametrize("function", [select, select_reference])
def test_select_leaves_room_for_the_tool_prompt(function):
    needed = request_tokens("S", [Turn("q", "a")], "Q", tools=[TOOL], dialect=ANTHROPIC)
    options = dict(tools=[TOOL], dialect=ANTHROPIC, reserve_tokens=10)
    kept = function("S", [Turn("q", "a")], "Q", 10**6, max_tokens=needed + 10, **options)
    assert (kept.kept, kept.tokens) == (1, needed)
    short = function("S", [Turn("q", "a")], "Q", 10**6, max_tokens=needed + 9, **options)
    assert short.kept == 0 and short.tokens == needed - (
        request_tokens("S", [Turn("q", "a")], "Q") - request_tokens("S", [], "Q"))


# --- the labels: every token figure says whether it is exact ------------------------------

def test_a_texts_own_tokens_are_exact_and_a_requests_are_estimates():
    text = text_tokens("hello world")
    assert isinstance(text, TokenCount) and text.exact and "o200k_base" in text.basis
    for dialect in (OPENAI, ANTHROPIC):
        counted = request_tokens("S", [Turn("q", "a")], "Q", dialect=dialect)
        assert isinstance(counted, TokenCount) and not counted.exact
        assert counted.basis == request_basis(dialect, "o200k_base")
    assert "cookbook" in request_tokens("S", [], "Q").basis
    assert "Anthropic's tokenizer is not published" in request_tokens(
        "S", [], "Q", dialect=ANTHROPIC).basis
    assert "cl100k_base" in request_tokens("S", [], "Q", tokenizer="cl100k_base").basis
    assert "GPT-4o" in request_basis("openai-responses", "o200k_base")  # OpenAI's, stated


def test_images_and_tools_are_labelled_estimates():
    for dialect in (OPENAI, ANTHROPIC):
        assert not image_tokens(sized(100, 100), dialect).exact
        assert not tool_tokens([TOOL], dialect=dialect).exact
    assert "gpt-4.1-mini" in image_tokens(sized(100, 100), model="gpt-4.1-mini").basis
    assert "Anthropic" in image_tokens(sized(100, 100), ANTHROPIC).basis
    assert "Anthropic" in tool_tokens([TOOL], dialect=ANTHROPIC).basis


@pytest.mark.parametrize("dialect", [OPENAI, ANTHROPIC])
@pytest.mark.parametrize("function", [select, select_reference])
def test_a_selections_tokens_are_labelled(dialect, function):
    reserve = 5 if dialect == ANTHROPIC else 0
    chosen = function("S", [Turn("q", "a")], "Q", 10**6, max_tokens=500, dialect=dialect,
                      reserve_tokens=reserve)
    assert isinstance(chosen.tokens, TokenCount) and not chosen.tokens.exact
    assert chosen.tokens.basis == request_basis(dialect, "o200k_base")
    assert function("S", [], "Q", 10**6, dialect=dialect, reserve_tokens=reserve).tokens is None


def test_a_label_keeps_every_caller_working():
    counted = request_tokens("S", [Turn("q", "a")], "Q")
    number = int(counted)
    assert counted == number and hash(counted) == hash(number) and counted + 1 == number + 1
    assert repr(counted) == repr(number) and str(counted) == str(number)  # prints as before
    assert f"{counted:,}" == f"{number:,}"
    for again in (copy.copy(counted), copy.deepcopy(counted), pickle.loads(pickle.dumps(counted))):
        assert again == number and (again.exact, again.basis) == (counted.exact, counted.basis)
    chosen = select("S", [Turn("q", "a")], "Q", 10**6, max_tokens=500)
    assert repr(chosen) == (f"Selection(kept=1, dropped=0, bytes={chosen.size}, budget=1000000, "
                            f"tokens={number})")
    assert chosen == Selection(chosen.payload, 1, 0, 10**6, number)


@pytest.mark.parametrize("function", [select, select_reference])
def test_a_budget_errors_token_figure_is_labelled(function):
    from ledgerlab import BudgetError

    needed = request_tokens("S", [], "Q", tools=[TOOL], dialect=ANTHROPIC)
    with pytest.raises(BudgetError) as info:
        function("S", [], "Q", 10**6, tools=[TOOL], dialect=ANTHROPIC, reserve_tokens=1,
                 max_tokens=needed)
    assert info.value.mandatory_tokens == needed and not info.value.mandatory_tokens.exact


def test_byte_breakdown_holds_only_bytes_which_are_exact():
    parts = byte_breakdown("S", [Turn("q", "a")], "Q", tools=[TOOL])
    assert not any(isinstance(value, TokenCount) for value in parts.values())
    total = sum(sum(v) if isinstance(v, list) else v for v in parts.values())
    assert total == len(request_bytes("S", [Turn("q", "a")], "Q", tools=[TOOL]))
