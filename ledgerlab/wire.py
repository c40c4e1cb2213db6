"""The wire: the exact bytes of a chat request, in two providers' shapes.

A request holds the system message, each stored turn (its question, its tool rounds,
its answer), the current question with the tool rounds of the turn still in
progress, the pinned facts and the tool schemas. Budgets are counted in the UTF-8
bytes of that body, so this module is the single place that decides what those
bytes are: ``request_body`` builds the request as an object (the readable
definition), ``RequestWriter`` writes the same bytes piece by piece, and ``select``
measures and joins only the pieces it keeps.

Two dialects, as the providers document them:

- ``"openai-chat"`` (the default, the article's shape), OpenAI Chat Completions:
  ``{"model", "messages": [...], "tools": [...]}``. The system message is the first
  message; pinned facts are a second ``system`` message (one ``[origin] text`` line
  per fact); a tool round is an ``assistant`` message with ``tool_calls`` and then
  one ``tool`` message per call.
- ``"anthropic-messages"``, Anthropic Messages: ``{"model", "max_tokens", "system",
  "messages": [...], "tools": [...]}``. ``system`` is a top-level field (a list of two
  text blocks when there are facts); a round is an ``assistant`` message of
  ``tool_use`` blocks and then a ``user`` message of ``tool_result`` blocks.
  ``max_tokens`` is required there: it is ``reserve_tokens``, the reply's share.

With no tools, steps or images, an ``openai-chat`` request is exactly the article's.

Real clients serialize the same request differently, so an encoder is named
(``ledgerlab.encoders``): ``"gson"``, the Java reference's and the default,
``"httpx"`` and ``"requests"``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .checks import (InvalidText, InvalidTurn, check_id, check_int, check_text, id_tag,
                     utf16_units)
from .encoders import ENCODERS, Encoder, get_encoder
from .images import Image
from .shapes import (DEFAULT_MODEL, DIALECTS, anthropic_max_tokens, check_dialect,
                     messages, refuse_empty, request_body)
from .turns import (Fact, Tool, ToolCall, ToolResult, Turn, check_fact, check_question,
                    check_steps, check_tools, fact_line, facts_content)

__all__ = [  # what other modules take from here, the checks and the values included
    "DEFAULT_MODEL", "DIALECTS", "ENCODERS", "Encoder", "Fact", "Image", "InvalidText",
    "InvalidTurn", "RequestWriter", "Tool", "ToolCall", "ToolResult", "Turn", "check_dialect",
    "check_fact", "check_id", "check_int", "check_text", "fact_line", "facts_content",
    "get_encoder", "id_tag", "messages", "request_body", "request_bytes", "request_writer",
    "utf16_units",
]

def request_bytes(
    system: str,
    turns: Sequence[Turn],
    current: str | tuple,
    *,
    model: str = DEFAULT_MODEL,
    encoder: str = "gson",
    facts: Sequence[Fact] = (),
    dialect: str = "openai-chat",
    tools: Sequence[Tool] = (),
    current_steps: Sequence[ToolCall | ToolResult] = (),
    reserve_tokens: int = 0,
) -> bytes:
    """The exact body that would go over the wire for this request.

    The same bytes as the encoder's ``dumps`` of ``request_body(...)``, written by the
    request's pieces (``RequestWriter``).
    """
    writer = request_writer(encoder, dialect)
    lines = writer.fact_lines(facts)
    head = writer.head(model, system, reserve_tokens, lines)
    pieces = [writer.turn(turn) for turn in turns]
    return b"".join([head, *pieces, writer.tail(current, current_steps, tools)])


class RequestWriter:
    """One encoder's ``openai-chat`` request, piece by piece: its punctuation is computed once.

    A request is ``head + one piece per turn + tail``: the head holds the model, the
    system message and the facts; the tail the current question, its tool rounds,
    the tools and the closing brackets. Each turn's piece holds the separator that
    joins it, so any suffix of the turns joins into exactly the bytes the encoder's
    ``dumps`` writes for ``request_body``: ``select`` encodes only the turns it keeps,
    and sizes add up piece by piece.
    """

    dialect = "openai-chat"

    def __init__(self, encoder: Encoder) -> None:
        item, key = encoder.item_separator, encoder.key_separator
        self.encoder, self.item, self.key = encoder, item, key
        self.tail_lead = self.frame("")  # the current question's separator, if it has one
        self.basic_quote = encoder.basic_quote
        self.escapes = encoder.escape_line_separators
        # The encoder's JSON for nested objects (schemas, tool inputs), before ``escape``.
        self.json_text = json.JSONEncoder(ensure_ascii=encoder.ensure_ascii, allow_nan=False,
                                          separators=(item, key)).encode
        self.keys: dict[str, str] = {}
        self.prefix = {role: "{" + self.key_of("role") + self.basic_quote(role) + item
                       + self.key_of("content") for role in ("system", "user", "assistant")}
        # A turn with a str question and no steps, the hot path: its question and answer.
        self.plain = self.frame(self.prefix["user"] + "\0}" + item + self.prefix["assistant"]
                                + "\0}").split("\0")
        self.templates()
        self.fact_separator = encoder.quote("\n")[1:-1].encode("utf-8")
        # What a facts section adds beyond its lines and the separators between them.
        self.facts_overhead = (len(self.head("m", "s", 1, [b""]))
                               - len(self.head("m", "s", 1, [])))

    # JSON text, before the encoder's ``escape`` (``finish`` applies it once per piece).

    def key_of(self, name: str) -> str:
        """A member's key and the separator after it, as this encoder writes them."""
        if name not in self.keys:
            self.keys[name] = self.basic_quote(name) + self.key
        return self.keys[name]

    def obj(self, *members: tuple[str, str]) -> str:
        """A JSON object from (key, JSON text of the value) pairs, in order."""
        return "{" + self.item.join(self.key_of(name) + value for name, value in members) + "}"

    def array(self, values) -> str:
        return "[" + self.item.join(values) + "]"

    def finish(self, text: str) -> bytes:
        """The escapes json.dumps does not make (gson's U+2028/U+2029), then UTF-8.

        They can only occur inside string literals, so a replace over a whole piece
        touches nothing else."""
        if self.escapes and ("\u2028" in text or "\u2029" in text):
            text = self.encoder.escape(text)
        return text.encode("utf-8")

    def frame(self, messages: str) -> str:
        """A turn's messages with the separator that joins them to the request: before,
        since the system message comes first (Anthropic's: after, see there)."""
        return self.item + messages

    # The dialect's shapes.

    def system_messages(self, system: str, fact_lines: Sequence[bytes]) -> bytes:
        head = self.message("system", system)
        if not fact_lines:
            return head
        return (head + self.finish(self.item + self.prefix["system"] + '"')
                + self.fact_separator.join(fact_lines) + b'"}')

    def head(self, model: str, system: str, reserve_tokens: int = 0,
             fact_lines: Sequence[bytes] = ()) -> bytes:
        """The bytes before the turns: the model, the system message, the facts' lines.

        (``reserve_tokens`` is Anthropic's ``max_tokens``; OpenAI's body has no such field.)"""
        check_text(system, "system")
        opening = self.finish("{" + self.key_of("model") + self.basic_quote(check_text(
            model, "model")) + self.item + self.key_of("messages") + "[")
        return opening + self.system_messages(system, fact_lines)

    def tail(self, current: str | tuple, current_steps: Sequence = (),
             tools: Sequence[Tool] = ()) -> bytes:
        """The bytes after the last turn: the current question and its tool rounds so far,
        the tools, and the closing brackets."""
        question = check_question(current, "current question")
        steps = check_steps(current_steps, "current_steps")
        tools = check_tools(tools)
        text = self.tail_lead + self.user_message(question) + self.rounds(steps) + "]"
        if tools:
            text += self.item + self.key_of("tools") + self.array(map(self.tool_text, tools))
        return self.finish(text + "}")

    def system_field(self, system: str) -> bytes:
        """The system message's bytes (Anthropic: the ``system`` field's value)."""
        return self.message("system", system)

    def message(self, role: str, content: str) -> bytes:
        """One message with str content, on its own, without a separator."""
        return self.finish(self.prefix[role] + self.basic_quote(content) + "}")

    def template(self, *members: tuple[str, str]) -> list[str]:
        """An object's punctuation around its values, which are "\0" in ``members``."""
        return self.obj(*members).split("\0")

    def templates(self) -> None:
        """The punctuation of rich messages, computed once: the values go between."""
        item = self.item
        self.text_template = self.template(("type", '"text"'), ("text", "\0"))
        self.image_template = self.template(("type", '"image_url"'), ("image_url", self.obj(
            ("url", '"data:\0;base64,\0"'))))
        self.call_template = self.template(("id", "\0"), ("type", '"function"'), (
            "function", self.obj(("name", "\0"), ("arguments", "\0"))))
        self.result_template = self.template(("role", '"tool"'), ("tool_call_id", "\0"),
                                             ("content", "\0"))
        calls_open = item + self.template(("role", '"assistant"'), ("content", "null"),
                                          ("tool_calls", "[\0"))[0]
        # What comes before a call: the first of a turn, the next of a round, the first
        # after a round's results; before a round's first result; after the last one.
        self.before_call = (calls_open, item, calls_open)
        self.before_result = "]}" + item
        self.after_rounds = ""

    def user_message(self, question: str | tuple) -> str:
        quote = self.basic_quote
        if type(question) is str:
            return self.prefix["user"] + quote(question) + "}"
        parts = []
        text_open, text_close = self.text_template
        image_open, image_middle, image_close = self.image_template
        for part in question:
            if type(part) is str:
                parts.append(text_open + quote(part) + text_close)
            else:  # a media type and base64 hold nothing JSON escapes
                parts.append(image_open + part.media_type + image_middle + part.base64
                             + image_close)
        return self.prefix["user"] + "[" + self.item.join(parts) + "]}"

    def call_text(self, call: ToolCall) -> str:
        quote, (a, b, c, d) = self.basic_quote, self.call_template
        return f"{a}{quote(call.id)}{b}{quote(call.name)}{c}{quote(call.arguments)}{d}"

    def rounds(self, steps: tuple) -> str:
        """Checked tool rounds as messages, each with the separator before it."""
        if not steps:
            return ""
        quote, (r0, r1, r2) = self.basic_quote, self.result_template
        first, next_call, after_results = self.before_call
        out, calls = [], None  # calls: in a round's calls (True), its results (False)
        for step in steps:
            if isinstance(step, ToolCall):
                out.append(first if calls is None else next_call if calls else after_results)
                out.append(self.call_text(step))
                calls = True
            else:
                out.append(self.before_result if calls else self.item)
                out.append(f"{r0}{quote(step.call_id)}{r1}{quote(step.content)}{r2}")
                calls = False
        out.append(self.after_rounds)
        return "".join(out)

    def tool_text(self, tool: Tool) -> str:
        """A tool's entry in the tools array, made once per tool and writer."""
        key = (self.encoder.name, self.dialect)
        text = tool._texts.get(key)
        if text is None:
            text = tool._texts[key] = self.tool(tool)
        return text

    def tool(self, tool: Tool) -> str:
        return self.obj(("type", '"function"'), ("function", self.obj(
            ("name", self.basic_quote(tool.name)),
            ("description", self.basic_quote(tool.description)),
            ("parameters", self.json_text(tool._schema)))))

    # Pieces.

    def turn(self, turn: Turn) -> bytes:
        """A turn's messages with the separator that joins them (the hot path)."""
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        if turn.plain:
            quote, (before, middle, after) = self.basic_quote, self.plain
            return self.finish(f"{before}{quote(turn.question)}{middle}{quote(turn.answer)}{after}")
        return self.finish(self.frame(
            self.user_message(turn.question) + self.rounds(turn.steps) + self.item
            + self.prefix["assistant"] + self.basic_quote(turn.answer) + "}"))

    def fact_line(self, fact: Fact) -> bytes:
        """One fact's line in the facts text, escaped, without quotes or separator.

        JSON escapes each character on its own, so the facts' text is its lines'
        escaped bytes joined by an escaped newline.
        """
        return self.finish(self.basic_quote(fact_line(check_fact(fact)))[1:-1])

    def fact_lines(self, facts: Sequence[Fact]) -> list[bytes]:
        """Every fact's escaped line, in order."""
        return [self.fact_line(fact) for fact in facts]

    def facts_that_fit(self, facts: Sequence[Fact], room: int) -> list[bytes]:
        """The escaped lines of the first facts whose section fits ``room`` bytes."""
        size = self.facts_overhead - len(self.fact_separator)
        lines = []
        for fact in facts:
            line = self.fact_line(fact)
            size += len(self.fact_separator) + len(line)
            if size > room:
                break
            lines.append(line)
        return lines


class AnthropicWriter(RequestWriter):
    """The ``anthropic-messages`` request, piece by piece: ``system`` is a field of its own
    (two text blocks when there are facts), ``max_tokens`` is the reply's reserve, a
    round is tool_use blocks then a user message of tool_result blocks."""

    dialect = "anthropic-messages"

    def frame(self, messages: str) -> str:
        # The first message opens the array: a turn's separator goes after it, and the
        # current question, always last, closes the suffix.
        return messages + self.item if messages else ""

    def head(self, model: str, system: str, reserve_tokens: int = 0,
             fact_lines: Sequence[bytes] = ()) -> bytes:
        quote, item = self.basic_quote, self.item
        text = ("{" + self.key_of("model") + quote(check_text(model, "model")) + item
                + self.key_of("max_tokens") + str(anthropic_max_tokens(reserve_tokens)) + item
                + self.key_of("system"))
        after = item + self.key_of("messages") + "["
        system = quote(check_text(system, "system"))
        if not fact_lines:
            return self.finish(text + system + after)
        blocks = "[" + self.obj(("type", '"text"'), ("text", system)) + item
        facts_open = "{" + self.key_of("type") + '"text"' + item + self.key_of("text") + '"'
        return (self.finish(text + blocks + facts_open) + self.fact_separator.join(fact_lines)
                + self.finish('"}]' + after))

    def system_field(self, system: str) -> bytes:
        return self.finish(self.basic_quote(system))

    def templates(self) -> None:
        super().templates()
        item = self.item
        self.image_template = self.template(("type", '"image"'), ("source", self.obj(
            ("type", '"base64"'), ("media_type", '"\0"'), ("data", '"\0"'))))
        self.call_template = self.template(("type", '"tool_use"'), ("id", "\0"),
                                           ("name", "\0"), ("input", "\0"))
        self.result_template = self.template(("type", '"tool_result"'), ("tool_use_id", "\0"),
                                             ("content", "\0"))
        uses_open = item + self.template(("role", '"assistant"'), ("content", "[\0"))[0]
        results_open = item + self.template(("role", '"user"'), ("content", "[\0"))[0]
        self.before_call = (uses_open, item, "]}" + uses_open)
        # A round's first result closes its calls and opens the user message of results.
        self.before_result = "]}" + results_open
        self.after_rounds = "]}"

    def user_message(self, question: str | tuple) -> str:
        refuse_empty(question)
        return super().user_message(question)

    def turn(self, turn: Turn) -> bytes:
        if isinstance(turn, Turn):
            refuse_empty(turn.question, turn.answer)
        return super().turn(turn)

    def call_text(self, call: ToolCall) -> str:
        quote, (a, b, c, d) = self.basic_quote, self.call_template
        inputs = call._inputs.get(self.encoder.name)
        if inputs is None:  # the parsed arguments in this encoder's JSON, made once per call
            inputs = call._inputs[self.encoder.name] = self.json_text(call._input)
        return f"{a}{quote(call.id)}{b}{quote(call.name)}{c}{inputs}{d}"

    def tool(self, tool: Tool) -> str:
        return self.obj(("name", self.basic_quote(tool.name)),
                        ("description", self.basic_quote(tool.description)),
                        ("input_schema", self.json_text(tool._schema)))


_WRITERS = {(name, dialect): (RequestWriter if dialect == "openai-chat" else AnthropicWriter)(
    encoder) for name, encoder in ENCODERS.items() for dialect in DIALECTS}


def request_writer(encoder: str, dialect: str = "openai-chat") -> RequestWriter:
    """The piece writer of the encoder called ``encoder`` in ``dialect``; ValueError names
    the known ones."""
    get_encoder(encoder)  # the clear error for an unknown name
    return _WRITERS[encoder, check_dialect(dialect)]
