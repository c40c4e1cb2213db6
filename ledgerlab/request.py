"""The request: its body as an object, and the exact bytes a client writes of it.

``request_body`` builds the body from the dialect's pieces (``ledgerlab.dialects``);
``request_bytes`` is the encoder's ``dumps`` of it (``ledgerlab.encoders``): the one writer.
Budgets are counted in those bytes.

``select`` measures the same bytes a turn at a time. JSON is written value by value, so a
body is the bytes before its stored turns, each turn's messages as the encoder writes them
(``fragment``), and the bytes after, joined by the encoder's item separator: a ``Frame``.
Sizes add up, so "does it fit" is a sum.

Three dialects, as the providers document them (``ledgerlab.dialects``, one module each):
``"openai-chat"`` (the default, the article's shape), ``"anthropic-messages"`` (``system``
and the required ``max_tokens`` are fields) and ``"openai-responses"`` (``instructions``
and ``input`` items). Memory (facts, evidence, summaries) is a section each, after the
system's part, in every dialect (the evidence, with ``evidence_after_turns``, after the turns,
just before the current question); without them a request is unchanged. With no tools, steps
or images, an ``openai-chat`` request is exactly the article's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .checks import check_text
from .encoders import Encoder, get_encoder
from .options import WIRE, RequestOptions, takes_options
from .dialects import (SHAPES, Shape, evidence_line, lines_content, max_tokens_field,
                       refuse_for_dialect, summary_line, system_text, tool_entry)
from .images import Image
from .steps import ToolCall, full_rounds
from .turns import Fact, Turn, check_question, facts_content


def turn_messages(shape: Shape, turn: Turn) -> list[dict]:
    """A stored turn's messages: its question, its tool rounds, its answer (checked against
    the dialect's rules first, so that no body of a turn it refuses is built)."""
    if not isinstance(turn, Turn):
        raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
    if shape.refuses_empty_text:
        shape.refuse_blank(turn.question, turn.answer)
    rounds = ()
    if turn.steps:
        rounds = turn.full_rounds
        refuse_for_dialect(shape.name, turn.steps, rounds=rounds)
    return [shape.user(question_content(shape, turn.question)),
            *round_messages(shape, rounds), shape.answer(turn.answer)]


def current_messages(shape: Shape, current: str | tuple, current_steps: tuple) -> list[dict]:
    """The current question and the tool rounds of the turn in progress."""
    question = check_question(current, "current question")
    if shape.refuses_empty_text:
        shape.refuse_blank(question)
    return [shape.user(question_content(shape, question)),
            *round_messages(shape, full_rounds(current_steps))]


def arguments(shape: Shape, call: ToolCall) -> object:
    """A call's arguments as the dialect sends them: the JSON text or the object."""
    return call.arguments if shape.arguments_as_text else call.input


def question_content(shape: Shape, question: str | tuple) -> object:
    """A question as a user message's content: its text, or its parts as content blocks."""
    if isinstance(question, str):
        return question
    return [part_piece(shape, part) for part in question]


def part_piece(shape: Shape, part) -> dict:
    """A part of a question or of a result: a text, an image or a document."""
    if isinstance(part, str):
        return shape.text(part)
    if isinstance(part, Image):
        return shape.image(part.media_type, part.base64)
    return shape.document(part.media_type, part.base64, part.filename)


def round_messages(shape: Shape, rounds: tuple) -> list[dict]:
    """The messages of tool rounds (``Round``s): each round's reasoning (its own dialect's,
    as given; another dialect's are left out), its text, its calls, then the results that
    answer them."""
    messages = []
    for round_ in rounds:
        messages.extend(shape.round(
            [shape.call(call.id, call.name, arguments(shape, call)) for call in round_.calls],
            [shape.result(answer.call_id, question_content(shape, answer.content),
                          answer.is_error) for answer in round_.results],
            [item.as_dict for item in round_.reasoning if item.dialect == shape.name],
            None if round_.text is None else round_.text.text))
    return messages


def sections(options: RequestOptions) -> tuple[str | None, str | None, str | None]:
    """The memory sections' texts, in their order (facts, evidence, summaries); None: none."""
    return (facts_content(options.facts) if options.facts else None,
            lines_content(map(evidence_line, options.evidence)) if options.evidence else None,
            lines_content(map(summary_line, options.summaries)) if options.summaries else None)


def body_of(system: str, stored: list, current: str | tuple, options: RequestOptions,
            memory: tuple = (None, None, None), newest_marked: bool = False) -> dict:
    """The body with ``stored`` as the messages of the stored turns and ``memory`` as the
    sections' texts (the evidence after the turns with ``evidence_after_turns``); with
    ``cache_breakpoints``, the stable prefix marked, and the last stored message if
    ``newest_marked`` (a frame's stand-in for the turns is not a message)."""
    shape = SHAPES[options.dialect]
    check_text(system, "system")
    facts, evidence, summaries = memory
    late = []
    if options.evidence_after_turns and evidence is not None:
        late, evidence = [shape.section_after_turns(evidence)], None
    if options.cache_breakpoints and newest_marked and stored:
        stored = stored[:-1] + [shape.breakpoint_on(stored[-1])]
    messages = stored + late + current_messages(shape, current, options.current_steps)
    body = shape.body(check_text(options.model, "model"),
                      max_tokens_field(shape, options.reserve_tokens),
                      system_text(shape, system), facts, messages,
                      [tool_entry(shape, tool) for tool in options.tools], evidence, summaries)
    return shape.with_breakpoints(body) if options.cache_breakpoints else body


@takes_options(*WIRE)
def request_body(system: str, turns: Sequence[Turn], current: str | tuple, *,
                 options: RequestOptions) -> dict:
    """The request as an object: what ``request_bytes`` serializes.

    ``current_steps`` are the tool rounds of the turn in progress, after the current
    question. ``reserve_tokens`` is Anthropic's ``max_tokens`` (not written for OpenAI).
    """
    shape = SHAPES[options.dialect]
    check_text(system, "system")  # the arguments are checked in their order: system,
    memory = sections(options)  # the facts, the turns, then the current question
    stored = [message for turn in turns for message in turn_messages(shape, turn)]
    return body_of(system, stored, current, options, memory, newest_marked=True)


@takes_options(*WIRE)
def request_bytes(system: str, turns: Sequence[Turn], current: str | tuple, *,
                  options: RequestOptions) -> bytes:
    """The exact body that would go over the wire: the encoder's ``dumps`` of
    ``request_body(...)``."""
    return get_encoder(options.encoder).dumps(
        request_body(system, turns, current, options=options))


def messages(system: str, turns: list[Turn], current: str | tuple,
             facts: Sequence[Fact] = (), *, current_steps: Sequence = ()) -> list[dict]:
    """The chat messages of an ``openai-chat`` request: system, the facts, each turn's
    messages, the current question and its tool rounds.

    The facts, if any, are a second system message right after the first.
    """
    return request_body(system, turns, current, facts=facts,
                        current_steps=current_steps)["messages"]


def fragment(encoder: Encoder, shape: Shape, turns: Sequence[Turn],
             breakpoint: bool = False) -> tuple[bytes, int]:
    """Consecutive turns as the encoder writes them inside the messages array (without
    brackets), and how many messages they are; with ``breakpoint``, the last of them the
    request's newest, marked for the provider's cache (``cache_breakpoints``)."""
    written = [message for turn in turns for message in turn_messages(shape, turn)]
    if breakpoint and written:
        written[-1] = shape.breakpoint_on(written[-1])
    return encoder.dumps(written)[1:-1], len(written)


# Stands where the stored turns go while a frame is written: JSON escapes U+0000, and the
# random part keeps any real value from writing the same bytes.
_TURNS = f"\0turns {os.urandom(16).hex()}\0"


@dataclass(frozen=True)
class Frame:
    """A body's bytes around its stored turns: ``before`` + the turns' fragments, joined by
    ``separator`` + ``after``. ``after`` always starts with a separator (the current
    question follows the turns), so each fragment adds its length and one separator."""

    before: bytes
    after: bytes
    separator: bytes

    @property
    def size(self) -> int:
        """The body's bytes with no stored turn."""
        return len(self.before) + len(self.after) - len(self.separator)

    def join(self, fragments: Sequence[bytes]) -> bytes:
        if not fragments:
            return self.before + self.after[len(self.separator):]
        return self.before + self.separator.join(fragments) + self.after


def frame(system: str, current: str | tuple, options: RequestOptions,
          memory: tuple = (None, None, None)) -> Frame:
    """The body of this system, question, options and memory sections, around its turns."""
    encoder = get_encoder(options.encoder)
    marker = encoder.dumps(_TURNS)
    before, after = encoder.dumps(body_of(system, [_TURNS], current, options, memory)).split(
        marker)
    return Frame(before, after, encoder.item_separator.encode())
