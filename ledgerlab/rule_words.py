"""What each provider rule asks, in its words, and the error that names it: ``RULES``,
``WORDING``, ``InvalidRequest``, and the checks every dialect's rules share (a call's id,
a tool's name). ``ledgerlab.rules`` and ``ledgerlab.rules_responses`` check bodies with them.
"""

from __future__ import annotations

from .limits import limit, name_pattern
from .shapes import NON_EMPTY

# The rules, keyed: what each asks, in the providers' words where they are known.
RULES = {
    "body": "the body must be one JSON object with a model and a non-empty messages array",
    "role": "each message's role must be one the API knows for its place",
    "tool-after-call": ("messages with role 'tool' must be a response to a preceding "
                        "message with 'tool_calls'"),
    "calls-answered": ("An assistant message with 'tool_calls' must be followed by tool "
                       "messages responding to each 'tool_call_id'"),
    "first-user": "the first message must use the user role",
    "result-follows-use": ("Tool result blocks must immediately follow their corresponding "
                           "tool use blocks; each tool_result block must have a "
                           "corresponding tool_use block in the previous message"),
    "use-answered": ("tool_use ids were found without tool_result blocks immediately "
                     "after: each tool_use block must have a corresponding tool_result "
                     "block in the next message"),
    "results-first": ("tool_result blocks must come FIRST in the content array. Any text "
                      "must come AFTER all tool results"),
    "non-empty": NON_EMPTY,
    "max-tokens": "max_tokens is required, an integer of at least 1",
    "tools": "each tool must be an object of the dialect's shape with a name",
    "call-id": "each tool call needs its id, a string",
    "tool-call-id": "each tool result needs the id of the call it answers, a string",
    "call-id-pattern": "a tool call's id must match the dialect's pattern",
    "call-id-length": "a tool call's id must be at most the dialect's length",
    "call-id-unique": "a tool call's id must appear once",
    "schema-object": "a tool's parameters must be a JSON Schema of type object",
    "tool-name": "a tool's name must match the dialect's pattern",
    "tool-names-unique": "tool names must be unique",
    "arguments": "a call's arguments must be what the dialect sends",
    "block-type": "each content block or part must be of a type the API knows",
    "media-type": "an image's media type must be one the provider lists",
    "too-large": "the request body must be within the provider's size limit",
    "too-many-messages": "the messages must be within the provider's count",
    "too-many-images": "the images must be within the provider's count",
    "image-bytes": "the images' bytes must be within the provider's limit",
    "image-size": "each image's sides must be within the provider's pixel limit",
    "too-many-tools": "the tools must be within the provider's count",
    "too-many-calls": "the tool calls of one message must be within the provider's count",
    "result-content": "a tool result's content must be text, or the part types the dialect "
                      "takes in a result",
    "is-error": "a tool result's is_error must be a boolean",
    "document": "a document must be a base64 PDF (application/pdf) of the dialect's shape",
    "reasoning-shape": ("a reasoning item must keep the fields the provider returned: a "
                        "thinking block its thinking and signature, a redacted_thinking "
                        "block its data, a reasoning item its id"),
    "thinking-first": ("When `thinking` is enabled, a final `assistant` message must start "
                       "with a thinking block (preceeding the lastmost set of `tool_use` and "
                       "`tool_result` blocks)"),
    "call-has-output": "No tool output found for function call <call_id>.",
    "output-has-call": "No tool call found for function call output with call_id <call_id>.",
    "reasoning-required": ("Item '<fc id>' of type 'function_call' was provided without its "
                           "required 'reasoning' item: '<rs id>'."),
    "reasoning-followed": ("Item '<rs id>' of type 'reasoning' was provided without its "
                           "required following item."),
}

# Each dialect's own words for a rule, where they differ from RULES' (API error texts
# quoted in issue threads, or the provider's documentation).
WORDING = {
    "openai-chat": {
        "call-id": "Missing required parameter: 'messages[N].tool_calls[M].id'",
        "tool-call-id": "Missing required parameter: 'messages[N].tool_call_id'",
        "call-id-length": ("string too long. Expected a string with maximum length "
                           f"{limit('openai-chat', 'call_id_length')}"),
        "schema-object": "schema must be a JSON Schema of 'type: \"object\"'",
        "tool-name": f"function name must match ^{limit('openai-chat', 'tool_name')}$",
        "arguments": "tool_calls[M].function.arguments must be a string (the JSON text)",
        "block-type": "content parts are text, image_url, input_audio, file (refusal from "
                      "the assistant)",
        "media-type": "image_url data URLs of image/png, image/jpeg, image/gif, image/webp",
    },
    "anthropic-messages": {
        "call-id": "messages.N.content.M.tool_use.id: Field required",
        "tool-call-id": "messages.N.content.M.tool_result.tool_use_id: Field required",
        "call-id-pattern": ("messages.N.content.M.tool_use.id: String should match pattern "
                            f"'^{limit('anthropic-messages', 'call_id_pattern')}$'"),
        "call-id-unique": "tool_use ids must be unique",
        "schema-object": "tools.N.custom.input_schema.type: Field required",
        "tool-name": f"tools.N.name: String should match pattern "
                     f"'^{limit('anthropic-messages', 'tool_name')}$'",
        "arguments": "messages.N.content.M.tool_use.input: Input should be a valid dictionary",
        "too-large": "413 request_too_large",
        "thinking-first": ("messages.N.content.0.type: Expected `thinking` or "
                           "`redacted_thinking`, but found `tool_use`. When `thinking` is "
                           "enabled, a final `assistant` message must start with a thinking "
                           "block (preceeding the lastmost set of `tool_use` and `tool_result` "
                           "blocks). We recommend you include thinking blocks from previous "
                           "turns. To avoid this requirement, disable `thinking`."),
    },
    "openai-responses": {
        "call-id": "Missing required parameter: 'input[N].call_id'",
        "tool-call-id": "Missing required parameter: 'input[N].call_id'",
        "arguments": "input[N].arguments must be a string (the JSON text)",
    },
}


class InvalidRequest(ValueError):
    """A request body breaks a provider's rule: ``rule`` is its key in RULES, ``index``
    the message at fault (or the tool, for a tool's rule; None when the fault is not in
    one), ``wording`` the provider's own words for it."""

    def __init__(self, rule: str, index: int | None = None, detail: str = "",
                 dialect: str | None = None, item: str = "message") -> None:
        self.rule, self.index = rule, index
        self.wording = WORDING.get(dialect, {}).get(rule, RULES[rule])
        where = "" if index is None else f" ({item} {index})"
        more = f"; {detail}" if detail else ""
        words = "" if self.wording == RULES[rule] else f" (the API: {self.wording})"
        super().__init__(f"{rule}{where}: {RULES[rule]}{words}{more}")


OA, AN, OR = "openai-chat", "anthropic-messages", "openai-responses"
# The content part types of each OpenAI role, and Anthropic's content block types.
OPENAI_PARTS = {"system": {"text"}, "developer": {"text"}, "tool": {"text"},
                "user": {"text", "image_url", "input_audio", "file"},
                "assistant": {"text", "refusal"}}
ANTHROPIC_BLOCKS = {
    "text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
    "redacted_thinking", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
    "code_execution_tool_result", "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result",
    "container_upload"}


def known(kind: object, kinds: set[str]) -> bool:
    return isinstance(kind, str) and kind in kinds


def check_call_id(call_id: object, index: int, dialect: str) -> None:
    """The id of a call: present, a string, of the dialect's pattern and length."""
    if not isinstance(call_id, str) or not call_id:
        raise InvalidRequest("call-id", index, dialect=dialect)
    pattern, length = name_pattern(dialect, "call_id_pattern"), limit(dialect, "call_id_length")
    if pattern is not None and not pattern.fullmatch(call_id):
        raise InvalidRequest("call-id-pattern", index, dialect=dialect)
    if length is not None and len(call_id) > length:
        raise InvalidRequest("call-id-length", index, f"{len(call_id)} characters",
                             dialect=dialect)


def check_call_name(name: object, index: int | None, dialect: str,
                     item: str = "message") -> None:
    if not isinstance(name, str) or not name_pattern(dialect, "tool_name").fullmatch(name):
        raise InvalidRequest("tool-name", index, dialect=dialect, item=item)
