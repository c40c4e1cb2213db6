"""Token counting on texts of one shape each (issue 45): the time of ``text_tokens`` on N
characters of prose, random letters, "ab" repeated, random digits, random CJK, one
character repeated, random symbols and spaces, and tiktoken's own count as a check.

Before issue 45 one long piece (a word of random letters, a run of CJK or of symbols) was
merged by tiktoken in time growing faster than the piece. Run it by hand, on an idle
machine: `python benchmarks/bench_token_shapes.py [N] [SHAPE ...]` (N defaults to 8
million). Not part of `make bench`: a check, not a chart.
"""

from __future__ import annotations

import argparse
import random
import string
import time
from pathlib import Path

from ledgerlab import text_tokens
from ledgerlab.tokens import encoding

DOCS = Path(__file__).resolve().parent.parent / "docs"


def prose(pick: random.Random, size: int) -> str:
    """This project's documentation, repeated: ordinary English with code and tables."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted(DOCS.glob("*.md")))
    return (text * (size // len(text) + 1))[:size]


SHAPES = {
    "prose (docs/*.md)": prose,
    "random letters": lambda pick, size: "".join(pick.choices(string.ascii_letters, k=size)),
    "random lowercase": lambda pick, size: "".join(pick.choices(string.ascii_lowercase, k=size)),
    '"ab" repeated': lambda pick, size: "ab" * (size // 2),
    "random digits": lambda pick, size: "".join(pick.choices(string.digits, k=size)),
    "random CJK": lambda pick, size: "".join(chr(pick.randrange(0x4E00, 0x9FA5))
                                             for _ in range(size)),
    '"x" repeated': lambda pick, size: "x" * size,
    "random symbols": lambda pick, size: "".join(pick.choices("!#$%&()*+,-./:;<=>?@[]^_{|}~",
                                                              k=size)),
    "spaces": lambda pick, size: " " * size,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", type=int, nargs="?", default=8_000_000)
    parser.add_argument("shapes", nargs="*", metavar="SHAPE", help=", ".join(SHAPES))
    parser.add_argument("--tokenizer", default="o200k_base")
    parser.add_argument("--check", action="store_true",
                        help="also count with tiktoken whole and compare (minutes on long pieces)")
    args = parser.parse_args()
    text_tokens("warm up", tokenizer=args.tokenizer)
    print(f"{'shape':<20} {'characters':>11} {'seconds':>8} {'tokens':>11}")
    for name in args.shapes or SHAPES:
        text = SHAPES[name](random.Random(45), args.size)
        start = time.perf_counter()
        count = text_tokens(text, tokenizer=args.tokenizer)
        seconds = time.perf_counter() - start
        same = ""
        if args.check:
            same = "  tiktoken: " + (
                "same" if count == len(encoding(args.tokenizer).encode_ordinary(text)) else "DIFFERS")
        print(f"{name:<20} {len(text):>11,} {seconds:>8.2f} {int(count):>11,}{same}", flush=True)


if __name__ == "__main__":
    main()
