"""The request in each dialect's documented shape: its one definition.

A dialect is a ``Shape``: one method per piece of a request, returning that piece as a
JSON object (the body around the messages, a user message and its parts, a document, a
tool call, its result, a round of them with its reasoning and text, the final answer, a
tool's entry). ``wire.request_body``
builds a request from these methods with its values; ``wire.RequestWriter`` calls the
same methods with holes (``hole(name)``) and serializes them with its encoder, so its
templates are these shapes' punctuation and cannot drift from them. A new dialect, or a
new kind of piece, is written here once.

- ``"openai-chat"``, OpenAI Chat Completions: the system message first, pinned facts a
  second ``system`` message, a round an ``assistant`` message with ``tool_calls`` then
  one ``tool`` message per call, an image a ``data:`` URL part;
- ``"anthropic-messages"``, Anthropic Messages: ``system`` and the required
  ``max_tokens`` are fields, a round ``tool_use`` blocks then a user message of
  ``tool_result`` blocks, an image a base64 source block. Anthropic refuses empty or
  whitespace-only text (``NON_EMPTY``), so such a question or answer raises InvalidText;
- ``"openai-responses"``, OpenAI's Responses API: ``instructions`` and ``input`` items
  (``OpenAIResponses`` says why the system is ``instructions`` and the memory sections
  ``developer`` messages).

A round's ``Reasoning`` goes, as given, into the requests of its own dialect and no other
(``kept_reasoning``); OpenAI Chat has none.

Memory beyond the facts has its own sections, after the facts and before the turns, in
every dialect where the facts go (a further ``system`` message; a further system text
block; a further ``developer`` message): the evidence (``evidence_line``: ``[source: where] text``), then the summaries
(``summary_line``: ``[turns: id, id] text``), oldest first, so they sit next to the
turns they stand for and the order stays chronological. A request without them is the
same bytes as before they existed.
"""

from __future__ import annotations

from collections.abc import Sequence

from .checks import InvalidText, InvalidTurn, id_tag
from .images import Image
from .limits import ProviderLimitError, limit, name_pattern
from .memory import Evidence, Summary
from .steps import full_rounds
from .turns import ProviderTool, ToolCall, ToolResult, Turn


def hole(name: str) -> str:
    """A stand-in for the value called ``name`` when a writer makes a piece's template.

    It serializes as ``"\\u0000name\\u0000"`` under every encoder (JSON always escapes
    U+0000), which no real value's JSON holds where a template is made."""
    return f"\0{name}\0"


class Shape:
    """One dialect's pieces. The defaults are what the dialects share."""

    name = ""
    # Does the body carry the reply's reserve as a required ``max_tokens``?
    requires_max_tokens = False
    # The reply's reserve when none is given (``RequestOptions.reserve_tokens``).
    default_reserve = 0
    # Does the provider refuse empty or whitespace-only text (NON_EMPTY)?
    refuses_empty_text = False
    # Is a blank system left out of the body (where it is a field of its own)?
    omits_blank_system = False
    # Are a call's arguments sent as their JSON text (else as the object, ``call.input``)?
    arguments_as_text = True
    # May a tool result's content hold images?
    result_images = True

    def body(self, model, max_tokens, system, facts, messages: list, tools: list,
             evidence=None, summaries=None) -> dict:
        """The whole request: ``facts``, ``evidence`` and ``summaries`` are each section's
        text or None, ``messages`` the conversation after the system's part, ``tools`` the
        tools' entries (none: no key). ``system`` is None where ``system_text`` leaves a
        blank system out."""
        raise NotImplementedError

    def system(self, text) -> object:
        """The system's part of the body (what ``byte_breakdown`` counts as the system)."""
        raise NotImplementedError

    def user(self, content) -> dict:
        """A user message: ``content`` is the question's text or its list of parts."""
        return {"role": "user", "content": content}

    def answer(self, text) -> dict:
        """The assistant's final answer of a turn."""
        return {"role": "assistant", "content": text}

    def text(self, text) -> dict:
        """A text part of a question (or of a tool result)."""
        return {"type": "text", "text": text}

    def image(self, media_type, data) -> dict:
        """An image part of a question (or of a tool result); ``data`` is its base64."""
        raise NotImplementedError

    def document(self, media_type, data, filename=None) -> dict:
        """A document (PDF) part of a question; ``data`` is its base64, ``filename`` None
        where it has none."""
        raise NotImplementedError

    def call(self, id, name, arguments) -> dict:
        """One tool call; ``arguments`` is ``call.arguments`` or ``call.input`` (see
        ``arguments_as_text``)."""
        raise NotImplementedError

    def result(self, call_id, content, is_error=False) -> dict:
        """What a tool returned for one call: ``content`` its text or its list of parts."""
        raise NotImplementedError

    def round(self, calls: list, results: list, reasoning: Sequence = (), text=None) -> list:
        """The messages (or items) of one round: its reasoning items (this dialect's, as
        given), its text beside the calls (None: none), its calls, then its results."""
        raise NotImplementedError

    def tool(self, name, description, schema) -> dict:
        """A tool's entry in the tools array; ``schema`` is its parameters' object."""
        raise NotImplementedError


class OpenAIChat(Shape):
    """Reasoning is left out (Chat Completions has no reasoning items); a result is text,
    or text parts (its API reference lists no image part for a ``tool`` message); an
    error result is its content as is (there is no error field)."""

    name = "openai-chat"
    result_images = False

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None):
        system_messages = [self.system(system)]
        system_messages += [self.system(text) for text in sections(facts, evidence, summaries)]
        body = {"model": model, "messages": system_messages + messages}
        if tools:
            body["tools"] = tools
        return body

    def system(self, text):
        return {"role": "system", "content": text}

    def image(self, media_type, data):
        return {"type": "image_url", "image_url": {"url": f"data:{media_type};base64,{data}"}}

    def document(self, media_type, data, filename=None):
        named = {} if filename is None else {"filename": filename}
        return {"type": "file", "file": {**named, "file_data": f"data:{media_type};base64,{data}"}}

    def call(self, id, name, arguments):
        return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}

    def result(self, call_id, content, is_error=False):
        return {"role": "tool", "tool_call_id": call_id, "content": content}

    def round(self, calls, results, reasoning=(), text=None):
        return [{"role": "assistant", "content": text, "tool_calls": calls}, *results]

    def tool(self, name, description, schema):
        return {"type": "function",
                "function": {"name": name, "description": description, "parameters": schema}}


class AnthropicMessages(Shape):
    """A round is one assistant message ``[thinking..., text, tool_use...]`` and one user
    message of its ``tool_result`` blocks; an error result carries ``"is_error": true``."""

    name = "anthropic-messages"
    requires_max_tokens = True
    # max_tokens is required: without a reserve of its own a request sends 1024, the value
    # of the Messages API's own examples (docs.anthropic.com, "Messages").
    default_reserve = 1024
    refuses_empty_text = True
    omits_blank_system = True
    arguments_as_text = False

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None):
        # A blank system (None) is left out: Anthropic refuses an empty text block.
        more = sections(facts, evidence, summaries)
        blocks = [self.text(text) for text in (system, *more) if text is not None]
        body = {"model": model, "max_tokens": max_tokens}
        if blocks:
            body["system"] = self.system(system) if not more else blocks
        body["messages"] = messages
        if tools:
            body["tools"] = tools
        return body

    def system(self, text):
        return text

    def image(self, media_type, data):
        return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                            "data": data}}

    def document(self, media_type, data, filename=None):
        return {"type": "document", "source": {"type": "base64", "media_type": media_type,
                                               "data": data}}

    def call(self, id, name, arguments):
        return {"type": "tool_use", "id": id, "name": name, "input": arguments}

    def result(self, call_id, content, is_error=False):
        block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
        if is_error:
            block["is_error"] = True
        return block

    def round(self, calls, results, reasoning=(), text=None):
        said = [] if text is None else [self.text(text)]
        return [{"role": "assistant", "content": [*reasoning, *said, *calls]},
                {"role": "user", "content": results}]

    def tool(self, name, description, schema):
        return {"name": name, "description": description, "input_schema": schema}


class OpenAIResponses(Shape):
    """OpenAI's Responses API: ``{"model", "instructions", "input": [...], "tools"}``.

    The system is ``instructions``, the field the API documents for the system (or
    developer) message, so it stays the application's own text; a blank one is left out.
    The facts, evidence and summaries are ``developer`` messages at the start of
    ``input``, one per section, as OpenAI Chat's further ``system`` messages are: memory is
    kept apart from the instructions, each section its own item, in the same order. Items:
    a user message (its text, or ``input_text``, ``input_image``, ``input_file`` parts), a
    round's ``reasoning`` item as given, its text as an assistant message, a
    ``function_call`` per call (``call_id``, ``arguments`` as JSON text), a
    ``function_call_output`` per result (``output``: the text, or ``input_text`` and
    ``input_image`` parts), the answer an assistant message. Tools are flat
    ``{"type": "function", "name", "description", "parameters"}``. An error result is its
    output as is (there is no error field)."""

    name = "openai-responses"
    omits_blank_system = True

    def body(self, model, max_tokens, system, facts, messages, tools, evidence=None,
             summaries=None):
        body = {"model": model}
        if system is not None:
            body["instructions"] = self.system(system)
        body["input"] = [self.developer(text) for text in sections(facts, evidence, summaries)]
        body["input"] += messages
        if tools:
            body["tools"] = tools
        return body

    def system(self, text):
        return text

    def developer(self, text):
        """A memory section (facts, evidence, summaries): a developer message."""
        return {"role": "developer", "content": text}

    def text(self, text):
        return {"type": "input_text", "text": text}

    def image(self, media_type, data):
        return {"type": "input_image", "image_url": f"data:{media_type};base64,{data}"}

    def document(self, media_type, data, filename=None):
        named = {} if filename is None else {"filename": filename}
        return {"type": "input_file", **named, "file_data": f"data:{media_type};base64,{data}"}

    def call(self, id, name, arguments):
        return {"type": "function_call", "call_id": id, "name": name, "arguments": arguments}

    def result(self, call_id, content, is_error=False):
        return {"type": "function_call_output", "call_id": call_id, "output": content}

    def round(self, calls, results, reasoning=(), text=None):
        said = [] if text is None else [self.answer(text)]
        return [*reasoning, *said, *calls, *results]

    def tool(self, name, description, schema):
        return {"type": "function", "name": name, "description": description,
                "parameters": schema}


def sections(*texts) -> list:
    """The sections after the system's part that a request has (each text, or None: none)."""
    return [text for text in texts if text is not None]


def evidence_line(evidence: Evidence) -> str:
    """How one evidence item reads in its section: its source, then its text."""
    return f"[source: {evidence.source}] {evidence.text}"


def summary_line(summary: Summary) -> str:
    """How one summary reads in its section: the ids of the turns it covers, then its text."""
    return f"[turns: {', '.join(summary.covers)}] {summary.text}"


def lines_content(lines) -> str:
    """A section's text: its lines joined by newlines (as the facts' are)."""
    return "\n".join(lines)


SHAPES = {shape.name: shape for shape in (OpenAIChat(), AnthropicMessages(), OpenAIResponses())}
DIALECTS = tuple(SHAPES)


def check_dialect(dialect: object) -> str:
    """Return ``dialect`` if it is one of DIALECTS, else ValueError naming them."""
    if not isinstance(dialect, str) or dialect not in SHAPES:
        raise ValueError(f"unknown dialect {dialect!r}; known dialects: {', '.join(DIALECTS)}")
    return dialect


def system_text(shape: Shape, system: str) -> str | None:
    """The system as the body carries it: None (left out) where the dialect leaves a blank
    system out (Anthropic refuses empty text; the Responses API's instructions are
    optional) and it is empty or only whitespace."""
    return None if shape.omits_blank_system and not system.strip() else system


def tool_entry(shape: Shape, tool) -> dict:
    """A tool's entry in the tools array: a ProviderTool's own, else the shape's."""
    if isinstance(tool, ProviderTool):
        return tool.as_dict
    return shape.tool(tool.name, tool.description, tool.schema)


def refuse_for_dialect(dialect: str, steps: tuple = (), tools: tuple = (),
                       rounds: tuple | None = None) -> None:
    """InvalidTurn if a call or a tool breaks a rule of ``dialect`` (``ledgerlab.limits``:
    its call id pattern and length, its tool name pattern, calls per message, tools per
    request, a provider tool of another dialect) or a result holds what the dialect does
    not take (an image where results are text; a blank text part where text must not be
    blank), so that no body of it is built. ``rounds`` are the steps' ``full_rounds``
    where the caller has them."""
    shape = SHAPES[dialect]
    for step in steps:
        if type(step) is ToolResult and type(step.content) is tuple:
            if step.images and not shape.result_images:
                raise InvalidTurn(f"{dialect} refuses an image in a tool result (its tool "
                                  f"results are text): result {id_tag(step.call_id)}")
            if shape.refuses_empty_text:
                refuse_empty(step.content)
    id_pattern, id_length = name_pattern(dialect, "call_id_pattern"), limit(dialect,
                                                                         "call_id_length")
    names, most_calls = name_pattern(dialect, "tool_name"), limit(dialect, "calls_per_message")
    for round_ in full_rounds(steps) if rounds is None else rounds:
        calls = round_.calls
        if most_calls is not None and len(calls) > most_calls:
            raise ProviderLimitError(dialect, "calls_per_message", len(calls),
                                     "tool calls in one message")
        for call in calls:
            if id_pattern is not None and not id_pattern.fullmatch(call.id):
                raise InvalidTurn(f"{dialect} refuses call id {id_tag(call.id)}: it must "
                                  f"match ^{id_pattern.pattern}$")
            if id_length is not None and len(call.id) > id_length:
                raise InvalidTurn(f"{dialect} refuses call id {id_tag(call.id)}: "
                                  f"{len(call.id)} characters, at most {id_length}")
            if not names.fullmatch(call.name):
                raise InvalidTurn(f"{dialect} refuses a tool name of {len(call.name)} "
                                  f"characters: it must match ^{names.pattern}$")
    most_tools = limit(dialect, "tools")
    if most_tools is not None and len(tools) > most_tools:
        raise ProviderLimitError(dialect, "tools", len(tools), "tools in a request")
    for tool in tools:
        if isinstance(tool, ProviderTool):
            if tool.dialect != dialect:
                raise InvalidTurn(f"a provider tool of {tool.dialect} cannot go in a "
                                  f"{dialect} request")
        elif not names.fullmatch(tool.name):
            raise InvalidTurn(f"{dialect} refuses a tool name of {len(tool.name)} "
                              f"characters: it must match ^{names.pattern}$")


def message_count(shape: Shape, turn: Turn | None = None, steps: tuple = ()) -> int:
    """How many messages a turn (its question, rounds and answer), or a current question
    and its rounds ``steps``, puts in the dialect's messages array."""
    rounds = full_rounds(steps) if turn is None else turn.full_rounds
    # Only how many: a stand-in for each kept reasoning item, not its parsed object.
    return 1 + sum(len(shape.round(round_.calls, round_.results, [None] * sum(
        item.dialect == shape.name for item in round_.reasoning), round_.text))
        for round_ in rounds) + (turn is not None)


def kept_reasoning(shape: Shape, round_) -> list[dict]:
    """A round's reasoning items that a body of ``shape`` carries: its own dialect's, as
    given (another dialect's are left out)."""
    return [item.as_dict for item in round_.reasoning if item.dialect == shape.name]


def refuse_reused_ids(dialect: str, turns: Sequence[Turn], current_steps: tuple) -> None:
    """InvalidTurn if ``dialect`` wants each call id once in a request and two of the turns
    (or a turn and the rounds in progress) share one."""
    if not limit(dialect, "call_ids_unique"):
        return
    seen = {step.id for step in current_steps if isinstance(step, ToolCall)}
    for turn in turns:
        for step in turn.steps:
            if isinstance(step, ToolCall):
                if step.id in seen:
                    raise InvalidTurn(f"{dialect} refuses call id {id_tag(step.id)}: two "
                                      f"turns of the request use it")
                seen.add(step.id)


def max_tokens_field(shape: Shape, reserve_tokens: int) -> int | None:
    """The body's ``max_tokens`` where the dialect requires it (the reply's reserve), else None."""
    if not shape.requires_max_tokens:
        return None
    if reserve_tokens < 1:
        raise ValueError(f"{shape.name} needs reserve_tokens of at least 1: it is the "
                         f"body's required max_tokens, the tokens kept for the reply")
    return reserve_tokens


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


def round_messages(shape: Shape, steps: tuple) -> list[dict]:
    """The messages of tool rounds: each round's reasoning (this dialect's), its text, its
    calls, then the results that answer them."""
    messages = []
    for round_ in full_rounds(steps):
        messages.extend(shape.round(
            [shape.call(call.id, call.name, arguments(shape, call)) for call in round_.calls],
            [shape.result(answer.call_id, question_content(shape, answer.content),
                          answer.is_error) for answer in round_.results],
            kept_reasoning(shape, round_),
            None if round_.text is None else round_.text.text))
    return messages


def conversation(shape: Shape, turns: Sequence[Turn], current: str | tuple,
                 current_steps: tuple) -> list[dict]:
    """Every turn's messages (its question, its rounds, its answer), then the current
    question and its rounds so far."""
    messages = []
    for turn in turns:
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        if shape.refuses_empty_text:
            refuse_empty(turn.question, turn.answer)
        if turn.steps:
            refuse_for_dialect(shape.name, turn.steps, rounds=turn.full_rounds)
        messages.append(shape.user(question_content(shape, turn.question)))
        messages.extend(round_messages(shape, turn.steps))
        messages.append(shape.answer(turn.answer))
    if shape.refuses_empty_text:
        refuse_empty(current)
    messages.append(shape.user(question_content(shape, current)))
    messages.extend(round_messages(shape, current_steps))
    return messages


# Anthropic's API refuses a request holding an empty message or text block; these are its
# own words (``rules.RULES["non-empty"]`` quotes them too).
NON_EMPTY = ("all messages must have non-empty content except for the optional final "
             "assistant message; text content blocks must contain non-whitespace text")


def refuse_empty(question: str | tuple, answer: str = "-") -> None:
    """InvalidText if a question, one of its text parts, or an answer is empty or only
    whitespace (Anthropic refuses both; a whitespace part beside real text is refused too,
    which is stricter than the API, and simpler)."""
    texts = (question,) if type(question) is str else question
    if any(type(text) is str and not text.strip() for text in texts):
        raise InvalidText(f"anthropic-messages refuses empty content ({NON_EMPTY}): a question "
                          f"or one of its text parts is empty or only whitespace")
    if not answer.strip():
        raise InvalidText(f"anthropic-messages refuses empty content ({NON_EMPTY}): a stored "
                          f"turn's answer is empty or only whitespace")
