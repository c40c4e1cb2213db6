"""What notebook 10 measures: tool turns, the message-count slice of them, and their costs.

A stored turn with a tool round is four messages or more in an ``openai-chat`` request:
the question ``U1``, the assistant's calls ``C1``, a tool result ``R1`` for each call, the
answer ``A1``. Slicing by message count can start between a call and its results; the
whole-turn rule (``select``) never does. Here: the message-count slice of such a history
(the system message kept, then the newest messages), the provider's verdict on a body
(``check_request``), each message's bytes for the chart, and what tools, a second dialect
and an image cost. Pure functions, no drawing: ``toolcharts`` draws, the quizzes measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ledgerlab import (BudgetError, InvalidRequest, Selection, ToolResult, Turn, byte_breakdown,
                       check_request, get_encoder, image_tokens, request_body, select)

from . import fixtures
from .measures import Segment

TOOLS = (fixtures.LOOKUP_TOOL,)
TOOL_REQUEST = (fixtures.TOOL_SYSTEM, fixtures.TOOL_HISTORY, fixtures.TOOL_QUESTION)
RESERVE = 1024  # the reply's reserve: anthropic-messages sends it as max_tokens
# A field the application adds: it forces the lookup tool (OpenAI Chat's tool_choice).
FORCE_LOOKUP = {"tool_choice": {"type": "function",
                                "function": {"name": fixtures.LOOKUP_TOOL.name}}}


def _round_labels(number: int, steps: tuple) -> list[str]:
    labels = []  # a round's calls are one message, then one message per result
    for step in steps:
        if isinstance(step, ToolResult):
            labels.append(f"R{number}")
        elif not labels or labels[-1] != f"C{number}":
            labels.append(f"C{number}")
    return labels


def tool_labels(history: Sequence[Turn], current_steps: tuple = ()) -> list[str]:
    """One name per message of the ``openai-chat`` conversation, the system message first:
    ``SYSTEM, U1, C1, R1, A1, U2, A2, U3``. ``C`` is a message of tool calls, ``R`` a result."""
    labels = ["SYSTEM"]
    for number, turn in enumerate(history, 1):
        labels += [f"U{number}", *_round_labels(number, turn.steps), f"A{number}"]
    return labels + [f"U{len(history) + 1}", *_round_labels(len(history) + 1, current_steps)]


def join_tool_labels(labels: Sequence[str]) -> str:
    """``['SYSTEM', 'R1', 'A1', 'U2']`` -> ``'SYSTEM | R1 A1 | U2'``: one group per turn."""
    groups: list[list[str]] = []
    for label in labels:
        turn = label[1:] if label != "SYSTEM" else label
        if groups and groups[-1][0][1:] == turn:
            groups[-1].append(label)
        else:
            groups.append([label])
    return " | ".join(" ".join(group) for group in groups) or "(nothing)"


def body(system: str, history: Sequence[Turn], current, *, tools=TOOLS,
         dialect: str = "openai-chat", current_steps: tuple = ()) -> dict:
    """The full request as an object (``request_body``), with the course's reply reserve."""
    return request_body(system, history, current, tools=tools, dialect=dialect,
                        current_steps=current_steps, reserve_tokens=RESERVE)


def count_sliced(system: str, history: Sequence[Turn], current, last: int, *, tools=TOOLS,
                 dialect: str = "openai-chat", encoder: str = "gson") -> bytes:
    """The bad slice's body: the system message kept, then the newest ``last`` messages of
    the conversation, whatever they are (as ``trim_messages(strategy="last",
    include_system=True)`` keeps them). The tools stay."""
    full = body(system, history, current, tools=tools, dialect=dialect)
    head = 1 if dialect == "openai-chat" else 0  # the system message; Anthropic's is a field
    conversation = full["messages"][head:]
    kept = full["messages"][:head] + (conversation[-last:] if last else [])
    return get_encoder(encoder).dumps({**full, "messages": kept})


def count_slice_under(system: str, history: Sequence[Turn], current, budget: int, *,
                      tools=TOOLS, encoder: str = "gson") -> tuple[int, bytes]:
    """The message-count slice under a byte budget: the most messages whose body fits, and
    that body (``openai-chat``). (0, the body without a message after the system one) when
    none fits."""
    total = len(tool_labels(history)) - 1
    for last in range(total, 0, -1):
        payload = count_sliced(system, history, current, last, tools=tools, encoder=encoder)
        if len(payload) <= budget:
            return last, payload
    return 0, count_sliced(system, history, current, 0, tools=tools, encoder=encoder)


def fault(payload: bytes, dialect: str = "openai-chat") -> InvalidRequest | None:
    """The provider rule ``payload`` breaks, as ``check_request`` raises it; None if none."""
    try:
        check_request(payload, dialect)
    except InvalidRequest as error:
        return error
    return None


def verdict(payload: bytes, dialect: str = "openai-chat") -> str:
    """``"accepted"``, or ``"refused: <rule> at message <index>"``."""
    error = fault(payload, dialect)
    if error is None:
        return "accepted"
    where = "" if error.index is None else f" at message {error.index}"
    return f"refused: {error.rule}{where}"


def tool_segments(system: str, history: Sequence[Turn], current, kept: Sequence[bool], *,
                  tools=TOOLS, encoder: str = "gson") -> list[Segment]:
    """The ``openai-chat`` request cut into the envelope, one segment per message and the
    tool schemas. ``kept`` says, per message, whether a slice sends it; as in
    ``measures.message_segments``, the kept segments, the envelope and the tools add up
    to the bytes of the body that sends them."""
    chosen = get_encoder(encoder)
    full = body(system, history, current, tools=tools)
    labels = tool_labels(history)
    if len(kept) != len(labels):
        raise ValueError(f"kept has {len(kept)} flags for {len(labels)} messages")
    bare = {key: value for key, value in full.items() if key != "tools"}
    envelope = len(chosen.dumps({**bare, "messages": []}))
    segments = [Segment("envelope", envelope, "envelope", True)]
    separator = len(chosen.item_separator.encode("utf-8"))
    first_sent = True
    turn_count = len(history)
    for label, message, sent in zip(labels, full["messages"], kept):
        number = label[1:]
        group = ("system" if label == "SYSTEM" else "question" if number == str(turn_count + 1)
                 else f"turn {number}")
        size = len(chosen.dumps(message)) + (0 if sent and first_sent else separator)
        first_sent = first_sent and not sent
        segments.append(Segment(label, size, group, bool(sent)))
    if tools:  # last, as on the wire: after the messages
        with_tools = len(chosen.dumps({**bare, "messages": [], "tools": full["tools"]}))
        segments.append(Segment("TOOLS", with_tools - envelope, "tools", True))
    return segments


def whole_turn_kept(history: Sequence[Turn], chosen: Selection | None) -> list[bool]:
    """Per message: what ``select`` sent (nothing when it raised BudgetError)."""
    labels = tool_labels(history)
    if chosen is None:
        return [False] * len(labels)
    first_kept = len(history) - chosen.kept + 1
    return [label == "SYSTEM" or int(label[1:]) >= first_kept for label in labels]


def orphans_in(labels: Sequence[str]) -> list[str]:
    """What the sent messages lack: a result without its call, an answer without its
    question, a call without its question (the call's own results are checked by
    ``check_request``)."""
    sent = set(labels)
    found = [f"tool result {label} without its call" for label in dict.fromkeys(labels)
             if label.startswith("R") and "C" + label[1:] not in sent]
    found += [f"{'answer' if label[0] == 'A' else 'tool call'} {label} without its question"
              for label in labels if label[0] in "AC" and "U" + label[1:] not in sent]
    return found


# --- What tools, a dialect and an image cost ---------------------------------------------

def tools_bytes(tools=TOOLS, *, dialect: str = "openai-chat", encoder: str = "gson") -> int:
    """The bytes the tool schemas add to the request (the ``tools`` key and its array)."""
    parts = byte_breakdown(*TOOL_REQUEST, tools=tools, dialect=dialect, encoder=encoder,
                           reserve_tokens=RESERVE)
    return parts.get("tools", 0)


def extra_bytes(extra: dict | None = None, *, encoder: str = "gson") -> int:
    """The bytes the application's own fields (``extra=``, FORCE_LOOKUP by default) add to
    the tool request."""
    parts = byte_breakdown(*TOOL_REQUEST, tools=TOOLS, extra=extra or FORCE_LOOKUP,
                           encoder=encoder)
    return parts.get("extra", 0)


def dialect_sizes(encoder: str = "gson") -> dict[str, dict]:
    """The full tool request's parts in each dialect (``byte_breakdown``) and its size."""
    sizes = {}
    for dialect in ("openai-chat", "anthropic-messages"):
        parts = byte_breakdown(*TOOL_REQUEST, tools=TOOLS, dialect=dialect, encoder=encoder,
                               reserve_tokens=RESERVE)
        total = parts["envelope"] + parts["system"] + sum(parts["turns"]) + parts["question"]
        sizes[dialect] = {**parts, "total": total + parts["tools"]}
    return sizes


class ImageCost(NamedTuple):
    """An image's size as a file, on the wire and in tokens."""

    width: int
    height: int
    file_bytes: int
    base64_bytes: int
    tokens: int


def image_cost(image) -> ImageCost:
    return ImageCost(image.width, image.height, len(image.data), len(image.base64),
                     image_tokens(image))


def photo_question(image=None) -> tuple:
    """The current question with an image: a text part, then the image."""
    return (fixtures.PHOTO_QUESTION_TEXT, fixtures.photo() if image is None else image)


def binding_limit(max_bytes: int, max_tokens: int, image=None) -> str:
    """Which limit refuses the tool request whose current question carries ``image``:
    ``"bytes"``, ``"tokens"`` or ``"neither"`` (the image is mandatory input)."""
    try:
        select(fixtures.TOOL_SYSTEM, fixtures.TOOL_HISTORY, photo_question(image), max_bytes,
               tools=TOOLS, max_tokens=max_tokens)
    except BudgetError as error:
        return error.limit
    return "neither"
