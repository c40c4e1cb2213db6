"""The provider's prompt cache, simulated: what a conversation's requests are billed, and where
two requests part (why a cache missed).

A provider keeps the prefix of a request it has processed, and bills the next request that
starts with the same prefix at a fraction of the input price. Each dialect's module holds its
provider's rule as data (``dialects.<module>.CACHE``: multipliers, minimums, blocks,
lifetimes, a dated price table); here it is applied to the bytes of real requests:

- ``request_parts(payload)``: the byte spans of a request body, named (``system``,
  ``tools``, a memory section, ``turn k``, ``question`` ...);
- ``first_difference(a, b)``: the first byte where two requests differ, and the part of each
  that holds it (``ledgerlab prefix A B`` prints it);
- ``simulate_bill(requests, model)``: each request's cached, written and uncached input
  tokens and its billed input cost, by its provider's documented rule.

Tokens are estimated from bytes (``bytes_per_token``, 4 by default, OpenAI's rule of thumb
for English text): the bill compares schedules of the same requests, so a constant ratio
ranks them as exact counts would. Nothing here names a request's text: parts, offsets,
sizes and counts only.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from .dialects import SHAPES, CacheRate, PromptCache

ANTHROPIC, CHAT, RESPONSES = "anthropic-messages", "openai-chat", "openai-responses"


class UnreadableRequest(ValueError):
    """A file or payload is not a request body of a known dialect (its size is named, never
    its content)."""


# --- A request's parts --------------------------------------------------------------------------

@dataclass(frozen=True)
class Part:
    """A span of a request body's bytes, ``[start, end)``, and what it holds."""

    name: str
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


def detect_dialect(body: dict) -> str:
    """The dialect a parsed body is written in: Responses has ``input``; Anthropic a
    ``system`` field, or else a ``max_tokens`` beside messages OpenAI Chat would not write
    (Chat, whose ``max_tokens`` an application may send, has system and tool messages and
    ``tool_calls``); else OpenAI Chat."""
    if "input" in body:
        return RESPONSES
    if "system" in body:
        return ANTHROPIC
    chat_only = any(isinstance(message, dict) and (
        message.get("role") in ("system", "developer", "tool") or "tool_calls" in message)
        for message in body.get("messages", ()))
    return ANTHROPIC if "max_tokens" in body and not chat_only else CHAT


def parse_request(payload: bytes) -> dict:
    """The body of a request file; UnreadableRequest if it is not a JSON object with a
    conversation (its size named)."""
    try:
        body = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise UnreadableRequest(f"not a JSON request body ({len(payload)} bytes)") from None
    if not isinstance(body, dict) or not any(isinstance(body.get(key), list)
                                             for key in ("messages", "input")):
        raise UnreadableRequest(f"a JSON value without a conversation ({len(payload)} bytes): "
                                f"a request body has messages or input")
    return body


def request_parts(payload: bytes, dialect: str | None = None) -> list[Part]:
    """The byte spans of a request body, in order, covering it whole, each named: ``model``,
    ``max_tokens``, ``system`` (Anthropic's system block 0, OpenAI's first system message,
    Responses' ``instructions``), ``facts``, ``evidence`` or ``summaries`` (a further system
    block, system or developer message, or one after the turns; told apart by their lines'
    ``[source: ...]`` and ``[turns: ...]`` prefixes), ``tools``, ``turn k of n``, ``question``
    (the current question and the tool rounds after it), ``envelope`` (what is left: braces,
    brackets, keys, separators), or another top-level field's key. The separator before an item belongs
    to it. ``dialect``: None to detect it from the body."""
    body = parse_request(payload)
    dialect = detect_dialect(body) if dialect is None else dialect
    text = payload.decode("utf-8")
    offsets = _ByteOffsets(text)
    parts: list[Part] = []
    for key, start, end in _members(text, _skip(text, 0) + 1):
        if key == "system" and isinstance(body[key], list) or key in ("messages", "input"):
            named = (_system_names(body[key]) if key == "system"
                     else _conversation_names(body[key], dialect))
            # The array's brackets are the envelope's, as the gaps between members are: the
            # first byte a request adds after the last one's question is then not that
            # question's (the last one's ] is where the next one puts its new turn).
            items = _elements(text, start + 1)
            cut = start + 1
            for (_, item_end), name in zip(items, named):
                parts.append(Part(name, offsets(cut), offsets(item_end)))
                cut = item_end
        else:
            name = {"instructions": "system", "system": "system"}.get(key, key)
            parts.append(Part(name, offsets(start), offsets(end)))
    spans: list[Part] = []
    cut = 0
    for part in [*parts, Part("envelope", len(payload), len(payload))]:
        if part.start > cut:  # the gaps (braces, keys, separators) are the envelope's
            spans.append(Part("envelope", cut, part.start))
        if spans and spans[-1].name == part.name:  # a turn's messages are one part
            spans[-1] = Part(part.name, spans[-1].start, part.end)
        elif part.size:
            spans.append(part)
        cut = part.end
    return spans


def _section_name(text: object, first: bool) -> str:
    """A memory section, by its lines' prefixes (``memory_sections``' line formats)."""
    lines = text.split("\n") if isinstance(text, str) else []
    if lines and all(line.startswith("[source: ") for line in lines):
        return "evidence"
    if lines and all(line.startswith("[turns: ") for line in lines):
        return "summaries"
    return "system" if first else "facts"


def _system_names(blocks: list) -> list[str]:
    return [_section_name(block.get("text") if isinstance(block, dict) else None, index == 0)
            for index, block in enumerate(blocks)]


def _is_question(item: object, dialect: str) -> bool:
    """A user message that asks (not one of tool results)."""
    if not isinstance(item, dict) or item.get("role") != "user":
        return False
    content = item.get("content")
    if dialect == ANTHROPIC and isinstance(content, list) and content and all(
            isinstance(block, dict) and block.get("type") == "tool_result" for block in content):
        return False
    return True


def _conversation_names(items: list, dialect: str) -> list[str]:
    """Each message's (or input item's) part: the sections before the turns, the turns,
    a section after them, the question and its rounds."""
    names = [""] * len(items)
    asks = [index for index, item in enumerate(items) if _is_question(item, dialect)]
    last = asks[-1] if asks else len(items)
    for index in range(last, len(items)):
        names[index] = "question"
    section_roles = ("user",) if dialect == ANTHROPIC else ("system", "developer")
    start = 0
    while (start < last and isinstance(items[start], dict)
           and items[start].get("role") in ("system", "developer")):
        names[start] = _section_name(items[start].get("content"), start == 0
                                     and dialect == CHAT)
        start += 1
    # After the turns, before the question: a section (evidence_after_turns). In Anthropic's
    # dialect a user message right before the question's.
    end = last
    while end > start and isinstance(items[end - 1], dict) and (
            items[end - 1].get("role") in section_roles
            and (dialect != ANTHROPIC or _is_question(items[end - 1], dialect))):
        end -= 1
        names[end] = _section_name(items[end].get("content"), False)
    turn_starts = [index for index in asks if start <= index < end]
    if turn_starts and turn_starts[0] > start:
        turn_starts.insert(0, start)
    for number, first in enumerate(turn_starts):
        following = turn_starts[number + 1] if number + 1 < len(turn_starts) else end
        for index in range(first, following):
            names[index] = f"turn {number + 1} of {len(turn_starts)}"
    return names


class _ByteOffsets:
    """Character offsets of a decoded body to byte offsets of its UTF-8 bytes."""

    def __init__(self, text: str) -> None:
        self.text, self.char, self.byte = text, 0, 0

    def __call__(self, char: int) -> int:
        if char < self.char:
            self.char, self.byte = 0, 0
        self.byte += len(self.text[self.char:char].encode("utf-8"))
        self.char = char
        return self.byte


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _members(text: str, at: int):
    """``(key, start, end)`` of each member of the object whose ``{`` is before ``at``."""
    at = _skip(text, at)
    while at < len(text) and text[at] != "}":
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # the colon
        start = at
        _, at = _DECODER.raw_decode(text, at)
        yield key, start, at
        at = _skip(text, at)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)


def _elements(text: str, at: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each element of the array whose ``[`` is before ``at``."""
    spans = []
    at = _skip(text, at)
    while at < len(text) and text[at] != "]":
        start = at
        _, at = _DECODER.raw_decode(text, at)
        spans.append((start, at))
        at = _skip(text, at)
        if at < len(text) and text[at] == ",":
            at = _skip(text, at + 1)
    return spans


# --- Where two requests part ----------------------------------------------------------------------

def shared_prefix(first: bytes, second: bytes) -> int:
    """How many leading bytes ``first`` and ``second`` share (a binary search of
    comparisons, each at C speed)."""
    one, other = memoryview(first), memoryview(second)
    low, high = 0, min(len(one), len(other))
    if one[:high] == other[:high]:
        return high
    while high - low > 1:  # one[:low] == other[:low], one[:high] != other[:high]
        middle = (low + high) // 2
        if one[:middle] == other[:middle]:
            low = middle
        else:
            high = middle
    return low


@dataclass(frozen=True)
class Difference:
    """Where two requests part: the first byte that differs (``offset``; the shorter one's
    size if it is a prefix of the other), and the part of each that holds it (None past its
    end)."""

    offset: int
    sizes: tuple[int, int]
    parts: tuple[Part | None, Part | None]


def first_difference(first: bytes, second: bytes, dialect: str | None = None) -> Difference | None:
    """The first byte where two request bodies differ and which part of each holds it
    (``request_parts``); None if they are the same bytes. UnreadableRequest if either is not
    a request body."""
    spans = request_parts(first, dialect), request_parts(second, dialect)
    if first == second:
        return None
    offset = shared_prefix(first, second)
    held = tuple(next((part for part in parts if part.start <= offset < part.end), None)
                 for parts in spans)
    return Difference(offset, (len(first), len(second)), held)


# --- The bill -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BilledRequest:
    """One request's input, as its provider bills it: ``cached`` tokens read from the cache,
    ``written`` tokens written to it, ``uncached`` tokens neither; ``cost`` in US dollars."""

    tokens: int
    cached: int
    written: int
    uncached: int
    cost: float


def provider_cache(model: str) -> tuple[PromptCache, CacheRate]:
    """The cache rule and price of ``model``: the dialect module whose price table names it.
    ValueError naming the models priced."""
    known = []
    for shape in SHAPES.values():
        cache = shape.cache
        if cache is None or cache in (entry for entry, _ in known):
            continue
        known.append((cache, [rate.model for rate in cache.rates]))
        if model in known[-1][1]:
            return cache, cache.rate(model)
    names = ", ".join(name for _, names in known for name in names)
    raise ValueError(f"no cache price for model {model!r}; priced: {names}")


def prompt_order(payload: bytes, dialect: str | None = None) -> tuple[bytes, list[int], list[int]]:
    """The request as its provider caches it: its pieces in the order the provider reads
    them (tools, system, then the conversation), each the compact JSON of one message (or
    tool, or system block), ``cache_control`` marks left out (they are not part of the
    cached text). Returns those bytes, the end offset of each piece, and the end offsets of
    the pieces holding a mark (Anthropic's breakpoints; a top-level ``cache_control``, its
    automatic caching, marks the last piece)."""
    body = parse_request(payload)
    dialect = detect_dialect(body) if dialect is None else dialect
    system = body.get("system", body.get("instructions"))
    pieces = list(body.get("tools", []))
    if isinstance(system, list):
        pieces += system
    elif system is not None:
        pieces.append({"system": system})
    pieces += body.get("messages", body.get("input", []))
    written, ends, marks = bytearray(), [], []
    for piece in pieces:
        marked = _unmarked(piece)
        written += json.dumps(marked[0], ensure_ascii=False, separators=(",", ":")).encode()
        ends.append(len(written))
        if marked[1]:
            marks.append(len(written))
    if body.get("cache_control") is not None and ends and marks[-1:] != ends[-1:]:
        marks.append(ends[-1])
    return bytes(written), ends, marks


def _unmarked(piece: object) -> tuple[object, bool]:
    """``piece`` without its ``cache_control`` keys (a message's content blocks' too), a
    text content written as one text block (as Anthropic reads a string), and whether it had
    a mark."""
    if not isinstance(piece, dict):
        return piece, False
    marked = "cache_control" in piece
    piece = {key: value for key, value in piece.items() if key != "cache_control"}
    content = piece.get("content")
    if isinstance(content, list):
        blocks = [_unmarked(block) for block in content]
        marked = marked or any(mark for _, mark in blocks)
        piece["content"] = [block for block, _ in blocks]
    elif isinstance(content, str) and "role" in piece:
        piece["content"] = [{"type": "text", "text": content}]
    return piece, marked


def simulate_bill(requests: Sequence[tuple[bytes, float]], model: str, *,
                  ttl: str | None = None, dialect: str | None = None,
                  bytes_per_token: float = 4.0) -> list[BilledRequest]:
    """Each request's cached, written and uncached input tokens and its billed input cost,
    by the documented rule of ``model``'s provider (its dialect module's ``CACHE``).

    ``requests``: ``(payload, seconds since the previous request)`` each (the first's
    seconds are not read). ``ttl``: the cache lifetime written (a key of the model's
    ``writes``; None: the provider's default). The rule:

    - OpenAI (automatic): a request of at least the minimum (1,024 tokens) reads the longest
      prefix it shares with a live earlier request, in whole blocks (128 tokens before
      GPT-5.6), and writes the rest; a shorter one is neither read nor written.
    - Anthropic (breakpoints): a request reads the longest live entry that is a prefix of
      it, found within ``lookback`` pieces before one of its breakpoints, and writes up to its
      last breakpoint; a breakpoint's prefix under the model family's minimum is not cached.
      Without breakpoints nothing is cached.
    - An entry lives ``ttl`` seconds from its last use, each read refreshing it.

    Tokens are ``ceil(bytes / bytes_per_token)`` of the request in its provider's order
    (``prompt_order``). ValueError for a model not priced, or a ``ttl`` it does not offer.
    """
    cache, rate = provider_cache(model)
    if ttl is None:
        ttl = next(iter(rate.writes))
    if ttl not in rate.writes:
        raise ValueError(f"ttl {ttl!r} is not one of {model}'s: {', '.join(rate.writes)}")
    if not bytes_per_token > 0:
        raise ValueError(f"bytes_per_token must be above 0, got {bytes_per_token}")
    lifetime, write_price = rate.writes[ttl]
    minimum = cache.minimum_for(model)

    def tokens(size: int) -> int:
        return math.ceil(size / bytes_per_token)

    entries: list[list] = []  # [prefix bytes, last used (seconds)]
    now, billed = 0.0, []
    for number, (payload, seconds) in enumerate(requests):
        if number:
            now += seconds
        entries = [entry for entry in entries if now - entry[1] <= lifetime]
        prompt, ends, marks = prompt_order(payload, dialect)
        total = tokens(len(prompt))
        if cache.automatic:
            read_bytes, writes_to = _automatic_read(prompt, entries), len(prompt)
            cacheable = total >= minimum
        else:
            read_bytes = _breakpoint_read(prompt, entries, ends, marks, cache.lookback)
            marks = [mark for mark in marks if tokens(mark) >= minimum]
            writes_to = marks[-1] if marks else 0
            cacheable = bool(marks)
        cached = 0
        if cacheable and read_bytes:
            cached = tokens(read_bytes)
            cached -= cached % rate.block
            cached = cached if cached >= minimum else 0
            for entry in entries:
                if prompt.startswith(entry[0]):
                    entry[1] = now  # a read refreshes what it read
        written = max(0, tokens(writes_to) - cached) if cacheable else 0
        uncached = total - cached - written
        if cacheable:
            new = [prompt] if cache.automatic else [prompt[:mark] for mark in marks]
            known = {entry[0] for entry in entries}
            entries += [[prefix, now] for prefix in new if prefix not in known]
            for entry in entries:
                if entry[0] in new:
                    entry[1] = now
        cost = (cached * rate.read + written * write_price + uncached) * rate.input / 1e6
        billed.append(BilledRequest(total, cached, written, uncached, cost))
    return billed


def _automatic_read(prompt: bytes, entries: list) -> int:
    """The longest prefix ``prompt`` shares with a live entry (an earlier request)."""
    return max((shared_prefix(prompt, entry[0]) for entry in entries), default=0)


def _breakpoint_read(prompt: bytes, entries: list, ends: list[int], marks: list[int],
                     lookback: int | None) -> int:
    """The longest live entry that is a prefix of ``prompt`` and ends within ``lookback``
    pieces before one of its breakpoints (the provider looks no further back)."""
    best = 0
    for entry in entries:
        size = len(entry[0])
        if size <= best or not marks or size > marks[-1] or not prompt.startswith(entry[0]):
            continue
        if lookback is not None:
            at = _index(ends, size)
            mark = next(mark for mark in marks if mark >= size)
            if at is None or _index(ends, mark) - at > lookback:
                continue
        best = size
    return best


def _index(ends: list[int], offset: int) -> int | None:
    """The piece ending at ``offset`` (None: no piece ends there)."""
    at = bisect_left(ends, offset)
    return at if at < len(ends) and ends[at] == offset else None


# --- The best schedule there is -------------------------------------------------------------------

def cheapest_starts(windows: Sequence[tuple[int, int]], held, moved) -> list[int]:
    """The offline optimum: the first kept turn of each call that makes the conversation's
    bill least, knowing every call in advance.

    ``windows[i]`` is ``(low, high)``: the first kept turns call ``i`` may start at, both
    included (from the oldest whose request fits to the newest that keeps the turns within
    the low-water mark). Call ``i`` costs ``held(i, start)`` when call ``i - 1`` started at
    the same turn (it reads the last request's prefix), else ``moved(i, start)`` (call 0:
    moved). Dynamic programming over (call, first kept turn): time and memory in the sum of
    the windows. ValueError for an empty window."""
    best: dict[int, float] = {}
    choices: list[dict[int, int]] = []
    for number, (low, high) in enumerate(windows):
        if high < low:
            raise ValueError(f"window {number} is empty: ({low}, {high})")
        # The cheapest way to have reached call number - 1, and the cheapest at another start.
        ranked = sorted(best, key=best.get)[:2]
        now: dict[int, float] = {}
        came: dict[int, int] = {}
        for start in range(low, high + 1):
            other = next((earlier for earlier in ranked if earlier != start), None)
            options = []
            if number == 0:
                options.append((moved(number, start), -1))
            elif other is not None:
                options.append((best[other] + moved(number, start), other))
            if start in best:
                options.append((best[start] + held(number, start), start))
            if options:
                now[start], came[start] = min(options)
        best = now
        choices.append(came)
    start = min(best, key=best.get)
    path = [start]
    for came in reversed(choices[1:]):
        start = came[start]
        path.append(start)
    return path[::-1]
