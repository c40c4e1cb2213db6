"""The wire: the exact bytes of a chat request, in each dialect's shape.

A request holds the system message, each stored turn (its question, its tool rounds,
its answer), the current question with the tool rounds of the turn still in
progress, the pinned facts and the tool schemas. Budgets are counted in the UTF-8
bytes of that body, so this module is the single place that decides what those
bytes are: ``request_body`` builds the request as an object from the dialect's shape
(``ledgerlab.shapes``, where each dialect is defined once), ``RequestWriter`` writes
the same bytes piece by piece from templates made of that same shape, and ``select``
measures and joins only the pieces it keeps.

Three dialects, as the providers document them (``shapes`` has their pieces):

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
- ``"openai-responses"``, OpenAI Responses: ``{"model", "instructions", "input": [...],
  "tools": [...]}``. The system is ``instructions``; facts, evidence and summaries are
  ``developer`` messages at the start of ``input``; a round is its ``reasoning`` item, its
  text as an assistant message, ``function_call`` and ``function_call_output`` items.

A round may open with the provider's reasoning and the assistant's text beside its calls
(``ledgerlab.steps``); a result may hold images and be an error; a question may hold a PDF
(``ledgerlab.documents``).

Evidence and summaries (``ledgerlab.memory``) are further sections after the facts, in
every dialect (``shapes`` says where and why); without them a request is unchanged.

With no tools, steps or images, an ``openai-chat`` request is exactly the article's.

Real clients serialize the same request differently, so an encoder is named
(``ledgerlab.encoders``): ``"gson"``, the Java reference's and the default,
``"httpx"`` and ``"requests"``. The options (``model=``, ``dialect=`` ...) are
``ledgerlab.options.RequestOptions``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, product

from .checks import check_text
from .encoders import ENCODERS, Encoder, get_encoder
from .memo import kept_on, remembered
from .options import WIRE, RequestOptions, takes_options
from .dialects import (DIALECTS, SHAPES, Shape, check_dialect, conversation, evidence_line,
                       lines_content, max_tokens_field, refuse_empty, refuse_for_dialect,
                       summary_line, system_text, tool_entry)
from .images import Image
from .memory import Evidence, Summary
from .steps import full_rounds
from .turns import (Fact, ProviderTool, Tool, Turn, check_fact, check_question, fact_line,
                    facts_content)


def hole(name: str) -> str:
    """A stand-in for the value called ``name`` when a writer makes a piece's template.

    It serializes as ``"\\u0000name\\u0000"`` under every encoder (JSON always escapes
    U+0000), which no real value's JSON holds where a template is made."""
    return f"\0{name}\0"


# A hole as the encoder writes it: a whole value (its quotes included), or inside a string.
HOLE = re.compile(r'"\\u0000(\w+)\\u0000"|\\u0000(\w+)\\u0000')
SECTIONS = ("facts", "evidence", "summaries")  # after the system's part, in this order
MEMO_SIZE = 1 << 14  # the tool inputs and tool entries a writer keeps written


class Template:
    """A piece's JSON text around its holes: the shape's object, made with ``hole(name)``
    for each of ``names`` and serialized by the writer's encoder.

    ``fill(texts)`` writes the piece, given a tuple of each name's JSON text in the
    order of ``names`` (a name the shape does not use is left out); ``parts`` are the
    texts between the holes. A name in ``raw`` is given as a string's content, already
    escaped, without its quotes: only such a value may stand inside a string, as an
    image's media type and base64 do in a data URL.
    """

    def __init__(self, text: str, names: Sequence[str], raw: Sequence[str] = ()) -> None:
        pieces = HOLE.split(text)
        parts, order = [pieces[0]], []
        for whole, inner, after in zip(pieces[1::3], pieces[2::3], pieces[3::3]):
            name = whole or inner
            if inner and name not in raw:
                raise AssertionError(f"{name} stands inside a string: it must be raw")
            order.append(names.index(name))
            if whole and name in raw:  # a raw whole value keeps its quotes here
                parts[-1] += '"'
                after = '"' + after
            parts.append(after)
        self.parts, self.order = tuple(parts), tuple(order)
        self.fill = _joiner(self.parts, self.order)


def _joiner(parts: tuple[str, ...], order: tuple[int, ...]):
    """``fill``: ``parts[0] + texts[order[0]] + parts[1] + ...``, as one f-string for the
    usual number of holes (a third of what ``%`` formatting costs: it is the hot path)."""
    if len(order) == 1:
        (a, b), (i,) = parts, order
        return lambda texts: f"{a}{texts[i]}{b}"
    if len(order) == 2:
        (a, b, c), (i, j) = parts, order
        return lambda texts: f"{a}{texts[i]}{b}{texts[j]}{c}"
    if len(order) == 3:
        (a, b, c, d), (i, j, k) = parts, order
        return lambda texts: f"{a}{texts[i]}{b}{texts[j]}{c}{texts[k]}{d}"
    return lambda texts: "".join(chain.from_iterable(zip(parts, [texts[i] for i in order]
                                                         + [""])))


class RequestWriter:
    """One encoder's request in one dialect, piece by piece: the punctuation is made once.

    A request is ``head + one piece per turn + tail``: the head holds the model, the
    system message and the facts; the tail the current question, its tool rounds,
    the tools and the closing brackets. Each turn's piece holds the separator that
    joins it (before it where the system's messages come first, as OpenAI's do; after
    it where the messages start the array, as Anthropic's do), so any suffix of the
    turns joins into exactly the bytes the encoder's ``dumps`` writes for
    ``request_body``: ``select`` encodes only the turns it keeps, and sizes add up
    piece by piece. Every template is the shape's own object serialized with holes.
    """

    def __init__(self, encoder: Encoder, shape: Shape) -> None:
        self.encoder, self.shape, self.dialect = encoder, shape, shape.name
        self.refuses_empty_text = shape.refuses_empty_text
        self.arguments_as_text = shape.arguments_as_text
        item = self.item = encoder.item_separator
        self.quote = encoder.basic_quote
        self.escapes = encoder.escape_line_separators
        # The encoder's JSON before its ``escape`` (``finish`` applies it once per piece).
        self.json_text = json.JSONEncoder(ensure_ascii=encoder.ensure_ascii, allow_nan=False,
                                          separators=(item, encoder.key_separator)).encode

        def piece(method, *names: str, raw: Sequence[str] = ()) -> Template:
            return Template(self.json_text(method(*map(hole, names))), names, raw)

        self.system_part = piece(shape.system, "text")
        self.user = piece(shape.user, "content")
        self.answer = piece(shape.answer, "text")
        self.text_part = piece(shape.text, "text")
        self.image_part = piece(shape.image, "media_type", "data", raw=("media_type", "data"))
        # A document with its file name, and without one (the key is left out).
        self.document_parts = (
            piece(lambda media_type, data: shape.document(media_type, data), "media_type",
                  "data", raw=("media_type", "data")),
            piece(shape.document, "media_type", "data", "filename", raw=("media_type", "data")))
        self.call = piece(shape.call, "id", "name", "arguments")
        # A result, by its is_error (Anthropic writes the flag only when it is set).
        self.results = tuple(piece(lambda call_id, content, error=error: shape.result(
            call_id, content, error), "call_id", "content") for error in (False, True))
        self.tool_entry = piece(shape.tool, "name", "description", "schema")
        # A round's messages without the array's brackets, by whether it has reasoning of
        # this dialect and text: its calls, results and reasoning go in joined.
        names = ("calls", "results", "reasoning", "text")
        self.round_templates = {
            (reasoning, text): Template(self.json_text(shape.round(
                [hole("calls")], [hole("results")], [hole("reasoning")] if reasoning else [],
                hole("text") if text else None))[1:-1], names)
            for reasoning in (False, True) for text in (False, True)}

        def around_messages(tools: bool, *given: bool, system: bool = True) -> list[str]:
            texts = [hole(name) if on else None for name, on in zip(SECTIONS, given)]
            body = shape.body(hole("model"), hole("max_tokens"),
                              hole("system") if system else None, texts[0],
                              [hole("messages")], [hole("tools")] if tools else [],
                              *texts[1:])
            return self.json_text(body).split(self.json_text(hole("messages")))

        head, tail = around_messages(False, False, False, False)
        tools_tail = around_messages(True, False, False, False)[1]
        # Messages before the turns (OpenAI's system) end in a separator: it goes with
        # each turn, before it. Else (Anthropic) each turn's separator follows it.
        self.separator_first = head.endswith(item)
        names = ("model", "max_tokens", "system", *SECTIONS)
        # By whether the system is written (a blank one is left out where the dialect
        # refuses empty text) and which sections (facts, evidence, summaries) it has.
        self.heads = {}
        for system in (True, False) if system_text(shape, "") is None else (True,):
            for given in product((False, True), repeat=len(SECTIONS)):
                text = around_messages(False, *given, system=system)[0]
                self.heads[system, given] = Template(
                    text[:-len(item)] if self.separator_first else text, names, raw=SECTIONS)
        self.tails = (Template(tail, ("tools",)), Template(tools_tail, ("tools",)))
        self.tail_lead = self.frame("")  # the current question's separator, if it has one
        # A turn with a str question and no steps, the hot path: its question and answer.
        plain = self.json_text([shape.user(hole("question")), shape.answer(hole("answer"))])
        self.plain = Template(self.frame(plain[1:-1]), ("question", "answer"))
        assert self.plain.order == (0, 1)  # a user message comes before its answer
        self.fact_separator = encoder.quote("\n")[1:-1].encode("utf-8")
        # Each request of a conversation repeats the last one's head and, within a tool
        # loop, much of its tail: the latest ones are kept too.
        self.head = remembered(self.write_head)
        self.tail = remembered(self.write_tail)
        # What a facts section adds beyond its lines and the separators between them.
        self.facts_overhead = self.section_overhead(0)
        # Every request carries its tools, and a call's input is re-written from its
        # arguments: both are made once and kept here, by the value written.
        self.tool_text = lru_cache(maxsize=MEMO_SIZE)(self.write_tool)
        self.input_text = lru_cache(maxsize=MEMO_SIZE)(self.write_input)
        self.reasoning_text = lru_cache(maxsize=MEMO_SIZE)(self.write_reasoning)

    def finish(self, text: str) -> bytes:
        """The escapes json.dumps does not make (gson's U+2028/U+2029), then UTF-8.

        They can only occur inside string literals, so a replace over a whole piece
        touches nothing else."""
        if self.escapes and ("\u2028" in text or "\u2029" in text):
            text = self.encoder.escape(text)
        return text.encode("utf-8")

    def frame(self, messages: str) -> str:
        """A turn's messages with the separator that joins them to the request."""
        if self.separator_first:
            return self.item + messages
        return messages + self.item if messages else ""

    # The request's parts, as JSON text before ``finish``.

    def user_message(self, question: str | tuple) -> str:
        return self.user.fill((self.content(question),))

    def content(self, content: str | tuple) -> str:
        """A question's or a result's content: its text, or its parts in an array."""
        if type(content) is str:
            return self.quote(content)
        return "[" + self.item.join(map(self.part, content)) + "]"

    def part(self, part: str | object) -> str:
        if type(part) is str:
            return self.text_part.fill((self.quote(part),))
        if type(part) is Image:
            return self.image_part.fill((part.media_type, part.base64))  # nothing JSON escapes
        if part.filename is None:
            return self.document_parts[0].fill((part.media_type, part.base64))
        return self.document_parts[1].fill((part.media_type, part.base64,
                                            self.quote(part.filename)))

    def write_input(self, arguments: str) -> str:
        """A call's parsed arguments in this encoder's JSON (``call.input``, checked when
        the call was made)."""
        return self.json_text(json.loads(arguments))

    def write_reasoning(self, item: str) -> str:
        """A reasoning item as given, in this encoder's JSON (its keys in their order)."""
        return self.json_text(json.loads(item))

    def rounds(self, steps: tuple, rounds: tuple | None = None) -> str:
        """Checked tool rounds as messages, each with the separator before it: the round's
        template, with its calls, results and reasoning (this dialect's) joined in their
        holes, and its text (``rounds``: the steps' ``full_rounds``, where at hand)."""
        if not steps:
            return ""
        item, quote, call, results = self.item, self.quote, self.call.fill, self.results
        arguments = quote if self.arguments_as_text else self.input_text
        out = []
        for round_ in full_rounds(steps) if rounds is None else rounds:
            reasoning = [self.reasoning_text(step.item) for step in round_.reasoning
                         if step.dialect == self.dialect]
            texts = (item.join([call((quote(step.id), quote(step.name),
                                      arguments(step.arguments))) for step in round_.calls]),
                     item.join([results[step.is_error].fill((quote(step.call_id),
                                                             self.content(step.content)))
                                for step in round_.results]),
                     item.join(reasoning),
                     "" if round_.text is None else quote(round_.text.text))
            template = self.round_templates[bool(reasoning), round_.text is not None]
            out.append(item + template.fill(texts))
        return "".join(out)

    def write_tool(self, tool: Tool | ProviderTool) -> str:
        """A tool's entry in the tools array (a ProviderTool's own entry, as given)."""
        if isinstance(tool, ProviderTool):
            return self.json_text(tool.as_dict)
        return self.tool_entry.fill((self.quote(tool.name), self.quote(tool.description),
                                     self.json_text(tool.schema)))

    # Pieces, as bytes.

    def write_head(self, model: str, system: str, reserve_tokens: int = 0,
                   fact_lines: Sequence[bytes] = (), evidence_lines: Sequence[bytes] = (),
                   summary_lines: Sequence[bytes] = ()) -> bytes:
        """The bytes before the turns: the model, the system message, the facts', the
        evidence's and the summaries' escaped lines (a section only where it has lines).

        (``reserve_tokens`` is the body's ``max_tokens`` where the dialect has one;
        ``head``, written anew.)"""
        check_text(system, "system")
        max_tokens = max_tokens_field(self.shape, reserve_tokens)
        given = (fact_lines, evidence_lines, summary_lines)
        texts = [self.fact_separator.join(lines).decode("utf-8") for lines in given]
        written = system_text(self.shape, system) is not None
        return self.finish(self.heads[written, tuple(map(bool, given))].fill((
            self.quote(check_text(model, "model")), str(max_tokens), self.quote(system),
            *texts)))

    def section_overhead(self, kind: int, before: Sequence[bool] = (), system: str = "s") -> int:
        """What section ``kind`` (0 facts, 1 evidence, 2 summaries) adds to a head beyond
        its lines and the separators between them, beside the earlier sections ``before``
        has, beside ``system`` (Anthropic's first block also turns the system string into a list,
        and a blank system is left out)."""
        given = [[b""] if on else [] for on in before] + [[]] * (len(SECTIONS) - len(before))
        without = len(self.head("m", system, 1, *given))
        given[kind] = [b""]
        return len(self.head("m", system, 1, *given)) - without

    def line(self, text: str) -> bytes:
        """A section line, escaped, without quotes or separator (JSON escapes each character
        on its own, so a section's text is its lines' bytes joined by an escaped newline)."""
        return self.finish(self.quote(text)[1:-1])

    def write_tail(self, current: str | tuple, current_steps: tuple = (),
                   tools: tuple[Tool, ...] = ()) -> bytes:
        """The bytes after the last turn: the current question and its tool rounds so far
        (checked steps), the tools (checked), and the closing brackets (``tail``, written
        anew)."""
        question = check_question(current, "current question")
        if self.refuses_empty_text:
            refuse_empty(question)
        tools_text = self.item.join(map(self.tool_text, tools))
        closing = self.tails[bool(tools)].fill((tools_text,))
        return self.finish(self.tail_lead + self.user_message(question)
                           + self.rounds(current_steps) + closing)

    def system_field(self, system: str) -> bytes:
        """The system's part of the body (OpenAI: its message; Anthropic: the field's value,
        none where a blank system is left out)."""
        if system_text(self.shape, system) is None:
            return b""
        return self.finish(self.system_part.fill((self.quote(system),)))

    def turn(self, turn: Turn) -> bytes:
        """A turn's messages with the separator that joins them (the hot path): written
        and checked on the first request that holds the turn, then kept on the turn (a
        turn that this dialect refuses is refused again each time, never kept)."""
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        return kept_on(turn, self, self.write_turn)

    def memory_line(self, item: Summary | Evidence) -> bytes:
        """A summary's or an evidence item's escaped line (``line``), kept on it."""
        return kept_on(item, self, self.write_memory_line)

    def write_memory_line(self, item: Summary | Evidence) -> bytes:
        return self.line(summary_line(item) if type(item) is Summary else evidence_line(item))

    def write_turn(self, turn: Turn) -> bytes:
        """``turn``'s piece, written anew."""
        if self.refuses_empty_text:
            refuse_empty(turn.question, turn.answer)
        quote = self.quote
        if not turn.steps and isinstance(turn.question, str):  # plain, as fill writes it,
            # without its call (the question's hole comes first)
            before, middle, after = self.plain.parts
            return self.finish(f"{before}{quote(turn.question)}{middle}{quote(turn.answer)}{after}")
        if turn.steps:
            refuse_for_dialect(self.dialect, turn.steps, rounds=turn.full_rounds)
        return self.finish(self.frame(
            self.user_message(turn.question) + self.rounds(turn.steps, turn.full_rounds)
            + self.item
            + self.answer.fill((quote(turn.answer),))))

    def fact_line(self, fact: Fact) -> bytes:
        """One fact's line in the facts text, escaped, without quotes or separator.

        JSON escapes each character on its own, so the facts' text is its lines'
        escaped bytes joined by an escaped newline.
        """
        return self.line(fact_line(check_fact(fact)))

    def fact_lines(self, facts: Sequence[Fact]) -> list[bytes]:
        """Every fact's escaped line, in order."""
        return [self.fact_line(fact) for fact in facts]

    def facts_that_fit(self, facts: Sequence[Fact], room: int, system: str = "s") -> list[bytes]:
        """The escaped lines of the first facts whose section fits ``room`` bytes, beside
        ``system``."""
        overhead = (self.facts_overhead if system_text(self.shape, system) is not None
                    else self.section_overhead(0, system=system))
        size = overhead - len(self.fact_separator)
        lines = []
        for fact in facts:
            line = self.fact_line(fact)
            size += len(self.fact_separator) + len(line)
            if size > room:
                break
            lines.append(line)
        return lines


_WRITERS = {(name, dialect): RequestWriter(encoder, SHAPES[dialect])
            for name, encoder in ENCODERS.items() for dialect in DIALECTS}


def request_writer(encoder: str, dialect: str = "openai-chat") -> RequestWriter:
    """The piece writer of the encoder called ``encoder`` in ``dialect``; ValueError names
    the known ones."""
    get_encoder(encoder)  # the clear error for an unknown name
    return _WRITERS[encoder, check_dialect(dialect)]


@takes_options(*WIRE)
def request_body(system: str, turns: Sequence[Turn], current: str | tuple, *,
                 options: RequestOptions) -> dict:
    """The request as an object: what ``request_bytes`` serializes (the readable definition).

    ``current_steps`` are the tool rounds of the turn in progress, after the current
    question. ``reserve_tokens`` is Anthropic's ``max_tokens`` (not written for OpenAI).
    The options are ``RequestOptions``'.
    """
    shape = SHAPES[options.dialect]
    check_text(system, "system")
    messages = conversation(shape, turns, check_question(current, "current question"),
                            options.current_steps)
    facts = facts_content(options.facts) if options.facts else None
    evidence = (lines_content(map(evidence_line, options.evidence)) if options.evidence
                else None)
    summaries = (lines_content(map(summary_line, options.summaries)) if options.summaries
                 else None)
    tools = [tool_entry(shape, tool) for tool in options.tools]
    return shape.body(options.model, max_tokens_field(shape, options.reserve_tokens),
                      system_text(shape, system), facts, messages, tools, evidence, summaries)


def messages(system: str, turns: list[Turn], current: str | tuple,
             facts: Sequence[Fact] = (), *, current_steps: Sequence = ()) -> list[dict]:
    """The chat messages of an ``openai-chat`` request: system, the facts, each turn's
    messages, the current question and its tool rounds.

    The facts, if any, are a second system message right after the first.
    """
    return request_body(system, turns, current, facts=facts,
                        current_steps=current_steps)["messages"]


@takes_options(*WIRE)
def request_bytes(system: str, turns: Sequence[Turn], current: str | tuple, *,
                  options: RequestOptions) -> bytes:
    """The exact body that would go over the wire for this request.

    The same bytes as the encoder's ``dumps`` of ``request_body(...)``, written by the
    request's pieces (``RequestWriter``). The options are ``RequestOptions``'.
    """
    writer = request_writer(options.encoder, options.dialect)
    lines = writer.fact_lines(options.facts)
    head = writer.head(options.model, system, options.reserve_tokens, lines,
                       [writer.line(evidence_line(item)) for item in options.evidence],
                       [writer.line(summary_line(item)) for item in options.summaries])
    pieces = [writer.turn(turn) for turn in turns]
    return b"".join([head, *pieces, writer.tail(current, options.current_steps,
                                                options.tools)])
