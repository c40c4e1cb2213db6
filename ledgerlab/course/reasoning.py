"""What notebook 11's last section measures: reasoning between tool calls.

A reasoning model returns its reasoning before the calls it makes: an Anthropic ``thinking``
block with its ``signature``, or an OpenAI Responses ``reasoning`` item with its
``encrypted_content`` (the fixtures' stand-ins, ``fixtures.THINKING_LOOP`` and
``fixtures.RESPONSES_LOOP``). Here: what it adds to the request, the bodies a naive trimmer
sends (the reasoning dropped, its text shortened, the round cut after it), the provider's
words for what ``check_request`` can see, and the reasoning a whole-turn selection sends
back. Pure functions over bytes; nothing is sent.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from ledgerlab import request_bytes

from . import fixtures
from .toolturns import TOOL_REQUEST, TOOLS, RESERVE, fault

ANTHROPIC, RESPONSES = "anthropic-messages", "openai-responses"
LOOPS = {ANTHROPIC: fixtures.THINKING_LOOP, RESPONSES: fixtures.RESPONSES_LOOP}
REASONING_TYPES = ("thinking", "redacted_thinking", "reasoning")


class Refusal(NamedTuple):
    """What ``check_request`` says of a body: the rule, the item at fault and the provider's
    own words; all None when it finds no rule broken."""

    rule: str | None
    index: int | None
    wording: str | None


def loop_request(dialect: str, *, reasoning: bool = True) -> bytes:
    """The tool request with the loop in progress, in ``dialect``, as ``request_bytes``
    writes it; ``reasoning=False`` leaves the loop's reasoning out (the loop without it)."""
    steps = LOOPS[dialect] if reasoning else fixtures.LOOP_STEPS
    return request_bytes(*TOOL_REQUEST, tools=TOOLS, current_steps=steps, dialect=dialect,
                         reserve_tokens=RESERVE)


def reasoning_bytes(dialect: str) -> int:
    """How many bytes the loop's reasoning adds to its request in ``dialect``."""
    return len(loop_request(dialect)) - len(loop_request(dialect, reasoning=False))


def _dumps(body: dict) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def thinking_on(payload: bytes) -> bytes:
    """An Anthropic body with thinking turned on, as the application adds it (ledgerlab
    writes no ``thinking`` field): the rule that keeps thinking blocks applies only then."""
    return _dumps({**json.loads(payload), "thinking": fixtures.THINKING_ON})


def _is_reasoning(part: object) -> bool:
    return isinstance(part, dict) and part.get("type") in REASONING_TYPES


def drop_reasoning(payload: bytes, dialect: str) -> bytes:
    """The body a trimmer sends that takes reasoning for the model's private scratch: every
    thinking block (Anthropic) or reasoning item (Responses) removed, the rest unchanged."""
    body = json.loads(payload)
    if dialect == RESPONSES:
        body["input"] = [item for item in body["input"] if not _is_reasoning(item)]
    else:
        for message in body["messages"]:
            if isinstance(message["content"], list):
                message["content"] = [part for part in message["content"]
                                      if not _is_reasoning(part)]
    return _dumps(body)


def shorten_thinking(payload: bytes, keep: int = 40) -> bytes:
    """An Anthropic body whose thinking texts a trimmer cut to ``keep`` characters, their
    signatures left as they were: a signature that no longer matches its block."""
    body = json.loads(payload)
    for message in body["messages"]:
        for part in message["content"] if isinstance(message["content"], list) else ():
            if isinstance(part, dict) and part.get("type") == "thinking":
                part["thinking"] = part["thinking"][:keep]
    return _dumps(body)


def drop_round_after_reasoning(payload: bytes) -> bytes:
    """A Responses body whose trimmer cut the loop's call and its output but kept the
    reasoning item before them: the last two input items removed."""
    body = json.loads(payload)
    body["input"] = body["input"][:-2]
    return _dumps(body)


def refusal(payload: bytes, dialect: str) -> Refusal:
    """``check_request``'s verdict on ``payload``, as a ``Refusal``."""
    error = fault(payload, dialect)
    if error is None:
        return Refusal(None, None, None)
    return Refusal(error.rule, error.index, error.wording)


def sent_reasoning(payload: bytes) -> list[dict]:
    """The reasoning items and thinking blocks of a body, parsed back from its bytes, in
    order: what the provider gets back."""
    body = json.loads(payload)
    items = body.get("input") or [part for message in body.get("messages", [])
                                  if isinstance(message["content"], list)
                                  for part in message["content"]]
    return [item for item in items if _is_reasoning(item)]
