"""Tokens of images, tools, calls and results: OpenAI's tile rule, the cookbook's tool count
(and its published totals), and the sum-of-parts rule for a rich turn, which select uses.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage

from ledgerlab import (BudgetError, Image, Tool, ToolCall, ToolResult, Turn, image_tokens, request_body,
                       request_tokens, select, select_reference, text_tokens, tool_tokens)
from ledgerlab.tokens import encoding
from strategies import tools as tool_strategy
from tiers import examples

NAMES = ["o200k_base", "cl100k_base"]


def image_of(width: int, height: int, fmt: str = "PNG") -> Image:
    out = io.BytesIO()
    PILImage.new("1" if fmt in ("PNG", "GIF") else "L", (width, height)).save(out, fmt)
    return Image(f"image/{fmt.lower()}", out.getvalue())


def tile_rule(width: int, height: int) -> int:
    """OpenAI's rule for "detail": "high", in exact arithmetic: fit in 2048x2048, then the
    shortest side down to 768 (neither step ever scales up), then 85 + 170 per 512-px tile."""
    w, h = Fraction(width), Fraction(height)
    if max(w, h) > 2048:
        w, h = w * 2048 / max(w, h), h * 2048 / max(w, h)
    if min(w, h) > 768:
        w, h = w * 768 / min(w, h), h * 768 / min(w, h)
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def sized(width: int, height: int) -> Image:
    """An Image of that size without making a file: its header is all the rule reads."""
    image = object.__new__(Image)
    object.__setattr__(image, "width", width)
    object.__setattr__(image, "height", height)
    return image


@pytest.mark.parametrize(("width", "height", "tokens"), [
    (1024, 1024, 765),  # OpenAI's guide: 768x768 after scaling, 4 tiles
    (2048, 4096, 1105),  # the guide: 1024x2048, then 768x1536, 6 tiles
    (4096, 2048, 1105),
])
def test_the_guides_examples(width, height, tokens):
    assert image_tokens(image_of(width, height)) == tokens


@pytest.mark.parametrize(("width", "height", "tiles"), [
    (1, 1, 1), (100, 100, 1), (512, 512, 1), (513, 512, 2), (512, 513, 2), (513, 513, 4),
    (768, 768, 4), (700, 2000, 8), (767, 2048, 8), (1, 2048, 4), (2048, 1, 4),
    (3, 5000, 4),  # fit to 2048 tall: never scaled up to 768 wide
    (769, 769, 4),  # just past the short side: down to 768x768
    (1536, 3072, 6), (6000, 6000, 4), (20000, 100, 4), (800, 600, 4),
])
def test_tiles(width, height, tiles):
    assert image_tokens(sized(width, height)) == 85 + 170 * tiles == tile_rule(width, height)


@given(st.integers(1, 20000), st.integers(1, 20000))
@settings(max_examples=examples(500))
def test_the_rule_in_exact_arithmetic(width, height):
    assert image_tokens(sized(width, height)) == tile_rule(width, height)
    assert image_tokens(sized(width, height)) == image_tokens(sized(height, width))


def test_small_images_are_never_scaled_up():
    for width in range(1, 768, 37):
        for height in range(1, 2048, 101):
            tiles = math.ceil(width / 512) * math.ceil(height / 512)
            assert image_tokens(sized(width, height)) == 85 + 170 * tiles


def test_tokens_depend_on_pixels_not_on_bytes_or_format():
    for fmt in ("PNG", "JPEG", "GIF", "WEBP"):
        image = image_of(1024, 1024, fmt)
        assert image_tokens(image) == 765
    big, small = image_of(2048, 4096), image_of(2048, 4096, "JPEG")
    assert len(big.data) != len(small.data) and image_tokens(big) == image_tokens(small)


@pytest.mark.parametrize("value", [None, b"\x89PNG", "image", 1024])
def test_image_tokens_needs_an_image(value):
    with pytest.raises(TypeError):
        image_tokens(value)


# --- tools: the cookbook's estimate --------------------------------------------------------

COOKBOOK_SYSTEM = "You are a helpful assistant that can answer to questions about the weather."
COOKBOOK_USER = "What's the weather like in San Francisco?"
COOKBOOK_TOOL = Tool("get_current_weather", "Get the current weather in a given location", {
    "type": "object",
    "properties": {
        "location": {"type": "string",
                     "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "description": "The unit of temperature to return",
                 "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["location"],
})


@pytest.mark.parametrize(("tokenizer", "total"), [("o200k_base", 101), ("cl100k_base", 105)])
def test_the_cookbooks_published_counts(tokenizer, total):
    """"How to count tokens with tiktoken": gpt-4o/4o-mini 101, gpt-3.5-turbo/gpt-4 105."""
    assert request_tokens(COOKBOOK_SYSTEM, [], COOKBOOK_USER, tools=[COOKBOOK_TOOL],
                          tokenizer=tokenizer) == total
    without = request_tokens(COOKBOOK_SYSTEM, [], COOKBOOK_USER, tokenizer=tokenizer)
    assert total - without == tool_tokens([COOKBOOK_TOOL], tokenizer=tokenizer)
    chosen = select(COOKBOOK_SYSTEM, [], COOKBOOK_USER, 10_000, tools=[COOKBOOK_TOOL],
                    max_tokens=total, tokenizer=tokenizer)
    assert chosen.tokens == total
    # Anthropic adds its tool-use system prompt: 346 tokens for the Claude 4 family, auto
    for dialect, reserve, prompt in (("openai-chat", 0, 0), ("anthropic-messages", 1, 346)):
        options = dict(tools=[COOKBOOK_TOOL], tokenizer=tokenizer, dialect=dialect,
                       max_tokens=total + prompt + reserve, reserve_tokens=reserve)
        with pytest.raises(BudgetError, match="tokens"):
            select(COOKBOOK_SYSTEM, [], COOKBOOK_USER, 10_000,
                   **dict(options, max_tokens=total + prompt + reserve - 1))
        assert select_reference(COOKBOOK_SYSTEM, [], COOKBOOK_USER, 10_000,
                                **options).tokens == total + prompt


def cookbook_tools(functions: list[dict], name: str) -> int:
    """num_tokens_for_tools' function part, from the cookbook, written out on the OpenAI
    body's own "tools" list (the messages are counted apart)."""
    func_init = {"o200k_base": 7, "cl100k_base": 10}[name]
    prop_init, prop_key, enum_init, enum_item, func_end = 3, 3, -3, 3, 12
    enc = encoding(name)
    count = 0
    if len(functions) > 0:
        for f in functions:
            count += func_init
            function = f["function"]
            f_desc = function["description"]
            if f_desc.endswith("."):
                f_desc = f_desc[:-1]
            count += len(enc.encode(function["name"] + ":" + f_desc, disallowed_special=()))
            if len(function["parameters"]["properties"]) > 0:
                count += prop_init
                for key in list(function["parameters"]["properties"].keys()):
                    count += prop_key
                    spec = function["parameters"]["properties"][key]
                    p_type, p_desc = spec["type"], spec["description"]
                    if "enum" in spec.keys():
                        count += enum_init
                        for item in spec["enum"]:
                            count += enum_item
                            count += len(enc.encode(item, disallowed_special=()))
                    if p_desc.endswith("."):
                        p_desc = p_desc[:-1]
                    count += len(enc.encode(f"{key}:{p_type}:{p_desc}", disallowed_special=()))
        count += func_end
    return count


@given(st.lists(tool_strategy(), max_size=3, unique_by=lambda tool: tool.name),
       st.sampled_from(NAMES))
@settings(max_examples=examples(150), deadline=None)
def test_tool_tokens_is_the_cookbooks_count(tools, name):
    body_tools = request_body("s", [], "q", tools=tools).get("tools", [])
    assert tool_tokens(tools, tokenizer=name) == cookbook_tools(body_tools, name)


def test_no_tools_cost_nothing():
    assert tool_tokens([]) == 0
    assert request_tokens("s", [], "q", tools=()) == request_tokens("s", [], "q")


def test_full_stops_and_schemas_without_properties():
    bare = Tool("f", "Does it.", {"type": "object"})
    assert tool_tokens([bare]) == 7 + text_tokens("f:Does it") + 12
    assert tool_tokens([Tool("f", "Does it", {"type": "object"})]) == tool_tokens([bare])
    two = Tool("g", "x..", {"type": "object", "properties": {}})
    assert tool_tokens([bare, two]) == 7 + text_tokens("f:Does it") + 7 + text_tokens("g:x.") + 12


# --- a rich turn is the sum of its parts ---------------------------------------------------


def test_a_rich_turn_costs_the_sum_of_its_parts():
    photo, chart = image_of(1024, 1024), image_of(300, 2100, "GIF")
    steps = (ToolCall("c1", "lookup", '{"key": "project code"}'),
             ToolCall("c2", "weather", '{"city":"Oslo"}'),
             ToolResult("c2", "rain, 4 °C"), ToolResult("c1", "ORCHID-17"),
             ToolCall("c3", "lookup", "{}"), ToolResult("c3", ""))
    turn = Turn(("What is in", photo, "and in", chart, "?"), "A cat; a bar chart.", steps)
    for name in NAMES:
        def t(text):
            return text_tokens(text, tokenizer=name)
        user = 3 + t("user") + t("What is in") + 765 + t("and in") + image_tokens(chart) + t("?")
        rounds = (3 + t("assistant") + t("lookup") + t('{"key": "project code"}') + t("weather")
                  + t('{"city":"Oslo"}') + 2 * (3 + t("tool")) + t("rain, 4 °C") + t("ORCHID-17")
                  + 3 + t("assistant") + t("lookup") + t("{}") + 3 + t("tool") + t(""))
        answer = 3 + t("assistant") + t("A cat; a bar chart.")
        base = request_tokens("S", [], "Q", tokenizer=name)
        assert request_tokens("S", [turn], "Q", tokenizer=name) - base == user + rounds + answer
        # the same parts in the turn in progress are mandatory input
        current = request_tokens("S", [], turn.question, current_steps=steps, tokenizer=name)
        assert current == base - (3 + t("user") + t("Q")) + user + rounds
    assert image_tokens(chart) == tile_rule(300, 2100) == 85 + 170 * 1 * 4  # 293x2048


def photo_history():
    """Three turns, the middle one with a 2048x4096 image and a tool round; test_oracle.py
    selects from it at every token limit around the image."""
    photo = image_of(2048, 4096)
    return [Turn("old", "answer"),
            Turn(("see", photo), "ok", (ToolCall("a", "f", "{}"), ToolResult("a", "r"))),
            Turn("new", "answer")]


PHOTO_TOOLS = [Tool("f", "d", {"type": "object"})]  # the tool photo_history's round calls


def test_select_counts_what_it_keeps():
    history = photo_history()
    for dialect, reserve in (("openai-chat", 0), ("anthropic-messages", 7)):
        counting = dict(dialect=dialect, tools=PHOTO_TOOLS)
        everything = request_tokens("S", history, "Q", **counting)
        assert select("S", history, "Q", 10**6, reserve_tokens=reserve,
                      max_tokens=everything + reserve, **counting).kept == 3
        # the image alone binds: its tokens (1105 at OpenAI, 1600 at Anthropic) drop the turn
        # although its bytes fit
        one_short = request_tokens("S", history[1:], "Q", **counting) + reserve - 1
        chosen = select("S", history, "Q", 10**6, reserve_tokens=reserve,
                        max_tokens=one_short, **counting)
        assert chosen.kept == 1


def test_image_bytes_and_tokens_are_different_limits():
    photo = image_of(2048, 4096, "JPEG")
    in_tokens = image_tokens(photo)
    on_the_wire = len(photo.base64)
    assert in_tokens == 1105 and on_the_wire == 4 * math.ceil(len(photo.data) / 3)
    small = image_of(16, 16)
    assert image_tokens(small) == 255 and len(small.base64) < 255 * 4
