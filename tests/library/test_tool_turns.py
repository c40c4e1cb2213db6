"""The values of a tool-using conversation: ToolCall, ToolResult, Tool, Image and Turn.

Adversarial: each check here is made to fail on a value the providers would refuse, on
a header cut short, on a round that does not pair up, and on any text that reaches a
repr, a str or an error message. Images are made by Pillow and their sizes compared
with Pillow's own.
"""

from __future__ import annotations

import dataclasses
import io
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image as PILImage

from ledgerlab import (BudgetError, Image, InvalidRequest, InvalidText, InvalidTurn, Tool,
                       ToolCall, ToolResult, Turn, check_request, request_bytes, select)
from tiers import examples

SECRET = "SECRETzq7"  # a text that must never show in a repr, a str or an error
SECRET_BYTES = SECRET.encode()


def C(call_id: str, name: str = "lookup", arguments: str = "{}") -> ToolCall:
    return ToolCall(call_id, name, arguments)


def R(call_id: str, content: str = "ok") -> ToolResult:
    return ToolResult(call_id, content)


# --- images made by Pillow -------------------------------------------------------------


def pillow_bytes(size: tuple[int, int], fmt: str, mode: str = "RGB", **options) -> bytes:
    out = io.BytesIO()
    PILImage.new(mode, size, 0).save(out, fmt, **options)
    return out.getvalue()


# (label, media type, bytes, WebP's first chunk or None)
PILLOW_IMAGES = [
    ("png rgb", "image/png", pillow_bytes((37, 1), "PNG")),
    ("png rgba wide", "image/png", pillow_bytes((3001, 7), "PNG", "RGBA")),
    ("png 1-bit tall", "image/png", pillow_bytes((5, 4099), "PNG", "1")),
    ("png palette", "image/png", pillow_bytes((256, 300), "PNG", "P")),
    ("jpeg baseline", "image/jpeg", pillow_bytes((641, 479), "JPEG")),
    ("jpeg progressive", "image/jpeg", pillow_bytes((1, 65500), "JPEG", "L", progressive=True)),
    ("jpeg cmyk", "image/jpeg", pillow_bytes((33, 17), "JPEG", "CMYK")),
    ("jpeg exif", "image/jpeg", pillow_bytes((300, 200), "JPEG",
                                             exif=PILImage.Exif().tobytes())),
    ("jpeg optimized", "image/jpeg", pillow_bytes((1025, 2), "JPEG", optimize=True)),
    ("gif", "image/gif", pillow_bytes((65535, 1), "GIF", "P")),
    ("gif small", "image/gif", pillow_bytes((3, 2), "GIF", "L")),
    ("webp lossy", "image/webp", pillow_bytes((513, 257), "WEBP", lossless=False)),
    ("webp lossless", "image/webp", pillow_bytes((16383, 3), "WEBP", "RGBA", lossless=True)),
    ("webp extended (alpha)", "image/webp", pillow_bytes((77, 99), "WEBP", "RGBA",
                                                         lossless=False)),
    ("webp extended (exif)", "image/webp", pillow_bytes((2, 16383), "WEBP",
                                                        exif=b"Exif\0\0MM\0*\0\0\0\x08\0\0")),
]
IMAGE_IDS = [label for label, _, _ in PILLOW_IMAGES]


def test_the_webp_samples_cover_all_three_kinds():
    chunks = {data[12:16] for _, media_type, data in PILLOW_IMAGES if media_type == "image/webp"}
    assert chunks == {b"VP8 ", b"VP8L", b"VP8X"}
    assert any(data[:2] == b"\xff\xd8" and b"\xff\xc2" in data[:400]
               for _, _, data in PILLOW_IMAGES)  # a progressive JPEG's SOF2


@pytest.mark.parametrize(("label", "media_type", "data"), PILLOW_IMAGES, ids=IMAGE_IDS)
def test_image_size_is_pillows(label, media_type, data):
    image = Image(media_type, data)
    assert (image.width, image.height) == PILImage.open(io.BytesIO(data)).size
    assert image.base64 == __import__("base64").b64encode(data).decode("ascii")


@given(width=st.integers(1, 2500), height=st.integers(1, 2500),
       kind=st.sampled_from(["PNG", "JPEG", "GIF", "WEBP-lossy", "WEBP-lossless", "WEBP-x"]))
@settings(max_examples=examples(60), deadline=None)
def test_random_image_sizes_are_pillows(width, height, kind):
    options = {"WEBP-lossy": dict(lossless=False), "WEBP-lossless": dict(lossless=True),
               "WEBP-x": dict(lossless=False, exif=b"Exif\0\0MM\0*\0\0\0\x08\0\0")}
    fmt = kind.split("-")[0]
    data = pillow_bytes((width, height), fmt, "L" if fmt == "GIF" else "RGB",
                        **options.get(kind, {}))
    image = Image(f"image/{fmt.lower()}", data)
    assert (image.width, image.height) == PILImage.open(io.BytesIO(data)).size == (width, height)


@pytest.mark.parametrize(("label", "media_type", "data"), PILLOW_IMAGES, ids=IMAGE_IDS)
def test_a_header_cut_short_is_refused_never_misread(label, media_type, data):
    """Every prefix of a real file either gives the file's true size (its header is all
    there) or is refused: a cut header must never give a made-up size."""
    truth = PILImage.open(io.BytesIO(data)).size
    for length in range(0, min(len(data), 700)):
        try:
            image = Image(media_type, data[:length])
        except InvalidTurn as error:
            assert str(length) in str(error) or "begin" in str(error)
            continue
        assert (image.width, image.height) == truth, f"{length} bytes of {len(data)}"


@pytest.mark.parametrize(("label", "media_type", "data"), PILLOW_IMAGES, ids=IMAGE_IDS)
def test_image_data_must_match_its_media_type(label, media_type, data):
    for other in ("image/png", "image/jpeg", "image/gif", "image/webp"):
        if other != media_type:
            with pytest.raises(InvalidTurn, match="does not begin like"):
                Image(other, data)


def test_webp_needs_webp_after_riff():
    wave = b"RIFF" + struct.pack("<I", 40) + b"WAVEfmt " + bytes(40)
    with pytest.raises(InvalidTurn):
        Image("image/webp", wave)


def test_image_zero_width_or_height_is_refused():
    png = bytearray(pillow_bytes((3, 4), "PNG"))
    png[16:20] = bytes(4)  # IHDR width 0
    with pytest.raises(InvalidTurn):
        Image("image/png", bytes(png))
    gif = bytearray(pillow_bytes((3, 4), "GIF", "L"))
    gif[8:10] = bytes(2)  # logical screen height 0
    with pytest.raises(InvalidTurn):
        Image("image/gif", bytes(gif))


def test_png_must_start_with_ihdr():
    png = bytearray(pillow_bytes((3, 4), "PNG"))
    png[12:16] = b"IDAT"
    with pytest.raises(InvalidTurn):
        Image("image/png", bytes(png))


@pytest.mark.parametrize("media_type", ["image/jpg", "IMAGE/PNG", "image/svg+xml", "image/bmp",
                                        "", "image/png ", 7, None])
def test_image_media_type_must_be_one_of_the_four(media_type):
    with pytest.raises((InvalidTurn, TypeError)):
        Image(media_type, pillow_bytes((1, 1), "PNG"))


@pytest.mark.parametrize("data", [bytearray(pillow_bytes((1, 1), "PNG")),
                                  memoryview(pillow_bytes((1, 1), "PNG")), "\x89PNG", None])
def test_image_data_must_be_bytes(data):
    with pytest.raises(TypeError):
        Image("image/png", data)


def test_image_is_frozen_hashable_and_compared_by_content():
    data = pillow_bytes((5, 6), "PNG")
    first, second = Image("image/png", data), Image("image/png", bytes(data))
    assert first == second and hash(first) == hash(second)
    assert len({first, second}) == 1
    assert first != Image("image/png", pillow_bytes((6, 5), "PNG"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.data = b""
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.width = 1


def test_image_repr_shows_sizes_only():
    # A PNG text chunk holding the secret: still valid PNG, and the repr shows no data.
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text(SECRET, SECRET)
    out = io.BytesIO()
    PILImage.new("RGB", (9, 8)).save(out, "PNG", pnginfo=info)
    image = Image("image/png", out.getvalue())
    assert SECRET_BYTES in image.data
    for text in (repr(image), str(image)):
        assert SECRET not in text
        assert "9x8" in text and str(len(image.data)) in text


# --- ToolCall, ToolResult, Tool -----------------------------------------------------------


@pytest.mark.parametrize("name", ["", "a b", "a.b", "é", "a\n", "x" * 129, "get/weather", "ü_1"])
def test_tool_names_follow_the_providers_pattern(name):
    with pytest.raises(InvalidTurn):
        ToolCall("c1", name, "{}")
    with pytest.raises(InvalidTurn):
        Tool(name, "d", {})


@pytest.mark.parametrize("name", ["a", "x" * 64, "x" * 128, "get_current-weather_2", "A-Z"])
def test_tool_names_allowed(name):  # (OpenAI's 64 characters: test_provider_rules)
    assert ToolCall("c1", name, "{}").name == name
    assert Tool(name, "d", {"type": "object"}).name == name


@pytest.mark.parametrize("bad", [None, 1, b"c1", ["c1"]])
def test_ids_must_be_str(bad):
    with pytest.raises(InvalidText):
        ToolCall(bad, "f", "{}")
    with pytest.raises(InvalidText):
        ToolResult(bad, "x")


def test_ids_must_not_be_empty():
    with pytest.raises(InvalidText, match="empty"):
        ToolCall("", "f", "{}")
    with pytest.raises(InvalidText, match="empty"):
        ToolResult("", "x")


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff"])
def test_lone_surrogates_are_refused_in_every_text_field(text):
    with pytest.raises(InvalidText):
        ToolCall(text, "f", "{}")
    with pytest.raises(InvalidText):
        ToolCall("c", "f", json.dumps({"q": text}, ensure_ascii=False))
    with pytest.raises(InvalidText):
        ToolResult(text, "x")
    with pytest.raises(InvalidText):
        ToolResult("c", text)
    with pytest.raises(InvalidText):
        Tool("f", text, {})
    with pytest.raises(InvalidText):
        Tool("f", "d", {"description": text})
    with pytest.raises(InvalidText):
        Tool("f", "d", {text: 1})
    with pytest.raises(InvalidText):
        Turn(text, "a")
    with pytest.raises(InvalidText):
        Turn(("ok", text), "a")
    with pytest.raises(InvalidText):
        Turn("q", text)


@pytest.mark.parametrize("arguments", ['{"q":"\\ud800"}', '{"\\udc00":1}', '{"a":["\\ud83d"]}'])
def test_escaped_lone_surrogates_in_json_are_refused(arguments):
    with pytest.raises(InvalidText):
        ToolCall("c", "f", arguments)
    with pytest.raises(InvalidText):
        Tool("f", "d", arguments)


def test_escaped_surrogate_pairs_are_fine():
    call = ToolCall("c", "f", '{"q":"\\ud83d\\ude42"}')
    assert call.input == {"q": "🙂"}


@pytest.mark.parametrize("arguments", [
    "[]", '"text"', "1", "null", "true", "",  # not an object
    '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}',  # not JSON
    "{", '{"a": 1} x', "{'a': 1}", '{"a": 1,}',  # not JSON at all
    "[" * 100_000 + "]" * 100_000,  # nested past the parser's depth
])
def test_arguments_must_be_the_json_text_of_one_object(arguments):
    with pytest.raises(InvalidTurn):
        ToolCall("c", "f", arguments)
    with pytest.raises(InvalidTurn):
        Tool("f", "d", arguments)


def test_deep_but_parseable_objects_are_refused():
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    with pytest.raises(InvalidTurn):
        ToolCall("c", "f", deep)
    nested: dict = {}
    cursor = nested
    for _ in range(100_000):
        cursor["a"] = {}
        cursor = cursor["a"]
    with pytest.raises(InvalidTurn):
        Tool("f", "d", nested)


@pytest.mark.parametrize("arguments", ['{"a": 1e999}', '{"a": -1e400}', '{"a": [1E309]}'])
def test_out_of_range_numbers_are_refused(arguments):
    """JSON has no Infinity: 1e999 parses to inf in Python, which no wire can carry."""
    with pytest.raises(InvalidTurn):
        ToolCall("c", "f", arguments)
    with pytest.raises(InvalidTurn):
        Tool("f", "d", arguments)


@pytest.mark.parametrize("arguments", [{"q": 1}, {}, ["q"], 1, None, b"{}"])
def test_arguments_must_be_text_not_an_object(arguments):
    """ToolCall's arguments is the JSON text of an object (what OpenAI sends): a dict is
    refused like any text field that is not a str."""
    with pytest.raises((TypeError, InvalidText, InvalidTurn)):
        ToolCall("c", "f", arguments)


@pytest.mark.parametrize("parameters", [[], 1, None, b"{}", ("a",), {"a": float("nan")},
                                        {"a": float("inf")}, {"a": {1, 2}}])
def test_parameters_must_be_a_json_object(parameters):
    with pytest.raises((TypeError, InvalidTurn)):
        Tool("f", "d", parameters)


def test_parameters_as_dict_or_text_are_equal():
    schema = {"type": "object", "properties": {"é 🙂": {"type": "string", "enum": ["a", "b"]},
                                               "n": {"type": "integer", "minimum": 1.5}},
              "required": ["é 🙂"]}
    as_text = json.dumps(schema, indent=4, ensure_ascii=True)
    from_dict, from_text = Tool("f", "d", schema), Tool("f", "d", as_text)
    assert from_dict == from_text and hash(from_dict) == hash(from_text)
    assert from_dict.parameters == from_text.parameters
    assert json.loads(from_dict.parameters) == schema == from_text.schema
    assert isinstance(from_dict.parameters, str)


def test_tool_schema_is_a_fresh_copy_and_the_dict_given_is_not_kept():
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    tool = Tool("f", "d", schema)
    schema["properties"]["q"]["type"] = "integer"
    assert tool.schema["properties"]["q"]["type"] == "string"
    tool.schema["properties"].clear()
    assert tool.schema["properties"] == {"q": {"type": "string"}}
    assert request_bytes("s", [], "q", tools=[tool]).count(b'"string"') == 1


def test_call_input_is_a_fresh_copy():
    call = ToolCall("c", "f", '{"a": {"b": 1}}')
    call.input["a"]["b"] = 2
    assert call.input == {"a": {"b": 1}}
    assert call.arguments == '{"a": {"b": 1}}'  # kept as given: the wire sends this text


def test_values_are_frozen_and_hashable():
    call, result = ToolCall("c", "f", "{}"), ToolResult("c", "r")
    tool = Tool("f", "d", {"type": "object"})
    turn = Turn(("q", Image("image/png", pillow_bytes((1, 1), "PNG"))), "a", (call, result))
    for value, name in ((call, "id"), (result, "content"), (tool, "description"),
                        (turn, "answer"), (turn, "steps")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, "x")
        assert hash(value) == hash(dataclasses.replace(value))
        assert value == dataclasses.replace(value)
    assert len({call, ToolCall("c", "f", "{}"), ToolCall("c", "f", "{ }")}) == 2
    assert len({turn, Turn(turn.question, "a", [call, result])}) == 1


def test_tool_description_must_be_text():
    with pytest.raises(InvalidText):
        Tool("f", None, {})
    with pytest.raises(InvalidText):
        Tool("f", b"d", {})


# --- Turn and its rounds -----------------------------------------------------------------


def test_a_plain_turn_is_the_articles_pair():
    turn = Turn("q", "a")
    assert turn.plain and turn.steps == () and turn.rounds == () and turn.images == ()
    assert turn.text == "q"


def test_question_parts():
    image = Image("image/gif", pillow_bytes((3, 2), "GIF", "L"))
    turn = Turn(("look:", image, "and", image), "a")
    assert not turn.plain
    assert turn.text == "look:\nand"
    assert turn.images == (image, image)
    assert Turn((image,), "a").text == ""


@pytest.mark.parametrize("question", [(), ["q"], [("q",)], None, 1, b"q", ("q", 1), ("q", None),
                                      ("q", ("nested",)), ("q", b"bytes")])
def test_bad_questions_are_refused(question):
    with pytest.raises(ValueError):
        Turn(question, "a")


@pytest.mark.parametrize("steps", [
    (C("a"),),  # unanswered
    (C("a"), C("b"), R("a")),  # one of two unanswered
    (R("a"),),  # an answer to a call not made
    (C("a"), R("b")),
    (C("a"), R("a"), R("a")),  # answered twice
    (C("a"), R("a"), C("b"), R("a"), R("b")),  # answers a call of an earlier round
    (C("a"), R("a"), C("a"), R("a")),  # an id repeated across rounds
    (C("a"), C("a"), R("a")),  # an id repeated in a round
    (C("a", "f"), C("a", "g"), R("a"), R("a")),
    (C("a"), C("b"), R("a"), C("c"), R("b"), R("c")),  # calls after partial results
    (C("a"), R("a"), C("b")),  # a second round left open
    (R("a"), C("a")),  # the result before its call
])
def test_rounds_that_do_not_pair_up_are_refused(steps):
    with pytest.raises(InvalidTurn):
        Turn("q", "a", steps)
    with pytest.raises(InvalidTurn):  # the same rule for a turn still in progress
        request_bytes("s", [], "q", current_steps=steps)


@pytest.mark.parametrize("steps", [None, "ab", b"ab", C("a"), 3, {C("a"), R("a")}])
def test_steps_must_be_a_sequence(steps):
    with pytest.raises(TypeError):
        Turn("q", "a", steps)


@pytest.mark.parametrize("step", ["x", None, Turn("q", "a"), {"type": "call"}])
def test_steps_must_be_calls_and_results(step):
    with pytest.raises(TypeError):
        Turn("q", "a", (C("a"), step, R("a")))


def test_rounds_in_order_with_results_shuffled():
    steps = [C("a"), C("b"), C("c"), R("c"), R("a"), R("b"), C("d"), R("d"), C("e"), C("f"),
             R("f"), R("e")]
    turn = Turn("q", "a", steps)
    assert turn.steps == tuple(steps)  # a list is kept as a tuple, in order
    assert [([c.id for c in calls], [r.call_id for r in results])
            for calls, results in turn.rounds] == [
        (["a", "b", "c"], ["c", "a", "b"]), (["d"], ["d"]), (["e", "f"], ["f", "e"])]
    assert not turn.plain


@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.randoms(use_true_random=False))
@settings(max_examples=examples(100))
def test_any_whole_rounds_are_accepted_and_any_one_missing_result_refused(sizes, rng):
    steps, number = [], 0
    for size in sizes:
        calls = [C(f"c{number + k}") for k in range(size)]
        number += size
        results = [R(call.id) for call in calls]
        rng.shuffle(results)
        steps += calls + results
    turn = Turn("q", "a", steps)
    assert [len(calls) for calls, _ in turn.rounds] == sizes
    drop = rng.choice([i for i, step in enumerate(steps) if isinstance(step, ToolResult)])
    with pytest.raises(InvalidTurn):
        Turn("q", "a", steps[:drop] + steps[drop + 1:])
    repeat = rng.choice([i for i, step in enumerate(steps) if isinstance(step, ToolCall)])
    with pytest.raises(InvalidTurn):
        Turn("q", "a", steps + [steps[repeat], R(steps[repeat].id)])


def test_the_same_ids_in_two_turns_are_two_turns():
    # Ids are unique within a turn; two stored turns may each have called "call_1".
    first = Turn("q", "a", (C("call_1"), R("call_1")))
    assert Turn("q2", "a2", (C("call_1"), R("call_1"))) != first


# --- nothing private in reprs, strs and errors ------------------------------------------


def secret_values():
    image = Image("image/png", pillow_bytes((2, 2), "PNG"))
    call = ToolCall(SECRET, f"{SECRET}_name", json.dumps({SECRET: SECRET}))
    result = ToolResult(SECRET, SECRET)
    tool = Tool(f"{SECRET}_t", SECRET, {"type": "object", SECRET: {"description": SECRET}})
    turn = Turn((SECRET, image, SECRET), SECRET, (call, result))
    return [call, result, tool, turn, Turn(SECRET, SECRET), image]


def test_reprs_and_strs_show_no_text():
    for value in secret_values():
        for text in (repr(value), str(value), format(value)):
            assert SECRET not in text, text
    call, result, tool, turn = secret_values()[:4]
    assert "id#" in repr(call) and "id#" in repr(result)
    assert "rounds=1" in repr(turn) and "calls=1" in repr(turn) and "images=1" in repr(turn)


def error_of(action) -> BaseException:
    with pytest.raises(Exception) as info:
        action()
    return info.value


def test_error_messages_show_no_text():
    s = SECRET
    actions = [
        lambda: ToolCall(s, f"{s} x", "{}"),
        lambda: ToolCall(s, "f", f'{{"{s}": NaN}}'),
        lambda: ToolCall(s, "f", f'["{s}"]'),
        lambda: ToolCall(s, "f", f'{{"{s}": "{s}\\ud800"}}'),
        lambda: ToolCall(s, "f", f'{{"{s}": '),
        lambda: ToolCall(s, "f", f"{s}\ud800"),
        lambda: ToolCall("", "f", s),
        lambda: ToolResult(s + "\ud800", s),
        lambda: ToolResult(s, s + "\udc00"),
        lambda: Tool(f"{s} x", s, {}),
        lambda: Tool("f", s, f'{{"{s}": [1,'),
        lambda: Tool("f", s, {s: float("nan")}),
        lambda: Tool("f", s, [s]),
        lambda: Turn(s, s, (C(s),)),
        lambda: Turn(s, s, (R(s),)),
        lambda: Turn(s, s, (C(s), R(s), R(s))),
        lambda: Turn(s, s, (C(s), C(s), R(s))),
        lambda: Turn(s, s, (C(s), C(s + "2"), R(s), C(s + "3"))),
        lambda: Turn(s, s, (C(s), s, R(s))),
        lambda: Turn((s, 1), s),
        lambda: Turn([s], s),
        lambda: Turn((), s),
        lambda: Image("image/png", SECRET_BYTES),
        lambda: Image("image/png", b"\x89PNG\r\n\x1a\n" + SECRET_BYTES),
        lambda: Image("image/webp", b"RIFF" + SECRET_BYTES),
        lambda: request_bytes(s, [], s, tools=[Tool("f", s, {}), Tool("f", s, {})]),
        lambda: request_bytes(s, [], s, current_steps=(C(s),)),
        lambda: request_bytes(s, [Turn(s, s)], s, dialect="anthropic-messages",
                              reserve_tokens=0),
        lambda: select(s, [Turn(s, s, (C(s), R(s)))], s, 50,
                       tools=[Tool("f", s, {s: s})]),
        lambda: select(s, [Turn(s, s)], s, 10_000, max_tokens=5),
        lambda: check_request(json.dumps({"model": s, "messages": [
            {"role": "user", "content": s}, {"role": "tool", "tool_call_id": s, "content": s}]})),
        lambda: check_request(json.dumps({"model": s, "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": s, "name": s,
                                               "input": {s: s}}]}]}),
            dialect="anthropic-messages"),
        lambda: check_request(s),
    ]
    kinds = set()
    for action in actions:
        error = error_of(action)
        kinds.add(type(error).__name__)
        for text in (str(error), repr(error), *map(str, error.args)):
            assert SECRET not in text, (type(error).__name__, text)
        if isinstance(error, (BudgetError, InvalidRequest)):
            assert SECRET not in str(vars(error))
    assert {"InvalidText", "InvalidTurn", "TypeError", "BudgetError", "InvalidRequest",
            "ValueError"} <= kinds


def deepest_accepted(make) -> int:
    """The deepest nesting that ``make`` accepts (a binary search below 5000 levels)."""
    low, high = 1, 5000
    while low < high:
        middle = (low + high + 1) // 2
        try:
            make('{"a":' * middle + "1" + "}" * middle)
            low = middle
        except (InvalidTurn, RecursionError):
            high = middle - 1
    return low


def at_depth(frames: int, action):
    """``action()`` called ``frames`` Python frames deeper (a notebook's stack is deep)."""
    return action() if frames == 0 else at_depth(frames - 1, action)


def test_the_deepest_accepted_arguments_are_writable():
    depth = deepest_accepted(lambda text: ToolCall("c", "f", text))
    arguments = '{"a":' * depth + "1" + "}" * depth
    turn = Turn("q", "a", (ToolCall("c", "f", arguments), ToolResult("c", "r")))
    def schema(text):  # an object schema around ``text``
        return '{"type":"object","a":' + text + "}"
    tool_depth = deepest_accepted(lambda text: Tool("f", "d", schema(text)))
    tool = Tool("f", "d", schema('{"a":' * tool_depth + "1" + "}" * tool_depth))
    for dialect in ("openai-chat", "anthropic-messages"):
        options = dict(dialect=dialect, reserve_tokens=3) if dialect != "openai-chat" else {}
        at_depth(60, lambda: request_bytes("s", [turn], "q", **options))
        at_depth(60, lambda: request_bytes("s", [], "q", tools=[tool], **options))
        at_depth(60, lambda: select("s", [turn], "q", 10**6, tools=[tool], **options))
