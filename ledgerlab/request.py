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
just before the current question); a provider's compaction items (``Compaction``, given among
the summaries) go before the turns in their own dialect; without them a request is
unchanged. With no tools, steps or images, an ``openai-chat`` request is exactly the
article's. The application's own top-level fields (``extra=``) follow the writer's, in the
order given.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from dataclasses import dataclass

from .checks import check_text
from .encoders import Encoder, get_encoder
from .options import WIRE, RequestOptions, takes_options
from .dialects import (SHAPES, Shape, compaction_pieces, evidence_line, lines_content,
                       max_tokens_field, question_content, round_messages, sent_in,
                       summary_line, system_text, tool_entry, turn_messages)
from .memory import Summary
from .steps import full_rounds
from .turns import Fact, Turn, check_question, facts_content

# The memory of a request with none: the facts', evidence's and summaries' texts, and the
# compaction items (``sections``).
NO_MEMORY = (None, None, None, ())


def current_messages(shape: Shape, current: str | tuple, current_steps: tuple) -> list[dict]:
    """The current question and the tool rounds of the turn in progress."""
    question = check_question(current, "current question")
    if shape.refuses_empty_text:
        shape.refuse_blank(question)
    return [shape.user(question_content(shape, question)),
            *round_messages(shape, full_rounds(current_steps))]


def sections(options: RequestOptions) -> tuple:
    """The memory sections' texts, in their order (facts, evidence, summaries; None: none),
    and the compaction items the dialect sends (``summaries=`` holds both kinds)."""
    shape = SHAPES[options.dialect]
    lines = [summary_line(item) for item in options.summaries if isinstance(item, Summary)]
    return (facts_content(options.facts) if options.facts else None,
            lines_content(map(evidence_line, options.evidence)) if options.evidence else None,
            lines_content(lines) if lines else None,
            compaction_pieces(shape, [item for item in options.summaries
                                      if sent_in(shape, item)]))


def body_of(system: str, stored: list, current: str | tuple, options: RequestOptions,
            memory: tuple = NO_MEMORY, with_extra: bool = True,
            newest_marked: bool = False) -> dict:
    """The body with ``stored`` as the messages of the stored turns and ``memory`` as the
    sections' texts and the compaction items (``sections``; the evidence after the turns with
    ``evidence_after_turns``); with ``cache_breakpoints``, the stable prefix marked, and the
    last stored message if ``newest_marked`` (a frame's stand-in for the turns is not a
    message); without ``with_extra``, the writer's fields alone (what ``byte_breakdown``
    measures ``extra=`` against)."""
    shape = SHAPES[options.dialect]
    check_text(system, "system")
    facts, evidence, summaries, compactions = memory
    late = []
    if options.evidence_after_turns and evidence is not None:
        late, evidence = [shape.section_after_turns(evidence)], None
    if options.cache_breakpoints and newest_marked and stored:
        stored = stored[:-1] + [shape.breakpoint_on(stored[-1])]
    messages = stored + late + current_messages(shape, current, options.current_steps)
    body = shape.body(check_text(options.model, "model"),
                      max_tokens_field(shape, options.reserve_tokens),
                      system_text(shape, system), facts, messages,
                      [tool_entry(shape, tool) for tool in options.tools], evidence, summaries,
                      compactions=compactions)
    if options.cache_breakpoints:
        body = shape.with_breakpoints(body)
    if with_extra and options.extra:  # checked with the options: none is one it writes
        body.update(copy.deepcopy(options.extra))  # a copy: the body is the caller's
    return body


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
    stored = [message for turn in turns
              for message in turn_messages(shape, turn, options.extra)]
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
             extra: dict | None = None, breakpoint: bool = False) -> tuple[bytes, int]:
    """Consecutive turns as the encoder writes them inside the messages array (without
    brackets) beside the request's ``extra`` fields, and how many messages they are; with
    ``breakpoint``, the last of them the request's newest, marked for the provider's cache
    (``cache_breakpoints``)."""
    written = [message for turn in turns for message in turn_messages(shape, turn, extra)]
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
          memory: tuple = NO_MEMORY, with_extra: bool = True) -> Frame:
    """The body of this system, question, options and memory sections, around its turns
    (without ``with_extra``, without the ``extra=`` fields)."""
    encoder = get_encoder(options.encoder)
    marker = encoder.dumps(_TURNS)
    before, after = encoder.dumps(body_of(system, [_TURNS], current, options, memory,
                                          with_extra)).split(marker)
    return Frame(before, after, encoder.item_separator.encode())
