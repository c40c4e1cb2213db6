"""The request as an object, in each dialect's documented shape: the readable definition.

``request_body`` builds the object that ``request_bytes`` writes piece by piece (an
encoder's ``dumps`` of it is those bytes, and the tests hold the two to that). The
shapes are the providers' own:

- ``"openai-chat"``, OpenAI Chat Completions: the system message first, pinned facts a
  second ``system`` message, a round an ``assistant`` message with ``tool_calls`` then
  one ``tool`` message per call, an image a ``data:`` URL part;
- ``"anthropic-messages"``, Anthropic Messages: ``system`` and the required
  ``max_tokens`` are fields, a round ``tool_use`` blocks then a user message of
  ``tool_result`` blocks, an image a base64 source block. Anthropic refuses empty or
  whitespace-only text, so such a question or answer raises InvalidText here.
"""

from __future__ import annotations

from collections.abc import Sequence

from .checks import InvalidText, check_int, check_text
from .images import Image
from .turns import (Fact, Tool, ToolCall, ToolResult, Turn, check_question, check_steps,
                    check_tools, facts_content, rounds_of)

DEFAULT_MODEL = "agnes-3.0-flash"
DIALECTS = ("openai-chat", "anthropic-messages")


def check_dialect(dialect: object) -> str:
    """Return ``dialect`` if it is one of DIALECTS, else ValueError naming them."""
    if not isinstance(dialect, str) or dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; known dialects: {', '.join(DIALECTS)}")
    return dialect


def anthropic_max_tokens(reserve_tokens: object) -> int:
    """The body's ``max_tokens`` for Anthropic: the reply's reserve, which it requires."""
    reserve = check_int(reserve_tokens, "reserve_tokens", minimum=0)
    if reserve < 1:
        raise ValueError("anthropic-messages needs reserve_tokens of at least 1: it is the "
                         "body's required max_tokens, the tokens kept for the reply")
    return reserve


def _user_content(dialect: str, question: str | tuple) -> object:
    """A question as a user message's content: its text, or its parts as content blocks."""
    if isinstance(question, str):
        return question
    return [_part(dialect, part) for part in question]


def _part(dialect: str, part: str | Image) -> dict:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if dialect == "openai-chat":
        return {"type": "image_url",
                "image_url": {"url": f"data:{part.media_type};base64,{part.base64}"}}
    return {"type": "image",
            "source": {"type": "base64", "media_type": part.media_type, "data": part.base64}}


def _round_messages(dialect: str, steps: tuple) -> list[dict]:
    """The messages of tool rounds: each round's calls, then the results that answer them."""
    result = []
    for calls, results in rounds_of(steps):
        if dialect == "openai-chat":
            result.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call.id, "type": "function",
                 "function": {"name": call.name, "arguments": call.arguments}}
                for call in calls]})
            result.extend({"role": "tool", "tool_call_id": answer.call_id,
                           "content": answer.content} for answer in results)
        else:
            result.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}
                for call in calls]})
            result.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": answer.call_id, "content": answer.content}
                for answer in results]})
    return result


def _conversation(dialect: str, turns: Sequence[Turn], current: str | tuple,
                  current_steps: tuple) -> list[dict]:
    """Every turn's messages, then the current question and its rounds so far."""
    result = []
    for turn in turns:
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        if dialect == "anthropic-messages":
            refuse_empty(turn.question, turn.answer)
        result.append({"role": "user", "content": _user_content(dialect, turn.question)})
        result.extend(_round_messages(dialect, turn.steps))
        result.append({"role": "assistant", "content": turn.answer})
    if dialect == "anthropic-messages":
        refuse_empty(current)
    result.append({"role": "user", "content": _user_content(dialect, current)})
    result.extend(_round_messages(dialect, current_steps))
    return result


def request_body(
    system: str,
    turns: Sequence[Turn],
    current: str | tuple,
    *,
    model: str = DEFAULT_MODEL,
    facts: Sequence[Fact] = (),
    dialect: str = "openai-chat",
    tools: Sequence[Tool] = (),
    current_steps: Sequence[ToolCall | ToolResult] = (),
    reserve_tokens: int = 0,
) -> dict:
    """The request as an object: what ``request_bytes`` serializes (the readable definition).

    ``current_steps`` are the tool rounds of the turn in progress, after the current
    question. ``reserve_tokens`` is Anthropic's ``max_tokens`` (not written for OpenAI).
    """
    dialect = check_dialect(dialect)
    check_text(model, "model")
    check_text(system, "system")
    tools = check_tools(tools)
    conversation = _conversation(dialect, turns, check_question(current, "current question"),
                                 check_steps(current_steps, "current_steps"))
    if dialect == "openai-chat":
        system_messages = [{"role": "system", "content": system}]
        if facts:
            system_messages.append({"role": "system", "content": facts_content(facts)})
        body = {"model": model, "messages": system_messages + conversation}
        if tools:
            body["tools"] = [{"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.schema}}
                for tool in tools]
        return body
    system_field = system if not facts else [{"type": "text", "text": system},
                                             {"type": "text", "text": facts_content(facts)}]
    body = {"model": model, "max_tokens": anthropic_max_tokens(reserve_tokens),
            "system": system_field, "messages": conversation}
    if tools:
        body["tools"] = [{"name": tool.name, "description": tool.description,
                          "input_schema": tool.schema} for tool in tools]
    return body


def messages(system: str, turns: list[Turn], current: str | tuple,
             facts: Sequence[Fact] = (), *, current_steps: Sequence = ()) -> list[dict]:
    """The chat messages of an ``openai-chat`` request: system, the facts, each turn's
    messages, the current question and its tool rounds.

    The facts, if any, are a second system message right after the first.
    """
    return request_body(system, turns, current, facts=facts,
                        current_steps=current_steps)["messages"]


# Anthropic's API refuses a request holding an empty message or text block.
EMPTY_CONTENT = ("anthropic-messages refuses empty content (all messages must have non-empty "
                 "content except for the optional final assistant message; text content "
                 "blocks must contain non-whitespace text)")


def refuse_empty(question: str | tuple, answer: str = "-") -> None:
    """InvalidText if a question, one of its text parts, or an answer is empty or only
    whitespace (Anthropic refuses both; a whitespace part beside real text is refused too,
    which is stricter than the API, and simpler)."""
    texts = (question,) if type(question) is str else question
    if any(type(text) is str and not text.strip() for text in texts):
        raise InvalidText(f"{EMPTY_CONTENT}: a question or one of its text parts is empty "
                          f"or only whitespace")
    if not answer.strip():
        raise InvalidText(f"{EMPTY_CONTENT}: a stored turn's answer is empty or only whitespace")
