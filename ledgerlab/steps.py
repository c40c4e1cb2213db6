"""The steps of a turn's tool rounds: what the assistant did before its final answer.

A round is, in order: its opening (optionally the provider's reasoning, ``Reasoning``, kept
exactly as the provider returned it; the provider's own items, ``ProviderItem``: server, hosted
and MCP tool items and custom tool calls; optionally the assistant's text beside its calls,
``AssistantText``), one or more ``ToolCall`` made together, then one ``ToolResult`` for each of
them (in any order). The last round may have no calls when its opening ends with a
``ProviderItem`` (a hosted tool used before the answer). ``check_steps`` refuses steps that
are not whole rounds, so a call never travels without its result, nor reasoning without the
item it preceded.

Each value is frozen and checked when made; its repr shows sizes and id tags only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from .checks import InvalidText, InvalidTurn, check_id, check_text, id_tag
from .images import Image

# The widest of the providers' patterns for a tool's name (Anthropic's; OpenAI's allows 64
# characters, which a request in its dialect checks: ``ledgerlab.dialects``).
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


# How a dialect writes a call id its pattern or length refuses (``dialects.common.wire_call_id``):
# this prefix and the first hex digits of the id's SHA-256.
MAPPED_ID_PREFIX = "call_"
MAPPED_ID_DIGITS = 32  # 128 bits
MAPPED_ID_LENGTH = len(MAPPED_ID_PREFIX) + MAPPED_ID_DIGITS

# The Responses API's item ids begin with their type's prefix (its API error: "Invalid
# 'input[N].id': ... Expected an ID that begins with 'fc'.", BigPizzaV3/CodexPlusPlus#1796).
ITEM_ID_PREFIXES = {"function_call": "fc", "message": "msg"}


def check_item_id(item_id: object, kind: str) -> str | None:
    """None, or a Responses item id of ``kind`` (``function_call``, ``message``): a non-empty
    str beginning with the API's prefix for it."""
    if item_id is None:
        return None
    check_id(item_id, "item_id")
    prefix = ITEM_ID_PREFIXES[kind]
    if not item_id.startswith(prefix):
        raise InvalidTurn(f"item_id {id_tag(item_id)} is not a {kind} item's id: the "
                          f"Responses API's begin with {prefix!r}")
    return item_id


@dataclass(frozen=True)
class ToolCall:
    """The assistant asking for a tool: the call's id, the tool's name, and its arguments
    as the JSON text of an object (what OpenAI sends; Anthropic sends the object).

    ``item_id`` is the Responses API's own id of the ``function_call`` item (``fc_...``), as it
    returned it: written as the item's ``id`` in ``openai-responses`` requests (which pair a
    reasoning item with the item after it by that id), nowhere else. None: not known."""

    id: str
    name: str
    arguments: str
    item_id: str | None = None

    def __post_init__(self) -> None:
        check_id(self.id, "call id")
        check_tool_name(self.name, "tool name")
        check_text(self.arguments, "arguments")  # the JSON text, as OpenAI sends it
        json_object(self.arguments, "arguments")
        check_item_id(self.item_id, "function_call")

    @property
    def input(self) -> dict:
        """The arguments as an object (a new one each time): what Anthropic's tool_use sends."""
        return json.loads(self.arguments)

    def __repr__(self) -> str:
        item = "" if self.item_id is None else f", item_id={id_tag(self.item_id)}"
        return (f"ToolCall({id_tag(self.id)}, name={len(self.name)} chars, "
                f"arguments={len(self.arguments.encode())} bytes{item})")


def content_text(content: str | tuple) -> str:
    """A result's (or a question's) text: itself, or its text parts joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(part for part in content if isinstance(part, str))


def content_bytes(content: str | tuple) -> int:
    """The bytes a result's content holds: its text's UTF-8, and each image's raw bytes."""
    if isinstance(content, str):
        return len(content.encode())
    return sum(len(part.encode()) if isinstance(part, str) else len(part.data)
               for part in content)


def check_content(value: object, field_name: str, kinds: tuple[type, ...]) -> str | tuple:
    """A question's or a result's content: a str, or a non-empty tuple of parts, each a str
    or one of ``kinds`` (a str subclass, numpy.str_ say, is kept as its str)."""
    names = " and ".join(["str", *(kind.__name__ for kind in kinds)])
    if isinstance(value, str):
        return str.__str__(check_text(value, field_name))
    if not isinstance(value, tuple):
        raise InvalidText(f"{field_name} must be str or a tuple of {names} parts, "
                          f"not {type(value).__name__}")
    if not value:
        raise InvalidTurn(f"{field_name} has no parts")
    for number, part in enumerate(value, 1):
        if isinstance(part, str):
            check_text(part, f"{field_name} part {number}")
        elif not isinstance(part, kinds):
            raise InvalidText(f"{field_name} part {number} must be {names.replace(' and ', ' or ')}"
                              f", not {type(part).__name__}")
    return tuple(str.__str__(part) if isinstance(part, str) else part for part in value)


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned for the call whose id is ``call_id``.

    ``content`` is text, or a tuple of text and ``Image`` parts (Anthropic's tool_result
    blocks and the Responses API's function_call_output take images; OpenAI Chat's tool
    message takes text parts only, so a request in its dialect moves the images to a user
    message after the round's tool messages).
    ``is_error`` says the tool failed: Anthropic's ``"is_error": true`` (the key is left out
    when False); the OpenAI dialects have no such field and send the content as it is.
    """

    call_id: str
    content: str | tuple
    is_error: bool = False

    def __post_init__(self) -> None:
        check_id(self.call_id, "call_id")
        object.__setattr__(self, "content", check_content(self.content, "content", (Image,)))
        if not isinstance(self.is_error, bool):
            raise TypeError(f"is_error must be a bool, not {type(self.is_error).__name__}")

    @property
    def text(self) -> str:
        """The content's text (its text parts joined by newlines)."""
        return content_text(self.content)

    @property
    def images(self) -> tuple[Image, ...]:
        return () if isinstance(self.content, str) else tuple(
            part for part in self.content if isinstance(part, Image))

    def __repr__(self) -> str:
        images = f", images={len(self.images)}" if self.images else ""
        error = ", is_error" if self.is_error else ""
        return (f"ToolResult({id_tag(self.call_id)}, content={content_bytes(self.content)} "
                f"bytes{images}{error})")


@dataclass(frozen=True)
class AssistantText:
    """The assistant's text beside its tool calls, in the same message, before the calls
    (what a model says while it calls: "Let me look that up").

    ``item_id`` is the Responses API's id of the assistant ``message`` item (``msg_...``), as
    it returned it: written as the item's ``id`` in ``openai-responses`` requests, nowhere
    else. None: not known."""

    text: str
    item_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", str.__str__(check_text(self.text, "text")))
        if not self.text.strip():  # Anthropic refuses a blank text block; no provider needs one
            raise InvalidText("an assistant text beside tool calls must not be blank")
        check_item_id(self.item_id, "message")

    def __repr__(self) -> str:
        item = "" if self.item_id is None else f", item_id={id_tag(self.item_id)}"
        return f"AssistantText({len(self.text.encode())} bytes{item})"


# The item types each dialect's reasoning takes, and the keys each must carry (a minimal
# shape: the rest of the item is the provider's and is kept as given). OpenAI Chat has no
# reasoning items: a body in its dialect leaves every Reasoning out.
REASONING_TYPES = {
    "anthropic-messages": {"thinking": ("signature",), "redacted_thinking": ("data",)},
    "openai-responses": {"reasoning": ("id",)},
}


class OpaqueItem:
    """What ``Reasoning`` and ``ProviderItem`` share: a provider's item kept as compact JSON
    text (``item``), its ``dialect``, and its own id read once (``_item_id``). Its repr shows
    the dialect, the item's type and its size, never its content."""

    item: str
    dialect: str
    _item_id: str | None

    @property
    def item_id(self) -> str | None:
        """The item's own id, where it has one (``rs_...``, ``ws_...``, ``ctc_...``)."""
        return self._item_id

    @property
    def kind(self) -> str:
        """The item's type (``thinking``, ``reasoning``, ``web_search_call`` ...)."""
        return self.as_dict["type"]

    @property
    def as_dict(self) -> dict:
        """The item as an object (a new one each time)."""
        return json.loads(self.item)

    def __repr__(self) -> str:
        name = type(self).__name__
        if not isinstance(self.item, str):  # a failed __post_init__, shown in its traceback
            return f"{name}({type(self.item).__name__})"
        return f"{name}({self.dialect}, {self.kind}, {len(self.item.encode())} bytes)"


@dataclass(frozen=True, repr=False)
class Reasoning(OpaqueItem):
    """The provider's reasoning before a round's calls, exactly as it returned it: an
    Anthropic ``thinking`` block (with its ``signature``) or ``redacted_thinking`` block
    (with its ``data``), or an OpenAI Responses ``reasoning`` item (its ``id``,
    ``encrypted_content``, ``summary``). ``dialect`` is the one it belongs to.

    Opaque: ``item`` may be given as a dict or as JSON text and is kept as compact JSON
    text (key order and values as given), sent back unchanged in its own dialect's
    requests, before the calls it preceded, and left out of another dialect's. Never edit
    one: the providers refuse a changed or dropped one (a signature no longer matching).
    """

    item: str
    dialect: str
    # The item's own id (a Responses reasoning item's ``rs_...``), read once: requests pair by it.
    _item_id: str | None = field(init=False, compare=False, repr=False, default=None)

    def __post_init__(self) -> None:
        check_text(self.dialect, "dialect")
        kinds = REASONING_TYPES.get(self.dialect)
        if kinds is None:
            raise InvalidTurn(f"a Reasoning belongs to one of {', '.join(REASONING_TYPES)} "
                              f"(OpenAI Chat has no reasoning items)")
        item = json_object(self.item, "item")
        kind = item.get("type")
        if kind not in kinds:
            raise InvalidTurn(f"a {self.dialect} Reasoning's type must be one of "
                              f"{', '.join(kinds)}")
        for key in kinds[kind]:
            if not isinstance(item.get(key), str) or not item[key]:
                raise InvalidTurn(f"a {kind} item needs its {key!r}, a non-empty string")
        if kind == "thinking" and not isinstance(item.get("thinking"), str):
            raise InvalidTurn("a thinking item needs its 'thinking', a string")
        if kind == "reasoning" and not isinstance(item.get("summary"), list):
            raise InvalidTurn("a reasoning item needs its 'summary', a list")
        object.__setattr__(self, "item", compact_json(item))
        object.__setattr__(self, "_item_id", own_id(item))



# The provider's own items a ProviderItem holds, by dialect: the server, hosted and MCP tool
# blocks of Anthropic's Messages API reference, and the Responses API's hosted, MCP and custom
# tool items (its input item types). OpenAI Chat has none: a body in its dialect leaves every
# ProviderItem out.
PROVIDER_ITEM_TYPES = {
    "anthropic-messages": frozenset({
        "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
        "code_execution_tool_result", "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result",
        "container_upload"}),
    "openai-responses": frozenset({
        "web_search_call", "file_search_call", "computer_call", "computer_call_output",
        "code_interpreter_call", "image_generation_call", "local_shell_call",
        "local_shell_call_output", "mcp_list_tools", "mcp_approval_request",
        "mcp_approval_response", "mcp_call", "custom_tool_call", "custom_tool_call_output"}),
}


@dataclass(frozen=True, repr=False)
class ProviderItem(OpaqueItem):
    """One of the provider's own items in a round, exactly as it returned (or took) it: an
    Anthropic server or MCP tool block (``server_tool_use``, ``web_search_tool_result``,
    ``mcp_tool_use``, ``mcp_tool_result`` ...), or a Responses hosted, MCP or custom tool item
    (``web_search_call``, ``mcp_call``, ``custom_tool_call`` and its
    ``custom_tool_call_output`` ...). ``dialect`` is the one it belongs to.

    Opaque, like ``Reasoning``: ``item`` may be given as a dict or JSON text and is kept as
    compact JSON text, sent back unchanged in its own dialect's requests, in its place in the
    round, and left out of another dialect's (no other provider knows it)."""

    item: str
    dialect: str
    # The item's own id (``ws_...``, ``ctc_...``), read once: requests pair a reasoning item by it.
    _item_id: str | None = field(init=False, compare=False, repr=False, default=None)

    def __post_init__(self) -> None:
        check_text(self.dialect, "dialect")
        kinds = PROVIDER_ITEM_TYPES.get(self.dialect)
        if kinds is None:
            raise InvalidTurn(f"a ProviderItem belongs to one of {', '.join(PROVIDER_ITEM_TYPES)}"
                              f" (OpenAI Chat has no such items)")
        item = json_object(self.item, "item")
        if item.get("type") not in kinds:
            raise InvalidTurn(f"a {self.dialect} ProviderItem's type must be one of "
                              f"{', '.join(sorted(kinds))}")
        object.__setattr__(self, "item", compact_json(item))
        object.__setattr__(self, "_item_id", own_id(item))



def own_id(item: dict) -> str | None:
    """An opaque item's own ``id``, where it has a string one."""
    found = item.get("id")
    return found if isinstance(found, str) else None


def compact_json(item: dict) -> str:
    """An opaque item's JSON text as ledgerlab keeps it: compact, keys in their order."""
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


OPENING_TYPES = (Reasoning, ProviderItem, AssistantText)
STEP_TYPES = (Reasoning, ProviderItem, AssistantText, ToolCall, ToolResult)
RESPONSES = "openai-responses"


def _paired(steps: tuple, index: int) -> bool:
    """Is the Responses reasoning item at ``index`` followed by the item it produced: the
    next step a Responses body writes (another dialect's reasoning and items are left out of
    it) is a call, a text or a Responses item?"""
    for step in steps[index + 1:]:
        if isinstance(step, (Reasoning, ProviderItem)) and step.dialect != RESPONSES:
            continue
        return isinstance(step, (ToolCall, AssistantText, ProviderItem))
    return False


def check_steps(steps: object, field_name: str = "steps") -> tuple:
    """``steps`` as a tuple, if it is whole rounds: an opening (Reasoning and ProviderItem,
    then optionally one AssistantText and more ProviderItem), one or more ToolCall, then one
    ToolResult for each of the calls (in any order), and so on; the last round may have no
    call when its opening ends with a ProviderItem. A call left unanswered, a result for a
    call its round did not make, an id used twice in the turn, reasoning or text with no
    call or provider item after it, or a Responses reasoning item not followed by its own
    item (a call, a text or a Responses item) is refused."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise TypeError(f"{field_name} must be a sequence of ToolCall and ToolResult")
    steps = tuple(steps)
    seen: set[str] = set()
    waiting: set[str] = set()  # the calls of the open round not yet answered
    answering = False  # the open round's results have begun
    rounds = 0
    opening: list = []  # the open round's steps before its calls
    for number, step in enumerate(steps, 1):
        if isinstance(step, OPENING_TYPES):
            what = {Reasoning: "reasoning", AssistantText: "text",
                    ProviderItem: "provider item"}[type(step)]
            if waiting:
                raise InvalidTurn(f"{field_name}: step {number} ({what}) comes before round "
                                  f"{rounds} has answered its {len(waiting)} call(s)")
            if not opening:
                rounds += 1
            if not isinstance(step, ProviderItem) and any(
                    isinstance(other, AssistantText) for other in opening):
                raise InvalidTurn(f"{field_name}: step {number} ({what}) follows round "
                                  f"{rounds}'s text: reasoning comes first, then one text")
            if (isinstance(step, Reasoning) and step.dialect == RESPONSES
                    and not _paired(steps, number - 1)):
                raise InvalidTurn(f"{field_name}: step {number} (openai-responses reasoning) "
                                  f"is not followed by its own item (a call, a text or an "
                                  f"openai-responses provider item)")
            opening.append(step)
        elif isinstance(step, ToolCall):
            if answering:
                raise InvalidTurn(f"{field_name}: round {rounds} leaves {len(waiting)} "
                                  f"call(s) unanswered before step {number} calls again")
            if not waiting and not opening:
                rounds += 1
            opening = []
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
            raise TypeError(f"{field_name} must be Reasoning, ProviderItem, AssistantText, "
                            f"ToolCall and ToolResult, not {type(step).__name__}")
    if waiting:
        raise InvalidTurn(f"{field_name}: round {rounds} leaves {len(waiting)} call(s) "
                          f"unanswered")
    if opening and not isinstance(opening[-1], ProviderItem):
        raise InvalidTurn(f"{field_name}: round {rounds} has reasoning or text but no call "
                          f"or provider item after it (the final text is the turn's answer)")
    return steps


class Round(NamedTuple):
    """One round of checked steps: its reasoning, its text (or None), its calls, its results,
    and its opening (its Reasoning, ProviderItem and AssistantText in their order)."""

    reasoning: tuple
    text: AssistantText | None
    calls: tuple
    results: tuple
    opening: tuple = ()


def full_rounds(steps: tuple) -> tuple[Round, ...]:
    """Checked steps as rounds, each with its reasoning, text and opening."""
    rounds, current = [], None
    for step in steps:
        if current is None or (current[3] and not isinstance(step, ToolResult)):
            current = ([], [None], [], [], [])
            rounds.append(current)
        if isinstance(step, OPENING_TYPES):
            current[4].append(step)
            if isinstance(step, Reasoning):
                current[0].append(step)
            elif isinstance(step, AssistantText):
                current[1][0] = step
        else:
            current[2 if isinstance(step, ToolCall) else 3].append(step)
    return tuple(Round(tuple(reasoning), text[0], tuple(calls), tuple(results), tuple(opening))
                 for reasoning, text, calls, results, opening in rounds)
