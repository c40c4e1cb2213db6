"""What a conversation holds: turns, their tool rounds and images, and pinned facts.

A ``Turn`` is the user's question, everything the assistant did before its final
answer (``steps``: rounds of tool calls, each after the reasoning and text that preceded
them and followed by the results that answer them: ``ledgerlab.steps``), and that answer. Selection keeps or drops whole turns, so a call never
travels without its results, nor a result without its call: a ``Turn`` whose
rounds do not pair up is refused when it is made.

Every value here is frozen and checked when made, and its repr shows sizes and id
tags only: conversation text is private.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from .checks import InvalidTurn, check_id, check_text, id_tag
from .documents import Document
from .images import Image
from .steps import (MAPPED_ID_LENGTH, AssistantText, ProviderItem, Reasoning, ToolCall,
                    ToolResult, check_content, check_steps, check_tool_name, content_text,
                    full_rounds, json_object)


@dataclass(frozen=True)
class Fact:
    """A pinned fact and the id of the stored turn it came from (its ``origin``).

    In a request it is the line ``[origin] text``: the model sees where it came from.
    """

    id: str
    text: str
    origin: str

    def __post_init__(self) -> None:
        check_id(self.id)
        check_text(self.text, "text")
        check_id(self.origin, "origin")

    def __repr__(self) -> str:
        # Ids and text may be private: tags and sizes only.
        return (f"Fact({id_tag(self.id)}, text={len(self.text.encode())} bytes, "
                f"origin={id_tag(self.origin)})")


def fact_line(fact: Fact) -> str:
    """How one fact reads in the facts message: its origin in brackets, then its text."""
    check_fact(fact, "fact")
    return f"[{fact.origin}] {fact.text}"


def facts_content(facts: Sequence[Fact]) -> str:
    """The content of the facts message: one line per fact, joined by newlines."""
    return "\n".join(fact_line(check_fact(fact)) for fact in facts)


def check_fact(fact: object, name: str = "facts") -> Fact:
    """Return ``fact`` if it is a Fact, else a TypeError naming the argument ``name`` (a
    Fact's fields were checked when it was made)."""
    if not isinstance(fact, Fact):
        raise TypeError(f"{name} must be Fact, not {type(fact).__name__}")
    return fact


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: its name, what it does, and its parameters' JSON Schema.

    ``parameters`` may be given as a dict or as JSON text; it is kept as compact JSON
    text (so a Tool is frozen and hashable), and ``schema`` is that object, parsed.
    """

    name: str
    description: str
    parameters: str

    def __post_init__(self) -> None:
        check_tool_name(self.name)
        check_text(self.description, "description")
        schema = json_object(self.parameters, "parameters")
        if schema.get("type") != "object":  # both providers refuse any other schema
            raise InvalidTurn('parameters must be a JSON Schema of "type": "object"')
        object.__setattr__(self, "parameters",
                           json.dumps(schema, ensure_ascii=False, separators=(",", ":")))

    @property
    def schema(self) -> dict:
        """The parameters' JSON Schema as an object (a new one each time)."""
        return json.loads(self.parameters)

    def __repr__(self) -> str:
        return (f"Tool(name={len(self.name)} chars, description="
                f"{len(self.description.encode())} bytes, parameters="
                f"{len(self.parameters.encode())} bytes)")


@dataclass(frozen=True)
class ProviderTool:
    """A tool entry in one dialect's own shape, sent as is: an OpenAI custom tool
    (``{"type": "custom", ...}``), an Anthropic server tool (``{"type":
    "web_search_20250305", "name": "web_search", ...}``) or any other the provider lists.

    ``entry`` may be given as a dict or as JSON text; it is kept as compact JSON text
    (frozen and hashable) and ``as_dict`` is that object, parsed. It is mandatory input
    like a Tool: its bytes are in every request of its ``dialect`` (another refuses it).
    """

    entry: str
    dialect: str

    def __post_init__(self) -> None:
        entry = json_object(self.entry, "entry")
        if not isinstance(entry.get("type"), str) or not entry["type"]:
            raise InvalidTurn("a provider tool's entry needs its \"type\", a string")
        check_text(self.dialect, "dialect")
        object.__setattr__(self, "entry",
                           json.dumps(entry, ensure_ascii=False, separators=(",", ":")))

    @property
    def name(self) -> str | None:
        """The entry's name, if it has one (names are unique among a request's tools)."""
        name = self.as_dict.get("name")
        return name if isinstance(name, str) else None

    @property
    def as_dict(self) -> dict:
        """The entry as an object (a new one each time)."""
        return json.loads(self.entry)

    def __repr__(self) -> str:
        return f"ProviderTool({self.dialect}, entry={len(self.entry.encode())} bytes)"


def check_tools(tools: object) -> tuple:
    """``tools`` as a tuple of Tool and ProviderTool with distinct names (both providers
    refuse a repeat)."""
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise TypeError("tools must be a sequence of Tool")
    names = set()
    for tool in tools:
        if not isinstance(tool, (Tool, ProviderTool)):
            raise TypeError(f"tools must be Tool or ProviderTool, not {type(tool).__name__}")
        if tool.name is None:
            continue
        if tool.name in names:
            raise InvalidTurn(f"two tools share a name ({len(tool.name)} chars)")
        names.add(tool.name)
    return tuple(tools)


def check_question(question: object, field_name: str = "question") -> str | tuple:
    """A question is a str, or a non-empty tuple of parts, each a str, an Image or a
    Document."""
    return check_content(question, field_name, (Image, Document))


def question_text(question: str | tuple) -> str:
    """A question's text: itself, or its text parts joined by newlines (images and
    documents left out)."""
    return content_text(question)


def least_step_bytes(step: object) -> int:
    """Fewer bytes than any dialect writes for a step: its ids, names and texts, each
    character at least one byte (a call's arguments, which Anthropic re-writes, and
    reasoning and provider items, which other dialects leave out, count nothing; an id
    counts no more than its mapped form, which a dialect may write instead)."""
    if isinstance(step, ToolCall):
        return min(len(step.id), MAPPED_ID_LENGTH) + len(step.name)
    if isinstance(step, ToolResult):
        return min(len(step.call_id), MAPPED_ID_LENGTH) + least_content_bytes(step.content)
    if isinstance(step, AssistantText):
        return len(step.text)
    return 0


def least_content_bytes(content: str | tuple) -> int:
    """A text, or parts' texts and the base64 of their images and documents."""
    if isinstance(content, str):
        return len(content)
    return sum(len(part) if isinstance(part, str) else len(part.base64) for part in content)


@dataclass(frozen=True)
class Turn:
    """One confirmed exchange: the user's question, the assistant's tool rounds, its answer.

    ``question`` is a str, or a tuple of parts (str, Image and Document). ``steps`` is what
    the assistant did before answering, in order: optionally Reasoning and one
    AssistantText, one or more ToolCall made together, then a ToolResult for each, then
    optionally another round (``check_steps``). A Reasoning travels with its turn: the turn
    is whole only with it. With no steps and a
    str question a Turn is the article's question-and-answer pair.

    ``id`` is the turn's id in the journal it was read from (None for a turn made by
    hand): summaries and facts name their origins by it. It is not part of the wire
    bytes, nor of a turn's value (two turns with the same exchange are equal).
    """

    question: str | tuple
    answer: str
    steps: tuple = ()
    id: str | None = field(default=None, compare=False)
    # Fewer bytes than any encoder writes for it (every character is at least one byte):
    # ``select`` stops at a turn this bound already rules out, without encoding it.
    _least_bytes: int = field(init=False, compare=False, repr=False)
    # The steps as rounds, made once: every request of the turn walks them.
    _full_rounds: tuple = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "question", check_question(self.question))
        if self.id is not None:
            check_id(self.id)
        check_text(self.answer, "answer")
        object.__setattr__(self, "steps", check_steps(self.steps))
        object.__setattr__(self, "_full_rounds", full_rounds(self.steps))
        # An answer of whitespace alone counts nothing: Anthropic's dialect leaves it out.
        least = ((len(self.answer) if self.answer.strip() else 0)
                 + least_content_bytes(self.question) + sum(map(least_step_bytes, self.steps)))
        object.__setattr__(self, "_least_bytes", least)

    @property
    def plain(self) -> bool:
        """Is this the article's pair: a str question, an answer, no tool rounds?"""
        return not self.steps and isinstance(self.question, str)

    @property
    def text(self) -> str:
        """The question's text (its text parts joined by newlines)."""
        return question_text(self.question)

    @property
    def images(self) -> tuple[Image, ...]:
        """The question's images (an image in a tool result is in ``result_images``)."""
        return () if isinstance(self.question, str) else tuple(
            part for part in self.question if isinstance(part, Image))

    @property
    def documents(self) -> tuple[Document, ...]:
        return () if isinstance(self.question, str) else tuple(
            part for part in self.question if isinstance(part, Document))

    @property
    def result_images(self) -> tuple[Image, ...]:
        """The images in the turn's tool results."""
        return tuple(image for step in self.steps if isinstance(step, ToolResult)
                     for image in step.images)

    @property
    def rounds(self) -> tuple:
        """The steps as rounds: (calls made together, the results that answer them)."""
        return tuple((round_.calls, round_.results) for round_ in self._full_rounds)

    @property
    def full_rounds(self) -> tuple:
        """The steps as ``Round``s: each round's reasoning, text, calls and results."""
        return self._full_rounds

    def __repr__(self) -> str:
        # Conversation text is private: show sizes only.
        question = len(self.text.encode())
        parts = ""
        if self.images:
            parts = (f", images={len(self.images)} "
                     f"({sum(len(image.data) for image in self.images)} bytes)")
        steps = ""
        if self.documents:
            parts += (f", documents={len(self.documents)} "
                      f"({sum(len(document.data) for document in self.documents)} bytes)")
        if self.steps:
            calls = sum(isinstance(step, ToolCall) for step in self.steps)
            steps = f", rounds={len(self.rounds)}, calls={calls}"
            reasoning = sum(isinstance(step, Reasoning) for step in self.steps)
            if reasoning:
                steps += f", reasoning={reasoning}"
            items = sum(isinstance(step, ProviderItem) for step in self.steps)
            if items:
                steps += f", provider_items={items}"
        named = "" if self.id is None else f"{id_tag(self.id)}, "
        return (f"Turn({named}question={question} bytes{parts}, "
                f"answer={len(self.answer.encode())} bytes{steps})")
