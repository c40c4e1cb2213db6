"""Hypothesis strategies that more than one test file draws from.

Rich requests (tool rounds of parallel calls whose results come back shuffled, images, text
parts, tools, facts, the application's own top-level fields; any dialect): test_dialects.py,
test_rules.py, test_image_tokens.py and test_oracle.py. Texts, turns and facts full of the characters that change byte counts:
test_wire.py and test_oracle.py. A strategy only one file draws from is defined in that file.
"""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from PIL import Image as PILImage

from ledgerlab import DIALECTS, Fact, Image, Tool, ToolCall, ToolResult, Turn
from tiers import examples

ANTHROPIC = "anthropic-messages"
OPENAI = "openai-chat"
RESPONSES = "openai-responses"

# --- rich requests: tool rounds, images, text parts, tools, facts, any dialect -------------

TRICKY = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "<&>'=", "继续",
          "🙂", "é", "\ufeff", "}", "]", ",", ":", '{"role":"tool"}', "null", "/"]
texts = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    st.lists(st.sampled_from(TRICKY), max_size=5).map("".join),
)
ids = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6) | \
    st.sampled_from(["call_1", "toolu_01A", "a", "\u2028", "🙂"])
tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
# Call ids: those every dialect takes as they are (Anthropic's pattern, OpenAI's 40
# characters), and those a history recorded with another provider holds, which a dialect
# that refuses them writes mapped (Kimi's functions.name:0, an MCP id, one over 40 characters).
call_ids = st.from_regex(r"[A-Za-z0-9_-]{1,40}", fullmatch=True) | st.one_of(
    st.builds("functions.{}:{}".format, st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
              st.integers(0, 9)),
    st.builds("mcp:server/{}#{}".format, st.from_regex(r"[a-z]{1,6}", fullmatch=True),
              st.integers(0, 99)),
    st.from_regex(r"[A-Za-z0-9_-]{41,64}", fullmatch=True))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6)
json_objects = st.dictionaries(texts, json_values, max_size=3)


@st.composite
def arguments(draw) -> str:
    """The JSON text of an object, written the way different models write it."""
    return json.dumps(draw(json_objects), ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))


def png_file(size, mode="RGB"):
    out = io.BytesIO()
    PILImage.new(mode, size).save(out, "PNG")
    return out.getvalue()


def image_file(size, fmt, mode="RGB", **options):
    out = io.BytesIO()
    PILImage.new(mode, size).save(out, fmt, **options)
    return out.getvalue()


SAMPLE_IMAGES = (
    Image("image/png", png_file((1, 1))),
    Image("image/png", png_file((2100, 700), "1")),
    Image("image/jpeg", image_file((40, 30), "JPEG")),
    Image("image/gif", image_file((5, 3), "GIF", "L")),
    Image("image/webp", image_file((600, 900), "WEBP", lossless=True)),
    Image("image/webp", image_file((9, 9), "WEBP", "RGBA", lossless=False)),
)
images = st.sampled_from(SAMPLE_IMAGES)


# Anthropic refuses a message or text block with no text but whitespace (and the writer
# refuses to write one): its questions, text parts and answers hold some non-whitespace text.
solid_texts = texts.filter(lambda text: text.strip())


@st.composite
def questions(draw, solid: bool = False):
    text = solid_texts if solid else texts
    if draw(st.booleans()):
        return draw(text)
    return tuple(draw(st.lists(text | images, min_size=1, max_size=3)))


@st.composite
def steps(draw, max_rounds: int = 3, taken: set | None = None):
    """Whole rounds: 1-3 calls made together, then their results in a shuffled order; no
    call id of ``taken`` (the request's other turns': Anthropic wants each once)."""
    taken = set() if taken is None else taken
    sizes = draw(st.lists(st.integers(1, 3), max_size=max_rounds))
    fresh = call_ids.filter(lambda call_id: call_id not in taken)
    chosen = draw(st.lists(fresh, min_size=sum(sizes), max_size=sum(sizes), unique=True))
    taken.update(chosen)
    result, used = [], 0
    for size in sizes:
        calls = [ToolCall(chosen[used + k], draw(tool_names), draw(arguments()))
                 for k in range(size)]
        used += size
        answered = draw(st.permutations(calls))
        result += calls + [ToolResult(call.id, draw(texts)) for call in answered]
    return tuple(result)


@st.composite
def turns(draw, solid: bool = False, taken: set | None = None):
    """A turn; its answer any text, empty included (Anthropic documents an empty answer after
    tool results, and its dialect leaves one out)."""
    text = solid_texts if solid else texts
    kind = draw(st.sampled_from(["plain", "plain", "rich"]))
    if kind == "plain":
        return Turn(draw(text), draw(texts))
    return Turn(draw(questions(solid)), draw(texts), draw(steps(taken=taken)))


@st.composite
def tools(draw):
    properties = draw(st.dictionaries(texts, st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "object"]), "description": texts},
        optional={"enum": st.lists(texts, min_size=1, max_size=3)}), max_size=3))
    schema = {"type": "object", "properties": properties}
    parameters = schema if draw(st.booleans()) else json.dumps(schema)
    return Tool(draw(tool_names), draw(texts), parameters)


tool_lists = st.lists(tools(), max_size=3, unique_by=lambda tool: tool.name)
fact_lists = st.lists(st.builds(Fact, ids, texts, ids), max_size=3)

# A few top-level fields each dialect's reference documents, with values it takes, as an
# application adds them (extra=): none is one the writer writes, caps the reply, or needs
# tools or thinking blocks.
metadata = st.dictionaries(st.text("abcxyz_", min_size=1, max_size=4), texts, max_size=2)
EXTRA_FIELDS = {
    OPENAI: {"temperature": st.floats(0, 2), "stream": st.booleans(),
             "seed": st.integers(0, 2**31) | st.none(), "user": texts, "metadata": metadata,
             "store": st.booleans(), "stop": st.lists(texts, max_size=2) | texts,
             "prompt_cache_key": ids},
    ANTHROPIC: {"temperature": st.floats(0, 1), "stream": st.booleans(),
                "top_k": st.integers(1, 500), "stop_sequences": st.lists(solid_texts, max_size=2),
                "metadata": st.fixed_dictionaries({"user_id": ids}),
                "cache_control": st.just({"type": "ephemeral"}),
                "service_tier": st.sampled_from(["auto", "standard_only"])},
    RESPONSES: {"temperature": st.floats(0, 2), "stream": st.booleans(), "store": st.booleans(),
                "include": st.just(["reasoning.encrypted_content"]), "metadata": metadata,
                "truncation": st.sampled_from(["auto", "disabled"]),
                "prompt_cache_key": ids},
}


@st.composite
def extras(draw, dialect: str) -> dict:
    """Some of the dialect's EXTRA_FIELDS, in a drawn order (the body keeps it)."""
    names = draw(st.lists(st.sampled_from(sorted(EXTRA_FIELDS[dialect])), unique=True,
                          max_size=3))
    return {name: draw(EXTRA_FIELDS[dialect][name]) for name in names}


def with_tools_for_rounds(dialect: str, tools: list, history, current_steps) -> list:
    """``tools``, or one tool where Anthropic wants a tools array beside the request's tool
    calls and results and there is none."""
    rounds = bool(current_steps) or any(turn.steps for turn in history)
    if dialect == ANTHROPIC and rounds and not tools:
        return [Tool("lookup", "Look a key up.", {"type": "object"})]
    return tools


@st.composite
def requests_(draw, max_turns: int = 5):
    """The arguments of one rich request, any dialect."""
    dialect = draw(st.sampled_from(DIALECTS))
    taken: set = set()  # the request's call ids so far
    options = dict(
        model=draw(st.sampled_from(["agnes-3.0-flash", "m", "gpt-4o\u2028"])),
        facts=draw(st.just(()) | fact_lists),
        dialect=dialect,
        tools=draw(tool_lists),
        current_steps=draw(st.just(()) | steps(max_rounds=2, taken=taken)),
    )
    if dialect == ANTHROPIC:
        options["reserve_tokens"] = draw(st.integers(1, 64_000))
    extra = draw(st.just({}) | extras(dialect))
    if extra:
        options["extra"] = extra
    length = draw(st.integers(0, max_turns))
    solid = dialect == ANTHROPIC
    history = draw(st.lists(turns(solid, taken), min_size=length, max_size=length))
    options["tools"] = with_tools_for_rounds(dialect, options["tools"], history,
                                             options["current_steps"])
    return draw(texts), history, draw(questions(solid)), options


RICH = settings(max_examples=examples(150), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- texts, turns and facts that change byte counts: escapes, control characters, line
# separators, multi-byte and astral characters, the brackets of a fact's line -----------------

ESCAPES = st.sampled_from(list('"\\\n\r\t\x00\x1f\u2028\u2029é接🙂a ]['))
escaped_texts = st.text(alphabet=st.one_of(ESCAPES, st.characters(exclude_categories=["Cs"])),
                        max_size=20)
escaped_ids = st.text(alphabet=st.one_of(ESCAPES, st.characters(exclude_categories=["Cs"])),
                      min_size=1, max_size=6)
escaped_turns = st.lists(st.builds(Turn, escaped_texts, escaped_texts), max_size=8)
escaped_facts = st.lists(st.builds(Fact, escaped_ids, escaped_texts, escaped_ids), max_size=6)
