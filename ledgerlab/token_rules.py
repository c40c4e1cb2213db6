"""Each provider's own documented token rules beyond text, and a count that says how exact it is.

``TokenCount`` is an ``int`` (it compares, adds and prints as one) that carries ``exact``
and ``basis``: whether the figure is exact, and by which rules it was counted. Only a
text's own tokens under a tiktoken encoding are exact (``text_tokens``); every count of
a request is an estimate, because each provider says its own rules are:

- OpenAI's cookbook ("How to count tokens with tiktoken") gives its message rule, checks it
  against the API on gpt-3.5-turbo, gpt-4, gpt-4o and gpt-4o-mini, and still calls its
  counts "an estimate, not a timeless guarantee"; its count of tool schemas is an estimate;
- Anthropic's tokenizer is not published, and its guides give image and tool figures as
  approximations.

The rules below are the providers' own, each with its source beside it.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

ANTHROPIC = "anthropic-messages"


class TokenCount(int):
    """A token count: an ``int`` that says whether it is ``exact`` and its ``basis``, the
    rules it was counted by. Its repr is the number's, so it prints as before."""

    exact: bool
    basis: str

    def __new__(cls, value: int, *, exact: bool, basis: str) -> TokenCount:
        count = super().__new__(cls, value)
        count.exact, count.basis = exact, basis
        return count

    def __getnewargs_ex__(self):  # copy and pickle keep the label
        return (int(self),), {"exact": self.exact, "basis": self.basis}


# --- OpenAI's image rules: the images and vision guide, "Calculating costs" --------------------
# (platform.openai.com/docs/guides/images-vision#calculating-costs). Two rules, each named
# there for the models it applies to.
#
# The tile rule, at "detail": "high" (the body sends no `detail`, so the API's "auto"
# applies; "high" is its upper bound): fit in 2048x2048, then the shortest side down to
# 768 px (never up), then base tokens + tile tokens for each 512-px tile.
IMAGE_TILE = 512
IMAGE_FIT = 2048
IMAGE_SHORT_SIDE = 768
OPENAI_TILE_TOKENS = {  # model: (base tokens, tokens per tile), the guide's table
    "gpt-4o": (85, 170), "gpt-4.1": (85, 170), "gpt-4.5-preview": (85, 170),
    "gpt-4o-mini": (2833, 5667),
    "o1": (75, 150), "o1-pro": (75, 150), "o3": (75, 150),
    "computer-use-preview": (65, 129),
    "gpt-5": (70, 140), "gpt-5-chat-latest": (70, 140),
}
# The default when no model is named: GPT-4o's figures (85 + 170 a tile), the guide's
# worked examples (1024x1024 is 765 tokens, 2048x4096 is 1105).
OPENAI_DEFAULT_IMAGE_MODEL = "gpt-4o"
# The patch rule: 32-px patches cover the image; over 1536 of them, the image is scaled
# down to fit 1536; then the patches times the model's multiplier (the guide: 1024x1024 is
# 1024 patches, 1800x2400 is 1452). How a fraction of a token rounds is not documented:
# it is rounded up here.
IMAGE_PATCH = 32
IMAGE_MAX_PATCHES = 1536
OPENAI_PATCH_MULTIPLIER = {"gpt-4.1-mini": Fraction("1.62"), "gpt-4.1-nano": Fraction("2.46"),
                           "o4-mini": Fraction("1.72"), "gpt-5-mini": Fraction("1.62"),
                           "gpt-5-nano": Fraction("2.46")}
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")  # "gpt-4o-2024-08-06" is "gpt-4o"'s

# --- Anthropic's image rule: the vision guide, "Evaluate image size" and "Calculate image
# costs" (docs.anthropic.com/en/docs/build-with-claude/vision). An image whose long edge is
# over 1568 px, or that is over about 1,600 tokens, is scaled down (aspect kept) until it is
# within both; then tokens = width x height / 750. The guide's examples: 200x200 about 54,
# 1000x1000 about 1334, 1092x1092 about 1590 (each the quotient rounded up), and the largest
# sizes it does not resize (1092x1092, 951x1268, 896x1344, 819x1456, 784x1568) "use
# approximately 1,600 tokens".
ANTHROPIC_LONG_EDGE = 1568
ANTHROPIC_PIXELS_PER_TOKEN = 750
ANTHROPIC_IMAGE_TOKENS = 1600

# --- Anthropic's tool-use system prompt: the tool use guide's pricing section
# (docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview#pricing), in its version that
# lists Claude Opus 4.5. With at least one tool, the API adds a system prompt of this many
# tokens, by model and tool choice: (auto or none, any or tool). The body sends no
# `tool_choice`, so the API's default, auto, applies. Keyed by model id prefix; any other
# model (the Claude 4 family, Claude Sonnet 3.7, Claude Sonnet 3.5 of October 2024, and any
# name not listed) counts as 346 / 313, the table's figure for those.
ANTHROPIC_TOOL_PROMPT = {
    "claude-3-5-sonnet-20240620": (294, 261),
    "claude-3-5-haiku": (264, 340),
    "claude-3-opus": (530, 281),
    "claude-3-sonnet": (159, 235),
    "claude-3-haiku": (264, 340),
}
ANTHROPIC_TOOL_PROMPT_OTHERS = (346, 313)


def openai_image_tokens(width: int, height: int, model: str | None = None) -> int:
    """An image's tokens by OpenAI's rule for ``model`` (None: GPT-4o's); ValueError for a
    model the guide does not name, rather than a guess."""
    name = _SNAPSHOT.sub("", OPENAI_DEFAULT_IMAGE_MODEL if model is None else model)
    if name in OPENAI_TILE_TOKENS:
        base, per_tile = OPENAI_TILE_TOKENS[name]
        return base + per_tile * _tiles(width, height)
    if name in OPENAI_PATCH_MULTIPLIER:
        return math.ceil(_patches(width, height) * OPENAI_PATCH_MULTIPLIER[name])
    known = ", ".join(sorted([*OPENAI_TILE_TOKENS, *OPENAI_PATCH_MULTIPLIER]))
    raise ValueError(f"OpenAI's images guide gives no image rule for model {model!r}; "
                     f"it gives one for: {known}")


def _tiles(width: int, height: int) -> int:
    """The 512-px tiles of the image once fitted in 2048x2048 and its short side at most 768."""
    w, h = Fraction(width), Fraction(height)
    if max(w, h) > IMAGE_FIT:
        scale = IMAGE_FIT / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > IMAGE_SHORT_SIDE:
        scale = IMAGE_SHORT_SIDE / min(w, h)
        w, h = w * scale, h * scale
    return math.ceil(w / IMAGE_TILE) * math.ceil(h / IMAGE_TILE)


def _patches(width: int, height: int) -> int:
    """The 32-px patches of the image, scaled down as the guide writes it when over 1536."""
    patches = math.ceil(width / IMAGE_PATCH) * math.ceil(height / IMAGE_PATCH)
    if patches <= IMAGE_MAX_PATCHES:
        return patches
    shrink = math.sqrt(IMAGE_PATCH ** 2 * IMAGE_MAX_PATCHES / (width * height))
    across, down = width * shrink / IMAGE_PATCH, height * shrink / IMAGE_PATCH
    shrink *= min(math.floor(across) / across, math.floor(down) / down)
    # The resized image is whole pixels (the guide's example: 1056x1408); the margin keeps
    # a side the guide gives as a whole number of patches from rounding up to one more.
    resized_width = math.floor(width * shrink + 1e-6)
    resized_height = math.floor(height * shrink + 1e-6)
    return min(math.ceil(resized_width / IMAGE_PATCH) * math.ceil(resized_height / IMAGE_PATCH),
               IMAGE_MAX_PATCHES)


def anthropic_image_tokens(width: int, height: int) -> int:
    """An image's tokens by Anthropic's vision guide: within 1568 px on its long edge and
    about 1,600 tokens, then width x height / 750, rounded up."""
    area = Fraction(width * height)
    if max(width, height) > ANTHROPIC_LONG_EDGE:
        area *= Fraction(ANTHROPIC_LONG_EDGE, max(width, height)) ** 2
    return min(math.ceil(area / ANTHROPIC_PIXELS_PER_TOKEN), ANTHROPIC_IMAGE_TOKENS)


def anthropic_tool_prompt(model: str | None) -> int:
    """The tokens of the system prompt Anthropic adds when tools are given (tool choice auto)."""
    for prefix in sorted(ANTHROPIC_TOOL_PROMPT, key=len, reverse=True):
        if model is not None and model.startswith(prefix):
            return ANTHROPIC_TOOL_PROMPT[prefix][0]
    return ANTHROPIC_TOOL_PROMPT_OTHERS[0]


# What each dialect's counts rest on, as a request's TokenCount says it. A dialect not named
# here (OpenAI's other API shapes) counts as OpenAI's chat rule: the same tokenizer and the
# same image rule; its own per-item framing is not documented, so it is an estimate too.
OPENAI_BASIS = ("OpenAI's cookbook rule for chat messages under {tokenizer} (its own "
                "estimate); images by GPT-4o's tile rule; tools by the cookbook's estimate; "
                "tool rounds by ledgerlab's estimate")
REQUEST_BASIS = {
    ANTHROPIC: ("an estimate: Anthropic's tokenizer is not published, so {tokenizer} and "
                "OpenAI's message rule stand in; images by Anthropic's width x height / 750 "
                "rule; with tools, Anthropic's tool-use system prompt"),
}


def request_basis(dialect: str, tokenizer: str) -> str:
    """What a request's token count in ``dialect`` rests on (OpenAI's rule for any dialect
    not listed in ``REQUEST_BASIS``)."""
    return REQUEST_BASIS.get(dialect, OPENAI_BASIS).format(tokenizer=tokenizer)


def image_rule(dialect: str):
    """``(width, height) -> tokens`` for ``dialect``: Anthropic's rule, or OpenAI's (GPT-4o's
    figures) for every other dialect, all of which are OpenAI's."""
    return anthropic_image_tokens if dialect == ANTHROPIC else openai_image_tokens
