"""The Responses API's rules for a body's ``input`` items, with the API's own error texts.

Checked here (``check_request(body, "openai-responses")``):

- each item is of a type the API lists; a message has a role it knows and content of text
  or of the part types its role takes; ``instructions``, where given, is a string;
- a ``function_call`` has its ``call_id``, a function name of the pattern, and
  ``arguments`` as JSON text;
- every ``function_call_output`` answers a ``function_call`` before it ("No tool call found
  for function call output with call_id ..."), and every ``function_call`` is answered
  ("No tool output found for function call ..."); an output is text or input parts;
- a ``reasoning`` item keeps its ``id`` and ``summary`` and is followed at once by the item
  it produced, a ``function_call`` or an assistant message ("Item ... of type 'reasoning'
  was provided without its required following item");
- in the tool loop in progress (the items after the last user message), when one round
  holds its reasoning item, every round whose ``function_call`` carries its own ``id`` (as
  the API returned it) must hold its own ("Item ... of type 'function_call' was provided
  without its required 'reasoning' item").

What a body alone cannot show: the API links a function_call to the reasoning item that
produced it by what it stored, not by anything in the body. So a call whose reasoning was
dropped from every round of the loop, or a call without its ``id``, is not refused here,
though the API may refuse it. ``select`` keeps a turn's ``Reasoning`` with its calls, so it
never drops one.
"""

from __future__ import annotations

from .rule_words import OR, InvalidRequest, check_call_id, check_call_name, known

# The input item types the API reference lists (a message may leave its type out).
ITEMS = {
    "message", "function_call", "function_call_output", "reasoning", "item_reference",
    "file_search_call", "web_search_call", "computer_call", "computer_call_output",
    "image_generation_call", "code_interpreter_call", "local_shell_call",
    "local_shell_call_output", "mcp_list_tools", "mcp_approval_request",
    "mcp_approval_response", "mcp_call", "custom_tool_call", "custom_tool_call_output",
    "compaction"}
ROLES = ("user", "assistant", "system", "developer")
INPUT_PARTS = {"input_text", "input_image", "input_file"}
ASSISTANT_PARTS = {"output_text", "refusal"}


def _kind(item: dict) -> object:
    return item.get("type", "message" if "role" in item else None)


def check_responses(body: dict, items: list[dict]) -> None:
    """Raise InvalidRequest for the first rule ``items`` (the body's ``input``) breaks."""
    if "instructions" in body and not isinstance(body["instructions"], str):
        raise InvalidRequest("body", detail="instructions must be a string")
    kinds = [_kind(item) for item in items]
    calls: dict[str, int] = {}  # each call_id's function_call
    answered: set[str] = set()
    for index, (item, kind) in enumerate(zip(items, kinds)):
        if not known(kind, ITEMS):
            raise InvalidRequest("block-type", index, "an input item's type", dialect=OR)
        if kind == "message":
            _check_message(item, index)
        elif kind == "function_call":
            call_id = item.get("call_id")
            check_call_id(call_id, index, OR)
            check_call_name(item.get("name"), index, OR)
            if not isinstance(item.get("arguments"), str):
                raise InvalidRequest("arguments", index, dialect=OR)
            calls[call_id] = index
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if not isinstance(call_id, str) or not call_id:
                raise InvalidRequest("tool-call-id", index, dialect=OR)
            if call_id not in calls:
                raise InvalidRequest("output-has-call", index, dialect=OR)
            output = item.get("output")
            if not (isinstance(output, str) or isinstance(output, list) and all(
                    isinstance(part, dict) and known(part.get("type"), INPUT_PARTS)
                    for part in output)):
                raise InvalidRequest("result-content", index, dialect=OR)
            answered.add(call_id)
        elif kind == "reasoning":
            if not isinstance(item.get("id"), str) or not isinstance(item.get("summary"), list):
                raise InvalidRequest("reasoning-shape", index, dialect=OR)
            following = index + 1 < len(items) and (
                kinds[index + 1] == "function_call" or kinds[index + 1] == "message"
                and items[index + 1].get("role") == "assistant")
            if not following:
                raise InvalidRequest("reasoning-followed", index, dialect=OR)
    for call_id, index in calls.items():
        if call_id not in answered:
            raise InvalidRequest("call-has-output", index, dialect=OR)
    _check_loop_reasoning(items, kinds)


def _check_message(item: dict, index: int) -> None:
    role, content = item.get("role"), item.get("content")
    if role not in ROLES:
        raise InvalidRequest("role", index)
    if isinstance(content, list):
        parts = ASSISTANT_PARTS if role == "assistant" else INPUT_PARTS
        if any(not isinstance(part, dict) or not known(part.get("type"), parts)
               for part in content):
            raise InvalidRequest("block-type", index, dialect=OR)
    elif not isinstance(content, str):
        raise InvalidRequest("body", index, "a message's content must be text or parts")


def _check_loop_reasoning(items: list[dict], kinds: list) -> None:
    """In the tool loop in progress, a round whose calls carry their ids and that lost its
    reasoning item, beside a round that kept its own."""
    start = 1 + max((index for index, (item, kind) in enumerate(zip(items, kinds))
                     if kind == "message" and item.get("role") == "user"), default=-1)
    rounds = []  # (index of a round's first function_call, does its reasoning precede it)
    for index in range(start, len(items)):
        if kinds[index] != "function_call" or (index > start
                                               and kinds[index - 1] == "function_call"):
            continue
        before = index - 1
        if before >= start and kinds[before] == "message":  # the round's text, if any
            before -= 1
        rounds.append((index, before >= start and kinds[before] == "reasoning"))
    if not any(kept for _, kept in rounds):
        return
    for index, kept in rounds:
        if not kept and isinstance(items[index].get("id"), str):
            raise InvalidRequest("reasoning-required", index, "its round lost the reasoning "
                                 "item another round of the tool loop keeps", dialect=OR)
