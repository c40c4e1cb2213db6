"""The journal stores whole rich turns: tool rounds, and questions of text and image parts.

A plain turn (a str question, no steps) stays the Java reference's record byte for byte;
a richer one adds ``parts`` and ``steps`` after ``id``, ``question``, ``answer``. Decoding
stays strict: every refusal here is a corrupt journal, refused with the file unchanged and
a message naming the problem, never the text.
"""

import base64
import glob
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerlab import (
    Image,
    InvalidTurn,
    Journal,
    JournalCorrupt,
    JournalFull,
    ToolCall,
    ToolResult,
    Turn,
    TurnConflict,
    encode_record,
    salvage,
)
from ledgerlab.cli import main as cli_main
from ledgerlab.journal import (
    PART_KEYS,
    RECORD_KEYS,
    RICH_KEYS,
    STEP_KEYS,
    decode_record,
    encode_turn,
    examine,
    files,
    id_tag,
)
from sentences import says
from tiers import examples

SECRET = "PRIVATE-MARKER 接🙂"


# --- Tiny valid images: the Image class reads only the header ---------------------------------
def png(width=3, height=2, extra=b""):
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
            + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00" + b"\0" * 4 + extra)


def gif(width=3, height=2):
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00"


def jpeg(width=3, height=2):
    return b"\xff\xd8\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"


def webp(width=3, height=2):
    chunk = (b"VP8X" + struct.pack("<I", 10) + b"\0" * 4
             + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little"))
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


IMAGES = {"image/png": png, "image/gif": gif, "image/jpeg": jpeg, "image/webp": webp}
# An image whose bytes hold the secret after its header: it must not show either.
SECRET_IMAGE = Image("image/png", png(640, 480, SECRET.encode()))


def call(call_id, name="lookup", arguments='{"code":"X-1"}'):
    return ToolCall(call_id, name, arguments)


def result(call_id, content="found"):
    return ToolResult(call_id, content)


# One round of two parallel calls answered out of order, then a second round of one call.
ROUNDS = (call("c1", arguments='{"q":"' + SECRET + '"}'), call("c2", "SECRET_tool"),
          result("c2", SECRET + " result"), result("c1"), call("c3"), result("c3", "done"))
RICH = Turn((SECRET + " question", SECRET_IMAGE, "more text"), SECRET + " answer", ROUNDS)


def line_of(payload: bytes) -> bytes:
    """A record line with a valid checksum around any payload: hostile JSON included."""
    return (base64.b64encode(payload) + b" " + hashlib.sha256(payload).hexdigest().encode()
            + b"\n")


def payload_of(line: bytes) -> bytes:
    return base64.b64decode(line.split(b" ")[0])


def pairs_of(line: bytes):
    return json.loads(payload_of(line), object_pairs_hook=lambda pairs: pairs)


def directory_bytes(path):
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())


# --- The plain record is the reference's, byte for byte -----------------------------------------
def test_a_plain_turn_is_still_the_142_byte_reference_record(log):
    expected = '{"id":"two","question":"第二问","answer":"第二答"}'.encode()
    line = encode_record("two", "第二问", "第二答")
    assert len(line) == 142 and payload_of(line) == expected
    assert encode_record("two", "第二问", "第二答", ()) == line
    assert encode_turn("two", Turn("第二问", "第二答")) == line
    with Journal(log) as journal:
        journal.commit("two", "第二问", "第二答", steps=())
    assert log.read_bytes() == line


# --- The payload: keys, their order, and what each holds ---------------------------------------
def test_the_rich_payload_is_the_documented_keys_in_order():
    assert RECORD_KEYS == ["id", "question", "answer"] and RICH_KEYS == ["parts", "steps"]
    assert PART_KEYS == {"text": ["type", "text"], "image": ["type", "media_type", "data"],
                         "document": ["type", "media_type", "data"]}  # then filename, if any
    assert STEP_KEYS == {"call": ["type", "id", "name", "arguments"],
                         "result": ["type", "call_id", "content"],
                         "error": ["type", "call_id", "content"],
                         "text": ["type", "text"], "reasoning": ["type", "dialect", "item"],
                         "item": ["type", "dialect", "item"]}
    turn = Turn(("what is this?", Image("image/gif", gif())), "a cat",
                (call("c1", "see", "{}"), result("c1", "whiskers")))
    assert payload_of(encode_turn("r", turn)).decode() == (
        '{"id":"r","question":"what is this?","answer":"a cat",'
        '"parts":[{"type":"text","text":"what is this?"},'
        '{"type":"image","media_type":"image/gif","data":"' + base64.b64encode(gif()).decode()
        + '"}],'
        '"steps":[{"type":"call","id":"c1","name":"see","arguments":"{}"},'
        '{"type":"result","call_id":"c1","content":"whiskers"}]}')
    # Each key only when present: no parts for a str question, no steps without rounds.
    only_steps = Turn("q", "a", (call("c1"), result("c1")))
    assert [key for key, _ in pairs_of(encode_turn("s", only_steps))] == [
        "id", "question", "answer", "steps"]
    only_parts = Turn(("q", Image("image/png", png())), "a")
    assert [key for key, _ in pairs_of(encode_turn("p", only_parts))] == [
        "id", "question", "answer", "parts"]


def test_question_is_the_text_of_the_parts_so_the_reference_reads_a_plain_turn():
    # What the Java reference does: gson, then id, question and answer as strings.
    payload = json.loads(payload_of(encode_turn("r", RICH)))
    assert (payload["id"], payload["question"], payload["answer"]) == (
        "r", SECRET + " question\nmore text", SECRET + " answer")
    assert payload["question"] == RICH.text
    only_image = json.loads(payload_of(encode_turn("i", Turn((SECRET_IMAGE,), "a"))))
    assert only_image["question"] == ""


GSON_READER = """
import com.google.gson.*;
import java.nio.file.*;
import java.util.Base64;
public class GsonReader {
  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(Paths.get(args[0]))) {
      String[] fields = line.split(" ");
      JsonObject o = JsonParser.parseString(new String(Base64.getDecoder().decode(fields[0]),
          "UTF-8")).getAsJsonObject();
      System.out.println(o.get("id").getAsString() + "\\t"
          + o.get("question").getAsString().replace("\\n", "\\\\n") + "\\t"
          + o.get("answer").getAsString());
    }
  }
}
"""


def gson_jar():
    found = os.environ.get("LEDGERLAB_GSON_JAR") or sorted(glob.glob(os.path.expanduser(
        "~/.m2/repository/com/google/code/gson/gson/*/gson-*.jar")))
    return found if isinstance(found, str) else (found[-1] if found else None)


def gson_reads(log, tmp_path) -> str:
    """What real gson reads of the journal at ``log`` (id, question, answer per line); the
    test is skipped where no JDK and gson jar are at hand."""
    jar, javac, java = gson_jar(), shutil.which("javac"), shutil.which("java")
    if not (jar and javac and java):
        pytest.skip("needs javac, java and a gson jar (LEDGERLAB_GSON_JAR)")
    source = tmp_path / "GsonReader.java"
    source.write_text(GSON_READER)
    subprocess.run([javac, "-cp", jar, "-d", str(tmp_path), str(source)], check=True)
    return subprocess.run([java, "-cp", f"{tmp_path}{os.pathsep}{jar}", "GsonReader", str(log)],
                          capture_output=True, text=True, encoding="utf-8", check=True).stdout


@pytest.mark.slow  # compiles and runs Java
def test_gson_reads_a_rich_record_as_its_text_and_final_answer(log, tmp_path):
    """The reference's reading, by real gson where a JDK and a gson jar are at hand."""
    with Journal(log) as journal:
        journal.commit("two", "第二问", "第二答")
        journal.commit("rich", ("look", Image("image/png", png()), "here"), "final",
                       steps=(call("c1"), result("c1")))
    assert gson_reads(log, tmp_path) == "two\t第二问\t第二答\nrich\tlook\\nhere\tfinal\n"


# --- Round trips -----------------------------------------------------------------------------
ROUND_TRIPS = {
    "parallel calls": Turn("q", "a", (call("a"), call("b"), call("c"), result("b"),
                                      result("c"), result("a"))),
    "several rounds": Turn("q", "a", tuple(step for n in range(5)
                                           for step in (call(f"c{n}"), result(f"c{n}")))),
    "rounds and parts": RICH,
    "text parts only": Turn(("one", "", "two\u2028three"), "a"),
    "one text part": Turn(("only",), "a"),
    "an image only": Turn((Image("image/webp", webp(9, 7)),), "a"),
    "two images, one text": Turn((Image("image/png", png()), "between",
                                  Image("image/jpeg", jpeg())), "a"),
    **{f"an image/{name.split('/')[1]}": Turn(("see", Image(name, make(17, 11))), "a")
       for name, make in IMAGES.items()},
    "unicode everywhere": Turn(("é接🙂\"\\\n", Image("image/gif", gif())), "接🙂\u2029",
                               (ToolCall("é接", "t_-1", '{"k":["接",1,null,{"x":true}]}'),
                                ToolResult("é接", "🙂\n"))),
}


@pytest.mark.parametrize("name", sorted(ROUND_TRIPS))
def test_rich_turns_round_trip_through_the_file(log, name):
    turn = ROUND_TRIPS[name]
    line = encode_turn("t", turn)
    assert decode_record(line.rstrip(b"\n")).turn == turn
    assert encode_record("t", turn.question, turn.answer, turn.steps) == line
    with Journal(log) as journal:
        assert journal.commit("plain", "q", "a") == "a"
        assert journal.commit("t", turn.question, turn.answer, steps=turn.steps) == turn.answer
        assert journal.find("t") == turn
    assert log.read_bytes() == encode_record("plain", "q", "a") + line
    with Journal(log) as journal:
        assert journal.history() == [Turn("q", "a"), turn]
        stored = journal.find("t")
        assert stored.steps == turn.steps and stored.rounds == turn.rounds
        assert [image.data for image in stored.images] == [image.data for image in turn.images]


def test_real_images_of_each_format_round_trip(log):
    pil = pytest.importorskip("PIL.Image")
    import io

    parts = []
    for name, options in [("PNG", {}), ("JPEG", {}), ("GIF", {}), ("WEBP", {}),
                          ("WEBP", {"lossless": True})]:
        buffer = io.BytesIO()
        pil.new("RGB", (33, 21), (200, 10, 10)).save(buffer, name, **options)
        parts.append(Image(f"image/{name.lower()}", buffer.getvalue()))
    turn = Turn(tuple(parts), "five images")
    with Journal(log) as journal:
        journal.commit("pics", turn.question, turn.answer)
    with Journal(log) as journal:
        stored = journal.find("pics")
    assert stored == turn and [(i.width, i.height) for i in stored.images] == [(33, 21)] * 5


def test_a_list_of_steps_is_stored_as_the_tuple_it_becomes(log):
    with Journal(log) as journal:
        journal.commit("t", "q", "a", steps=[call("c1"), result("c1")])
    with Journal(log) as journal:
        assert journal.find("t").steps == (call("c1"), result("c1"))


# --- Strict decoding: every refusal, file unchanged ---------------------------------------------
PADDED_PNG = png(extra=b"xy")  # 35 bytes: its base64 ends in one "="
BASE = payload_of(encode_turn("r", Turn((SECRET, Image("image/png", PADDED_PNG)), SECRET,
                                         (call("c1"), call("c2"), result("c1"),
                                          result("c2"))))).decode()
DATA = base64.b64encode(PADDED_PNG).decode()
CALL1 = '{"type":"call","id":"c1","name":"lookup","arguments":"{\\"code\\":\\"X-1\\"}"}'
RESULT1 = '{"type":"result","call_id":"c1","content":"found"}'
IMAGE_PART = '{"type":"image","media_type":"image/png","data":"' + DATA + '"}'
TEXT_PART = '{"type":"text","text":"' + SECRET + '"}'
PARTS = '"parts":[' + TEXT_PART + "," + IMAGE_PART + "]"
CALL3 = '{"type":"call","id":"c3","name":"lookup","arguments":"{}"}'


def changed(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def swapped_keys(first: str, second: str) -> str:
    """BASE with the top-level ``first`` and ``second`` keys (and their values) exchanged."""
    pairs = json.loads(BASE, object_pairs_hook=lambda pairs: pairs)
    keys = [key for key, _ in pairs]
    i, j = keys.index(first), keys.index(second)
    pairs[i], pairs[j] = pairs[j], pairs[i]
    return _json(pairs)


def _json(value) -> str:
    """Serialize a value parsed with pairs kept (objects as lists of pairs)."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):  # object
        return "{" + ",".join(json.dumps(k) + ":" + _json(v) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _padding_changed(data: str) -> str:
    # A base64 whose unused padding bits are set decodes to the same bytes: not canonical.
    assert data.endswith("=") and not data.endswith("==")
    last = data[-2]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return data[:-2] + alphabet[alphabet.index(last) + 1] + "="


# What each refusal must say, in this order: the field, by its path in the payload, and what
# is wrong with it (the type it must be and the type found, the keys it may hold, the limit).
NOT_AN_OBJECT = ("payload", "id", "question", "answer", "parts", "steps")
NOT_A_PART = ("payload", "parts[1]", "text", "image", "document")
NOT_A_STEP = ("payload", "steps[1]", "call", "result", "error", "text", "reasoning", "item")
REFUSED = {
    # the keys: their order, one too many, one repeated, one missing
    "parts before answer": (swapped_keys("answer", "parts"), NOT_AN_OBJECT),
    "steps before parts": (swapped_keys("parts", "steps"), NOT_AN_OBJECT),
    "an extra key": (BASE[:-1] + ',"images":[]}', NOT_AN_OBJECT),
    "parts repeated": (changed(',"steps":', ',"parts":[' + TEXT_PART + '],"steps":'),
                       NOT_AN_OBJECT),
    "an extra key in a part": (changed(DATA + '"', DATA + '","alt":"x"'),
                               ("payload", "parts[2]", "type", "media_type", "data")),
    "a part's keys reordered": (changed('"type":"text","text":"' + SECRET + '"',
                                        '"text":"' + SECRET + '","type":"text"'),
                                NOT_A_PART),
    "a key missing in a step": (changed(',"content":"found"', ""),
                                ("payload", "steps[3]", "type", "call_id", "content")),
    "an extra key in a step": (changed('"name":"lookup"', '"name":"lookup","input":{}'),
                               ("payload", "steps[1]", "type", "id", "name", "arguments")),
    "an unknown part type": (changed('"type":"text"', '"type":"audio"'),
                             NOT_A_PART),
    "an unknown step type": (changed('"type":"call"', '"type":"tool_use"'),
                             NOT_A_STEP),
    # wrong types, all the way down: the type it must be, then the JSON type found
    "parts an object": (changed('"parts":[', '"parts":{"x":[').replace('],"steps"', ']},"steps"'),
                        ("payload", "parts", "array", "object")),
    "parts a string": (changed(PARTS, '"parts":"x"'), ("payload", "parts", "array", "string")),
    "parts NaN": (changed(PARTS, '"parts":NaN'), ("payload", "parts", "array", "number")),
    "steps null": (BASE.split(',"steps":')[0] + ',"steps":null}',
                   ("payload", "steps", "array", "null")),
    "a part a string": (changed(TEXT_PART, '"text"'), ("payload", "parts[1]", "object", "string")),
    "a step an array": (changed(RESULT1, '["result","c1","found"]'),
                        ("payload", "steps[3]", "object", "array")),
    "a part's type a number": (changed('"type":"text"', '"type":1'),
                               NOT_A_PART),
    "a part's type an array": (changed('"type":"text"', '"type":["text"]'),
                               NOT_A_PART),
    "text a number": (changed('"text":"' + SECRET + '"', '"text":7'),
                      ("payload", "parts[1].text", "string", "number")),
    "media_type null": (changed('"media_type":"image/png"', '"media_type":null'),
                        ("payload", "parts[2].media_type", "string", "null")),
    "data an array": (changed('"data":"' + DATA + '"', '"data":[1,2]'),
                      ("payload", "parts[2].data", "string", "array")),
    "a call id a number": (changed('"id":"c1"', '"id":1'),
                           ("payload", "steps[1].id", "string", "number")),
    "arguments an object": (changed('"arguments":"{\\"code\\":\\"X-1\\"}"', '"arguments":{}'),
                            ("payload", "steps[1].arguments", "string", "object")),
    "content true": (changed('"content":"found"', '"content":true'),
                     ("payload", "steps[3].content", "string", "true")),
    "question an array beside parts": (changed('"question":"' + SECRET + '"', '"question":["x"]'),
                                       ("payload", "question", "string", "array")),
    "answer an object": (changed('"answer":"' + SECRET + '"', '"answer":{}'),
                         ("payload", "answer", "string", "object")),
    "parts nested 5,000 deep": (changed(PARTS, '"parts":' + "[" * 5000 + "]" * 5000),
                                ("payload", "JSON", "nested")),
    # image data: canonical base64 and a valid image
    "image base64 with its padding bits set": (changed(DATA, _padding_changed(DATA)),
                                               ("payload", "parts[2].data", "canonical base64")),
    "image base64 without its padding": (changed(DATA + '"', DATA.rstrip("=") + '"'),
                                         ("payload", "parts[2].data", "valid base64")),
    "image base64 with a newline": (changed(DATA, DATA[:8] + "\\n" + DATA[8:]),
                                    ("payload", "parts[2].data", "valid base64")),
    "image base64, URL-safe": (changed(DATA, DATA[:4] + "-_" + DATA[6:]),
                               ("payload", "parts[2].data", "valid base64")),
    "image base64 not ASCII": (changed(DATA, DATA[:-4] + "接接=="),
                               ("payload", "parts[2].data", "valid base64")),
    "image data not a PNG": (changed(DATA, base64.b64encode(gif()).decode()),
                             ("payload", "parts[2]", "image", "13 bytes", "image/png")),
    "an unknown media type": (changed('"image/png"', '"image/bmp"'),
                              ("payload", "parts[2]", "image", "media_type", "image/png",
                               "image/jpeg", "image/gif", "image/webp")),
    "an empty image": (changed(DATA, ""), ("payload", "parts[2]", "image", "0 bytes")),
    # the question is the text of its parts
    "question not the parts' text": (changed('"question":"' + SECRET + '"', '"question":"x"'),
                                     ("payload", "question", "text", "parts")),
    "question with an image's place as a newline": (
        changed('"question":"' + SECRET + '"', '"question":"' + SECRET + '\\n"'),
        ("payload", "question", "text", "parts")),
    # empty arrays: the encoder leaves the key out instead
    "parts empty": (changed(PARTS, '"parts":[]'), ("payload", "parts", "empty array")),
    "steps empty": (BASE.split(',"steps":')[0] + ',"steps":[]}',
                    ("payload", "steps", "empty array")),
    # the rounds must pair up, as Turn checks them
    "an unanswered call": (changed("," + RESULT1.replace("c1", "c2"), ""),
                           ("payload", "steps", "round 1", "1 call(s)", "unanswered")),
    "a result without its call": (changed(CALL1 + ",", ""),
                                  ("payload", "steps", "step 2", "unanswered call")),
    "a repeated call id": (changed('"id":"c2"', '"id":"c1"'),
                           ("payload", "steps", "call id", "twice")),
    "a call before its round is answered": (changed(RESULT1 + ",", RESULT1 + "," + CALL3 + ","),
                                            ("payload", "steps", "round 1", "1 call(s)",
                                             "unanswered", "step 4")),
    # the values of the parts and steps, as their constructors check them
    "arguments not an object": (changed('"arguments":"{\\"code\\":\\"X-1\\"}"',
                                        '"arguments":"[1]"'),
                                ("payload", "steps[1]", "arguments", "JSON object", "JSON list")),
    "arguments nested 5,000 deep": (changed('"arguments":"{\\"code\\":\\"X-1\\"}"',
                                            '"arguments":"' + "[" * 5000 + "]" * 5000 + '"'),
                                    ("payload", "steps[1]", "arguments", "valid JSON")),
    "a tool name with a space": (changed('"name":"lookup"', '"name":"look up"'),
                                 ("payload", "steps[1]", "tool name", 1, 128, "7 characters")),
    "an empty call id": (changed('"id":"c1"', '"id":""'),
                         ("payload", "steps[1]", "call id", "empty")),
    "a lone surrogate in a text part": (changed('"text":"' + SECRET + '"', '"text":"\\ud800"')
                                        .replace('"question":"' + SECRET + '"',
                                                 '"question":"\\ud800"'),
                                        ("payload", "question part 1", "Unicode")),
    "a lone surrogate in a result": (changed('"content":"found"', '"content":"\\udfff"'),
                                     ("payload", "steps[3]", "content", "Unicode")),
}


def test_the_refusals_start_from_a_record_that_decodes():
    assert decode_record(line_of(BASE.encode()).rstrip(b"\n")).turn.steps
    assert CALL1 in BASE and RESULT1 in BASE and IMAGE_PART in BASE and TEXT_PART in BASE


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_rich_record_that_does_not_check_out_is_a_corrupt_journal(log, name):
    payload, problem = REFUSED[name]
    assert payload != BASE
    bad = line_of(payload.encode())
    data = encode_record("one", "q", "a") + bad + encode_record("three", "q", "a")
    log.write_bytes(data)
    with pytest.raises(ValueError) as decoded:
        decode_record(bad.rstrip(b"\n"))
    says(str(decoded.value), *problem, in_order=True)
    assert type(decoded.value) is ValueError  # not an InvalidTurn leaking out
    with pytest.raises(JournalCorrupt) as caught:
        Journal(log)
    message = str(caught.value)
    says(message, "line 2", len(encode_record("one", "q", "a")), "corrupt", *problem,
         in_order=True)
    assert "PRIVATE" not in message and "接" not in message
    assert log.read_bytes() == data
    assert [line.problem for line in examine(data)] == [None, str(decoded.value), None]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=8)


def _replace_somewhere(value, path, new):
    """``value`` (from json.loads) with the node at ``path`` (indices into its walk) replaced."""
    nodes = []

    def walk(node, set_node):
        nodes.append(set_node)
        if isinstance(node, dict):
            for key in list(node):
                walk(node[key], lambda new, node=node, key=key: node.__setitem__(key, new))
        elif isinstance(node, list):
            for index in range(len(node)):
                walk(node[index],
                     lambda new, node=node, index=index: node.__setitem__(index, new))

    holder = [value]
    walk(value, lambda new: holder.__setitem__(0, new))
    nodes[path % len(nodes)](new)
    return holder[0]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.integers(min_value=0), new=JSON_VALUES)
def test_any_value_anywhere_in_a_rich_payload_decodes_or_is_a_value_error(path, new):
    payload = _replace_somewhere(json.loads(BASE), path, new)
    line = line_of(json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    try:
        record = decode_record(line.rstrip(b"\n"))
    except ValueError as error:
        assert type(error) is ValueError and "PRIVATE" not in str(error)
    else:  # what decodes is a turn the journal writes back the same
        turn = record.turn
        again = encode_record(record.id, turn.question, turn.answer, turn.steps)
        assert decode_record(again.rstrip(b"\n")).turn == turn


# --- Commit: idempotency, conflicts, refused input, the cap ---------------------------------------
def test_commit_is_idempotent_for_the_same_question_and_steps(log):
    with Journal(log) as journal:
        assert journal.commit("r", RICH.question, RICH.answer, steps=RICH.steps) == RICH.answer
        before = log.read_bytes()
        # An equal question and steps, built anew: the stored answer, nothing written.
        question = (SECRET + " question", Image("image/png", png(640, 480, SECRET.encode())),
                    "more text")
        assert journal.commit("r", question, "another answer", steps=list(ROUNDS)) == RICH.answer
        assert log.read_bytes() == before and journal.find("r") == RICH


@pytest.mark.parametrize("question, steps, what", [
    (RICH.question, ROUNDS[:4], "other tool rounds"),  # a round fewer
    (RICH.question, (), "other tool rounds"),
    (RICH.question, ROUNDS[:2] + (result("c1"), result("c2")) + ROUNDS[4:], "other tool rounds"),
    (RICH.question, ROUNDS[:2] + (result("c2", SECRET + " other"),) + ROUNDS[3:],
     "other tool rounds"),
    (RICH.question[:2], ROUNDS, "another question"),
    ((RICH.question[0], Image("image/png", png(640, 481, SECRET.encode())), RICH.question[2]),
     ROUNDS, "another question"),  # another image
    (RICH.text, ROUNDS, "another question"),  # the same text, as a str
])
def test_the_same_id_with_another_question_or_other_steps_is_a_conflict(log, question, steps,
                                                                        what):
    with Journal(log) as journal:
        journal.commit("r", RICH.question, RICH.answer, steps=RICH.steps)
        before = log.read_bytes()
        with pytest.raises(TurnConflict) as caught:
            journal.commit("r", question, RICH.answer, steps=steps)
        assert what in str(caught.value) and "PRIVATE" not in str(caught.value)
        assert log.read_bytes() == before and journal.find("r") == RICH


def test_a_plain_turn_committed_again_with_steps_is_a_conflict(log):
    with Journal(log) as journal:
        journal.commit("t", "q", "a")
        with pytest.raises(TurnConflict, match="other tool rounds"):
            journal.commit("t", "q", "a", steps=(call("c1"), result("c1")))
    assert log.read_bytes() == encode_record("t", "q", "a")


@pytest.mark.parametrize("steps", [
    (call("c1"),),  # unanswered
    (result("c1"),),  # no call
    (call("c1"), result("c1"), call("c1"), result("c1")),  # an id used twice
    (call("c1"), call("c2"), result("c1"), call("c3"), result("c2"), result("c3")),
])
def test_a_turn_whose_rounds_do_not_pair_up_is_refused_and_nothing_written(log, steps):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        with pytest.raises(InvalidTurn):
            journal.commit("t", "q", "a", steps=steps)
        with pytest.raises(InvalidTurn):
            encode_record("t", "q", "a", steps)
        assert journal.find("t") is None
    assert log.read_bytes() == encode_record("one", "q", "a")


def test_a_rich_commit_that_would_cross_the_cap_is_refused_with_the_file_unchanged(log):
    big = Turn(("q", Image("image/png", png(extra=b"\0" * 3000))), "a")
    line = encode_turn("big", big)
    first = encode_record("one", "q", "a")
    with Journal(log, max_bytes=len(first) + len(line) - 1) as journal:
        journal.commit("one", "q", "a")
        with pytest.raises(JournalFull) as caught:
            journal.commit("big", big.question, big.answer)
        assert f"a {len(line)}-byte record" in str(caught.value)
        assert journal.find("big") is None
    assert log.read_bytes() == first
    with Journal(log, max_bytes=len(first) + len(line)) as journal:  # exactly at the cap: fits
        journal.commit("big", big.question, big.answer)
    assert log.read_bytes() == first + line


def test_the_default_cap_refuses_an_image_that_does_not_fit(log):
    huge = Image("image/png", png(extra=b"\0" * (3 * 1024 * 1024 + 1)))  # 4 MiB in base64
    with Journal(log) as journal:
        with pytest.raises(JournalFull):
            journal.commit("huge", ("q", huge), "a")
    assert log.read_bytes() == b""


# --- One line per turn: a call is never on disk without its result ------------------------------
def test_one_commit_is_one_write_of_one_whole_line(log, monkeypatch):
    writes = []
    real = files.write_all

    def recording(fd, data):
        writes.append(bytes(data))
        return real(fd, data)

    monkeypatch.setattr("ledgerlab.journal.store.write_all", recording)
    with Journal(log) as journal:
        journal.commit("r", RICH.question, RICH.answer, steps=RICH.steps)
    assert writes == [encode_turn("r", RICH)] and writes[0].count(b"\n") == 1


@pytest.mark.slow  # opens the journal twice per byte offset of a rich line
def test_every_torn_prefix_of_a_rich_line_is_cut_like_any_torn_tail(log):
    first = encode_record("one", "q", "a")
    rich = encode_turn("r", Turn(("q", Image("image/gif", gif())), "a",
                                 (call("c1"), call("c2"), result("c2"), result("c1"))))
    for cut in range(len(rich)):
        for tail in (rich[:cut], rich[:cut] + b"\0" * 9):
            log.write_bytes(first + tail)
            with Journal(log) as journal:
                assert journal.history() == [Turn("q", "a")]
            assert log.read_bytes() == first, cut
    log.write_bytes(first + rich)
    with Journal(log) as journal:
        assert len(journal.find("r").steps) == 4


# --- inspect: counts and sizes, never text --------------------------------------------------------
def test_inspect_shows_rounds_calls_and_images_counted_and_sized_never_text(log, capsys):
    with Journal(log) as journal:
        journal.commit("two", "第二问", "第二答")
        journal.commit("r", RICH.question, RICH.answer, steps=RICH.steps)
        journal.commit("s", "q", "a", steps=(call("c9", arguments="{}"), result("c9", "xy")))
        journal.commit("p", ("text", "parts"), "a")
    assert cli_main(["inspect", str(log)]) == 0
    out, err = capsys.readouterr()
    rows = out.splitlines()
    assert rows[0].split() == ["line", "offset", "bytes", "question", "answer", "sha256",
                               "status"]
    assert rows[1].endswith("       9         9  0f682b20eea0  ok")  # plain: as it always was
    arguments = sum(len(step.arguments.encode()) for step in ROUNDS if isinstance(step, ToolCall))
    results = sum(len(step.content.encode()) for step in ROUNDS if isinstance(step, ToolResult))
    image = len(SECRET_IMAGE.data)
    assert rows[2].split()[3:5] == [str(len(RICH.text.encode())), str(len(RICH.answer.encode()))]
    says(rows[2], "ok", "2 rounds", "3 calls", f"{arguments} bytes", "arguments",
         f"{results} bytes", "results", "1 image", f"{image} bytes", in_order=True)
    says(rows[3], "ok", "1 round", "1 call", "2 bytes", "arguments", "2 bytes", "results",
         in_order=True)
    assert "image" not in rows[3]
    assert rows[4].endswith("ok; text parts only")
    assert rows[5] == f"4 turns, {log.stat().st_size} bytes, 0 corrupt lines, 0 torn-tail bytes"
    assert len(rows) == 7
    says(rows[6], 3, "tool rounds", "images", "3 rounds", "4 calls", f"{arguments + 2} bytes",
         "arguments", f"{results + 2} bytes", "results", "1 image", f"{image} bytes",
         in_order=True)
    shown = out + err
    for private in (SECRET, "PRIVATE", "SECRET_tool", "lookup", "X-1", "found", "done",
                    SECRET_IMAGE.base64[:40], "text", "parts"):
        assert private not in shown.replace("text parts only", ""), private
    assert "SECRET" not in shown


def test_inspect_of_a_plain_journal_adds_no_line(log, capsys):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
    assert cli_main(["inspect", str(log)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"1 turns, {log.stat().st_size} bytes, 0 corrupt lines, " \
                                   f"0 torn-tail bytes"
    assert "tool rounds" not in out


def test_inspect_names_the_problem_of_a_bad_rich_line_and_exits_1(log, capsys):
    payload, problem = REFUSED["an unanswered call"]
    log.write_bytes(encode_turn("r", RICH) + line_of(payload.encode()))
    assert cli_main(["inspect", str(log)]) == 1
    out, err = capsys.readouterr()
    says(out, *problem, in_order=True)
    assert "1 turns" in out and "1 corrupt lines" in out
    assert "PRIVATE" not in out + err and "refuses to open" in err


# --- forget, retain, facts and salvage on rich turns ----------------------------------------------
@pytest.fixture
def rich_log(log):
    with Journal(log) as journal:
        journal.commit("one", ("first", Image("image/jpeg", jpeg())), "first answer",
                       steps=(call("a1"), result("a1")))
        journal.commit("secret", RICH.question, RICH.answer, steps=RICH.steps)
        journal.commit("three", "third", "third answer", steps=(call("b1"), call("b2"),
                                                                 result("b1"), result("b2")))
    return log


def test_forget_deletes_a_rich_turn_its_image_and_rounds_and_keeps_the_rest(rich_log, capsys):
    before = rich_log.read_bytes().splitlines(keepends=True)
    assert before[1] == encode_turn("secret", RICH)
    with Journal(rich_log) as journal:
        journal.pin("f1", "a fact", origin="secret")
        journal.pin("f2", "kept", origin="three")
    assert cli_main(["forget", str(rich_log), "secret"]) == 0
    assert "3 -> 2 turns" in capsys.readouterr().out
    assert rich_log.read_bytes().splitlines(keepends=True) == [before[0], before[2]]
    everything = directory_bytes(rich_log)
    for private in (SECRET.encode(), base64.b64encode(SECRET.encode()), b"SECRET_tool",
                    SECRET_IMAGE.base64.encode(), before[1].split(b" ")[0][:40]):
        assert private not in everything
    with Journal(rich_log) as journal:
        assert journal.ids() == ("one", "three")
        assert [fact.id for fact in journal.facts()] == ["f2"]
        assert len(journal.find("three").rounds[0][0]) == 2


def test_retain_keeps_the_newest_rich_turns_byte_identical(rich_log):
    before = rich_log.read_bytes().splitlines(keepends=True)
    with Journal(rich_log) as journal:
        journal.pin("f0", "old", origin="one")
        assert journal.retain(last=2) == 1
        assert journal.facts() == []
        assert journal.find("secret") == RICH
    assert rich_log.read_bytes().splitlines(keepends=True) == before[1:]


def test_a_fact_pinned_from_a_rich_turn_lives_and_dies_with_it(rich_log, capsys):
    with Journal(rich_log) as journal:
        fact = journal.pin("f1", "the code is X-1", origin="secret")
    with Journal(rich_log) as journal:
        assert journal.facts() == [fact] and journal.find("secret") == RICH
    assert cli_main(["inspect", str(rich_log)]) == 0
    out = capsys.readouterr().out
    assert "1 facts from 1 turns" in out and id_tag("secret") in out and "X-1" not in out
    with Journal(rich_log) as journal:
        journal.forget("secret")
        assert journal.facts() == []


def test_salvage_keeps_the_good_rich_lines_byte_for_byte(rich_log, tmp_path, capsys):
    good = rich_log.read_bytes().splitlines(keepends=True)
    damaged = bytearray(good[1])
    damaged[40] ^= 1  # the checksum no longer matches
    unpaired = line_of(REFUSED["an unanswered call"][0].encode())
    with Journal(rich_log) as journal:
        journal.pin("f1", "fact of one", origin="one")
        journal.pin("f2", "fact of the damaged", origin="secret")
    rich_log.write_bytes(good[0] + bytes(damaged) + unpaired + good[2])
    with pytest.raises(JournalCorrupt):
        Journal(rich_log)
    out_path = tmp_path / "saved.log"
    result_ = salvage(rich_log, out_path)
    assert result_.kept == 2 and [line.number for line in result_.lost] == [2, 3]
    assert result_.lost[1].id_tag == id_tag("r")
    assert "unanswered" in result_.lost[1].problem and "PRIVATE" not in repr(result_)
    assert out_path.read_bytes() == good[0] + good[2]
    assert result_.facts_kept == 1
    with Journal(out_path) as journal:
        assert journal.ids() == ("one", "three") and journal.find("one").images
        assert [fact.id for fact in journal.facts()] == ["f1"]
    assert cli_main(["salvage", str(rich_log), "--out", str(tmp_path / "again.log")]) == 1
    out, err = capsys.readouterr()
    assert "salvaged 2 records" in out and "PRIVATE" not in out + err


# --- kill -9 during rich commits --------------------------------------------------------------------
CHILD = """
import os, sys
from ledgerlab import Image, Journal, ToolCall, ToolResult
png = bytes.fromhex(sys.argv[3])
number = int(sys.argv[2])
with Journal(sys.argv[1]) as journal:
    while True:
        calls = [ToolCall(f"c{number}.{k}", "lookup", '{"n":%d}' % k) for k in range(number % 4 + 1)]
        steps = calls + [ToolResult(c.id, "r" * (number * 37 % 3000)) for c in reversed(calls)]
        journal.commit(f"t{number}", (f"q{number}", Image("image/png", png)), f"a{number}",
                       steps=steps)
        os.write(1, f"{number}\\n".encode())
        number += 1
"""


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="SIGKILL is POSIX")
def test_kill_9_during_rich_commits_never_leaves_a_call_without_its_result(log):
    rng = random.Random(20261201)
    image = png(extra=b"\x01" * 2000)
    acknowledged: set[int] = set()
    next_id = 0
    for _ in range(int(os.environ.get("LEDGERLAB_KILL_TRIALS", "20"))):
        if log.exists() and log.stat().st_size > 1024 * 1024:
            log.unlink()  # stay far below the 4 MiB cap
            acknowledged.clear()
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(log), str(next_id),
                                  image.hex()], stdout=subprocess.PIPE, text=True)
        first = child.stdout.readline()
        time.sleep(rng.uniform(0, 0.03))
        child.kill()
        acks = [int(line) for line in [first, *child.stdout.read().splitlines()] if line.strip()]
        child.wait()
        assert acks, "the child died before its first acknowledgement"
        acknowledged.update(acks)
        next_id = acks[-1] + 2
        with Journal(log) as journal:  # every line that opens holds whole rounds
            for number in acknowledged:
                turn = journal.find(f"t{number}")
                assert turn is not None and turn.answer == f"a{number}"
                assert len(turn.rounds) == 1 and len(turn.steps) == 2 * (number % 4 + 1)
                assert turn.images[0].data == image
