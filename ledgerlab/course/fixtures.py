"""The course's fixtures, as data: the article's conversations, notebook 08's facts, notebook
09's summary and evidence, and notebooks 10 and 11's tool turns, images and
reasoning.

Everything the course measures comes from here, so the notebooks, the quizzes, the
exercises, the tests and the ``ledgerlab-course`` command all measure the same data.
What is done with it (the scenario, the boundary table, the audit) is ``scenario``.

Four fixtures give figures that look alike; the notebooks name the fixture wherever they give
one of its figures, by the names below:

- **the slice fixture** (``SLICE_*``, 01 and 02): requests of 108 (mandatory), 175, 242 and
  309 bytes, with 0 to 3 turns kept;
- **the boundary fixture** (``BOUNDARY_*``, 03, 04, 07 and 12): the article's table, 140, 235 and
  308 bytes, with 0 to 2 turns;
- **the projection scenario** (``SCENARIO_*``, 05, 06, 08 and 09): the narrow request, 264 bytes,
  and the wide one, 480;
- **the tool fixture** (``TOOL_*``, 10 and 11): 464 bytes with no turn, 908 with both.

``tests/course/test_fixtures_named.py`` measures each figure from the library.
"""

from __future__ import annotations

import random
import struct
import zlib
from functools import lru_cache

from ledgerlab import Evidence, Fact, Image, Reasoning, Summary, Tool, ToolCall, ToolResult, Turn

# --- The boundary fixture (notebooks 03, 04 and 07): 140, 235, 308 bytes --------------
BOUNDARY_SYSTEM = "只根据已知信息回答。"
BOUNDARY_QUESTION = "继续🙂"
BOUNDARY_HISTORY = (
    Turn("hello", "world"),
    Turn('接口 "是什么"', "Java\n接口"),
)
BOUNDARY_BUDGETS = (140, 235, 308, 408)
REJECTED_BUDGET = 139

# --- The slice fixture: U1 A1 | U2 A2 | U3 A3, then U4 (01, 02): 108, 175, 242, 309 bytes ---
SLICE_SYSTEM = "SYSTEM"
SLICE_HISTORY = (Turn("U1", "A1"), Turn("U2", "A2"), Turn("U3", "A3"))
SLICE_QUESTION = "U4"

# --- The projection scenario, "can a trimmed fact return?" (05, 06): 264 and 480 bytes ---
SCENARIO_SYSTEM = "Use only the supplied conversation."
SCENARIO_TURNS = (
    ("one", Turn("My project code is ORCHID-17.", "Recorded.")),
    ("two", Turn("I use Java 8.", "Use a Java 8 compatible client.")),
)
SCENARIO_HISTORY = tuple(turn for _, turn in SCENARIO_TURNS)
NEXT_STEP_QUESTION = "Explain the next step."
LOCAL_FIXTURE_REPLY = "Local fixture reply."  # a fixed local reply, not a model's answer
WIDE_QUESTION = "What project code did I provide?"
OLD_FACT = "ORCHID-17"

# --- Notebook 08: the scenario with two facts pinned ------------------------------------
# Each fact comes from one of the scenario's turns, its ``origin``; ORCHID-17 comes first,
# so it is the fact kept when only one fits. The request is the scenario's: system
# SCENARIO_SYSTEM, history SCENARIO_HISTORY, question NEXT_STEP_QUESTION.
PINNED_FACTS = (
    Fact("project-code", "The project code is ORCHID-17.", origin="one"),
    Fact("java-version", "The client runs on Java 8.", origin="two"),
)
# Exercise 8's third fact, pinned after the two others; and quiz 08's, from turn two.
DEADLINE_FACT = Fact("deadline", "The deadline is Friday.", origin="one")
LANGUAGE_FACT = Fact("language", "Reply in English.", origin="two")

# --- The memory fixture (09): the scenario's three turns, a summary of the first two, evidence -----------
# The journal of the article's step 3 (turn three is the fixed local reply), asked the wide
# question, whose answer only turn one holds. The summary is short, as a summary is: shorter
# than turn two, so there are budgets where it and turn three fit and turn two does not.
MEMORY_TURNS = SCENARIO_TURNS + (("three", Turn(NEXT_STEP_QUESTION, LOCAL_FIXTURE_REPLY)),)
MEMORY_HISTORY = tuple(turn for _, turn in MEMORY_TURNS)
MEMORY_IDS = tuple(turn_id for turn_id, _ in MEMORY_TURNS)
MEMORY_QUESTION = WIDE_QUESTION
EARLY_SUMMARY = Summary("early", "Code ORCHID-17, Java 8 client.", covers=("one", "two"))
# Retrieved from outside the ledger: it names its source, and it does not hold ORCHID-17.
TLS_EVIDENCE = Evidence("tls-note", "Java 8 clients need TLS 1.2.", source="docs/java8-clients.md")

# --- The tool fixture (10): the article's question answered through a tool; 464, 908 bytes ---
# The wide question of the scenario, answered by looking the code up, then turn two as in
# the scenario; the next question is the scenario's. One tool, in every request.
TOOL_SYSTEM = "Use only the supplied conversation and tools."
LOOKUP_TOOL = Tool(
    "lookup_project", "Look up a field of the user's project record.",
    {"type": "object",
     "properties": {"field": {"type": "string", "enum": ["code", "language", "deadline"],
                              "description": "Which field to read."}},
     "required": ["field"]})
TOOL_HISTORY = (
    Turn(WIDE_QUESTION, "You provided ORCHID-17.",
         steps=(ToolCall("call_1", "lookup_project", '{"field":"code"}'),
                ToolResult("call_1", "ORCHID-17"))),
    SCENARIO_HISTORY[1],
)
TOOL_QUESTION = NEXT_STEP_QUESTION
# The next question's tool loop, in progress: the model asked for the deadline, the result is in.
# Its call carries the id the Responses API gives a function_call item (written in that dialect
# only), of the same response as the reasoning item before it (REASONING_ITEM): the API pairs
# the two by it. A stand-in, like the reasoning item.
LOOP_ITEM_ID = "fc_0c6e2f4a8b1d3e5f9b8a7c6d5e4f3a2b"


def loop_steps(item_id: str = LOOP_ITEM_ID) -> tuple:
    """The loop in progress, its call carrying ``item_id``."""
    return (ToolCall("call_2", "lookup_project", '{"field":"deadline"}', item_id),
            ToolResult("call_2", "Friday"))


LOOP_STEPS = loop_steps()
# Quiz 10's second tool.
TICKET_TOOL = Tool(
    "open_ticket", "Open a support ticket for the project.",
    {"type": "object",
     "properties": {"title": {"type": "string", "description": "A one-line summary."}},
     "required": ["title"]})
# A turn with two calls made together, their results in the other order (exercise 9).
PARALLEL_TURN = Turn(
    "Which language and deadline?", "Java 8, due Friday.",
    steps=(ToolCall("call_3", "lookup_project", '{"field":"language"}'),
           ToolCall("call_4", "lookup_project", '{"field":"deadline"}'),
           ToolResult("call_4", "Friday"), ToolResult("call_3", "Java 8")))


def _png(width: int, height: int, rows) -> bytes:
    """A real 8-bit RGB PNG of ``rows`` (each ``3 * width`` bytes), made with zlib."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    raw = b"".join(b"\x00" + row for row in rows)  # filter 0 (none) before each row
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


@lru_cache(maxsize=None)
def photo() -> Image:
    """A 320x240 PNG of seeded noise: like a photo, it barely compresses (about 231 KB)."""
    noise = random.Random(17)
    return Image("image/png", _png(320, 240, [noise.randbytes(320 * 3) for _ in range(240)]))


@lru_cache(maxsize=None)
def screenshot() -> Image:
    """A 1920x1080 PNG of dark lines on white, like a page of text: it compresses well."""
    white, line = b"\xff" * (3 * 1920), b"\xff" * 600 + b"\x30" * 3600 + b"\xff" * 1560
    rows = [line if 100 < y < 1000 and y // 20 % 3 == 1 else white for y in range(1080)]
    return Image("image/png", _png(1920, 1080, rows))


PHOTO_QUESTION_TEXT = "What does this photo of the whiteboard say?"

# --- Reasoning between tool calls (10): the loop in progress, after the model reasoned ---
# STAND-INS, made up here and never fetched from a provider: a real signature and a real
# encrypted_content are opaque blobs the provider makes and checks; these only have their
# shape (base64 text of a plausible length), so no API would accept them.
THINKING_BLOCK = {  # an Anthropic thinking block, as the Messages API returns it
    "type": "thinking",
    "thinking": "The user asks for the next step. The project's deadline decides it, and "
                "the record holds it: call lookup_project with field deadline.",
    "signature": "EqQBCkgIBxABGAIiQHN0YW5kLWluIHNpZ25hdHVyZTogbm90IGZyb20gYW55IHByb3ZpZGVy"
                 "LCBtYWRlIHVwIGZvciB0aGUgY291cnNlEgxsZWRnZXJsYWIgZml4dHVyZRoMc3RhbmQtaW4="}
REASONING_ITEM = {  # an OpenAI Responses reasoning item, as returned with store=false
    "type": "reasoning",
    "id": "rs_0c6e2f4a8b1d3e5f7a9c0b2d4e6f8a1c",
    "summary": [],
    "encrypted_content": "gAAAAABpL2stc3RhbmQtaW4gZW5jcnlwdGVkX2NvbnRlbnQsIG1hZGUgdXAgZm9y"
                         "IHRoZSBsZWRnZXJsYWIgY291cnNlLCBub3QgZnJvbSBPcGVuQUk6IG5vIEFQSSB3aWxs"
                         "IGFjY2VwdCBpdA=="}
THINKING = Reasoning(THINKING_BLOCK, "anthropic-messages")
RESPONSES_REASONING = Reasoning(REASONING_ITEM, "openai-responses")
# The same loop in progress as LOOP_STEPS, with the reasoning that came before its call.
THINKING_LOOP = (THINKING, *LOOP_STEPS)
RESPONSES_LOOP = (RESPONSES_REASONING, *LOOP_STEPS)
# What the application adds to an Anthropic body to turn thinking on (ledgerlab does not).
THINKING_ON = {"type": "enabled", "budget_tokens": 2048}
# Once the loop ends, its turn is stored with its reasoning; then the next question.
REASONED_TURN = Turn(TOOL_QUESTION, "Ship by Friday: that is the deadline.", steps=RESPONSES_LOOP)
REASONED_HISTORY = (*TOOL_HISTORY, REASONED_TURN)
REASONED_QUESTION = "Who should I tell?"
