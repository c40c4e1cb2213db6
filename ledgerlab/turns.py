"""What a conversation holds: turns, their tool rounds and images, and pinned facts.

A ``Turn`` is the user's question, everything the assistant did before its final
answer (``steps``: rounds of tool calls, each followed by the results that answer
them), and that answer. Selection keeps or drops whole turns, so a call never
travels without its results, nor a result without its call: a ``Turn`` whose
rounds do not pair up is refused when it is made.

Every value here is frozen and checked when made, and its repr shows sizes and id
tags only: conversation text is private.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .checks import InvalidText, InvalidTurn, check_id, check_text, id_tag
from .images import Image


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
    return f"[{fact.origin}] {fact.text}"


def facts_content(facts: Sequence[Fact]) -> str:
    """The content of the facts message: one line per fact, joined by newlines."""
    return "\n".join(fact_line(check_fact(fact)) for fact in facts)


def check_fact(fact: object) -> Fact:
    """Return ``fact`` if it is a Fact, else TypeError (its fields were checked when made)."""
    if not isinstance(fact, Fact):
        raise TypeError(f"facts must be Fact, not {type(fact).__name__}")
    return fact


# The widest of the providers' patterns for a tool's name (Anthropic's; OpenAI's allows 64
# characters, which a request in its dialect checks: ``ledgerlab.limits``).
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")


def check_tool_name(name: object, field_name: str = "name") -> str:
    check_text(name, field_name)
    if not TOOL_NAME.fullmatch(name):
        raise InvalidTurn(f"{field_name} must be 1 to 128 of A-Z a-z 0-9 _ - "
                          f"(got {len(name)} characters)")
    return name


def refuse_constant(name: str) -> object:
    """``json.loads``' ``parse_constant``: NaN and Infinity are not JSON, whatever Python
    accepts."""
    raise ValueError(f"{name} is not JSON")


MAX_NESTING = 100  # levels of objects and arrays in arguments and schemas


def _nesting(value: object) -> int:
    """How many levels of objects and arrays ``value`` nests (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1)
                         for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def json_object(value: object, field_name: str) -> dict:
    """``value`` (a dict, or the JSON text of an object) as a new dict; InvalidTurn if it is not
    one JSON object (NaN and Infinity are not JSON, and neither provider takes them)."""
    try:
        if isinstance(value, str):
            check_text(value, field_name)
            parsed = json.loads(value, parse_constant=refuse_constant)
        elif isinstance(value, Mapping):
            parsed = json.loads(json.dumps(value, allow_nan=False))  # a deep, JSON-only copy
        else:
            raise TypeError(f"{field_name} must be a dict or JSON text, not {type(value).__name__}")
    except (ValueError, RecursionError) as error:
        if isinstance(error, InvalidText):
            raise
        raise InvalidTurn(f"{field_name} is not valid JSON ({type(error).__name__})") from None
    if not isinstance(parsed, dict):
        raise InvalidTurn(f"{field_name} must be a JSON object, not a JSON {type(parsed).__name__}")
    if _nesting(parsed) > MAX_NESTING:  # what is accepted must be writable, whatever the stack
        raise InvalidTurn(f"{field_name} nests deeper than {MAX_NESTING} levels")
    try:  # an escaped lone surrogate parses, and 1e999 parses as inf: no wire carries either
        json.dumps(parsed, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidText(f"{field_name} holds a lone surrogate") from None
    except ValueError:
        raise InvalidTurn(f"{field_name} holds a number out of JSON's range") from None
    return parsed


@dataclass(frozen=True)
class ToolCall:
    """The assistant asking for a tool: the call's id, the tool's name, and its arguments
    as the JSON text of an object (what OpenAI sends; Anthropic sends the object)."""

    id: str
    name: str
    arguments: str

    def __post_init__(self) -> None:
        check_id(self.id, "call id")
        check_tool_name(self.name, "tool name")
        check_text(self.arguments, "arguments")  # the JSON text, as OpenAI sends it
        json_object(self.arguments, "arguments")

    @property
    def input(self) -> dict:
        """The arguments as an object (a new one each time): what Anthropic's tool_use sends."""
        return json.loads(self.arguments)

    def __repr__(self) -> str:
        return (f"ToolCall({id_tag(self.id)}, name={len(self.name)} chars, "
                f"arguments={len(self.arguments.encode())} bytes)")


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned for the call whose id is ``call_id``, as text."""

    call_id: str
    content: str

    def __post_init__(self) -> None:
        check_id(self.call_id, "call_id")
        check_text(self.content, "content")

    def __repr__(self) -> str:
        return f"ToolResult({id_tag(self.call_id)}, content={len(self.content.encode())} bytes)"


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
    """A question is a str, or a non-empty tuple of parts, each a str or an Image."""
    if isinstance(question, str):  # a str subclass (numpy.str_, say) is kept as its str
        return str.__str__(check_text(question, field_name))
    if not isinstance(question, tuple):
        raise InvalidText(f"{field_name} must be str or a tuple of str and Image parts, "
                          f"not {type(question).__name__}")
    if not question:
        raise InvalidTurn(f"{field_name} has no parts")
    for number, part in enumerate(question, 1):
        if isinstance(part, str):
            check_text(part, f"{field_name} part {number}")
        elif not isinstance(part, Image):
            raise InvalidText(f"{field_name} part {number} must be str or Image, "
                              f"not {type(part).__name__}")
    return tuple(str.__str__(part) if isinstance(part, str) else part for part in question)


def question_text(question: str | tuple) -> str:
    """A question's text: itself, or its text parts joined by newlines (images left out)."""
    if isinstance(question, str):
        return question
    return "\n".join(part for part in question if isinstance(part, str))


def check_steps(steps: object, field_name: str = "steps") -> tuple:
    """``steps`` as a tuple, if it is whole rounds: one or more ToolCall, then one ToolResult
    for each of them (in any order), and so on. A call left unanswered, a result for a call
    its round did not make, or an id used twice in the turn is refused."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise TypeError(f"{field_name} must be a sequence of ToolCall and ToolResult")
    steps = tuple(steps)
    seen: set[str] = set()
    waiting: set[str] = set()  # the calls of the open round not yet answered
    answering = False  # the open round's results have begun
    rounds = 0
    for number, step in enumerate(steps, 1):
        if isinstance(step, ToolCall):
            if answering:
                raise InvalidTurn(f"{field_name}: round {rounds} leaves {len(waiting)} "
                                  f"call(s) unanswered before step {number} calls again")
            if not waiting:
                rounds += 1
            if step.id in seen:
                raise InvalidTurn(f"{field_name}: call id {id_tag(step.id)} is used twice")
            seen.add(step.id)
            waiting.add(step.id)
        elif isinstance(step, ToolResult):
            if step.call_id not in waiting:
                raise InvalidTurn(f"{field_name}: step {number} answers {id_tag(step.call_id)}, "
                                  f"which is not an unanswered call of its round")
            waiting.discard(step.call_id)
            answering = bool(waiting)
        else:
            raise TypeError(f"{field_name} must be ToolCall and ToolResult, "
                            f"not {type(step).__name__}")
    if waiting:
        raise InvalidTurn(f"{field_name}: round {rounds} leaves {len(waiting)} call(s) "
                          f"unanswered")
    return steps


def rounds_of(steps: tuple) -> tuple[tuple[tuple[ToolCall, ...], tuple[ToolResult, ...]], ...]:
    """Checked steps as rounds: (the calls made together, the results that answer them)."""
    rounds, calls, results = [], [], []
    for step in steps:
        if isinstance(step, ToolCall) and results:
            rounds.append((tuple(calls), tuple(results)))
            calls, results = [], []
        (calls if isinstance(step, ToolCall) else results).append(step)
    if calls:
        rounds.append((tuple(calls), tuple(results)))
    return tuple(rounds)


@dataclass(frozen=True)
class Turn:
    """One confirmed exchange: the user's question, the assistant's tool rounds, its answer.

    ``question`` is a str, or a tuple of parts (str and Image). ``steps`` is what the
    assistant did before answering, in order: one or more ToolCall made together,
    then a ToolResult for each, then optionally another round. With no steps and a
    str question a Turn is the article's question-and-answer pair.
    """

    question: str | tuple
    answer: str
    steps: tuple = ()
    # Fewer bytes than any encoder writes for it (every character is at least one byte):
    # ``select`` stops at a turn this bound already rules out, without encoding it.
    _least_bytes: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "question", check_question(self.question))
        check_text(self.answer, "answer")
        object.__setattr__(self, "steps", check_steps(self.steps))
        least = len(self.answer) + sum(  # (arguments left out: Anthropic re-writes them)
            len(step.id) + len(step.name) if isinstance(step, ToolCall)
            else len(step.call_id) + len(step.content) for step in self.steps)
        if isinstance(self.question, str):
            least += len(self.question)
        else:
            least += sum(len(part) if isinstance(part, str) else len(part.base64)
                         for part in self.question)
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
        return () if isinstance(self.question, str) else tuple(
            part for part in self.question if isinstance(part, Image))

    @property
    def rounds(self) -> tuple:
        """The steps as rounds: (calls made together, the results that answer them)."""
        return rounds_of(self.steps)

    def __repr__(self) -> str:
        # Conversation text is private: show sizes only.
        question = len(self.text.encode())
        parts = ""
        if self.images:
            parts = (f", images={len(self.images)} "
                     f"({sum(len(image.data) for image in self.images)} bytes)")
        steps = ""
        if self.steps:
            calls = sum(isinstance(step, ToolCall) for step in self.steps)
            steps = f", rounds={len(self.rounds)}, calls={calls}"
        return (f"Turn(question={question} bytes{parts}, "
                f"answer={len(self.answer.encode())} bytes{steps})")
