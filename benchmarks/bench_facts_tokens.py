"""Side-by-side benchmark: many pinned facts under a token limit (issue 27, defect 21).

The facts all fit the byte budget, and only the first few fit the token limit: select
must find that prefix without counting each longer prefix whole, which is what
select_reference (the article's loop, the oracle) does. Printed: both timings in this
one run, their ratio, and how many characters each gave the tokenizer. Run it with
`python benchmarks/bench_facts_tokens.py` (no results file: a check, not a chart).
"""

from __future__ import annotations

import argparse
import platform
import time

from ledgerlab import Fact, request_tokens, select, select_reference
from ledgerlab.tokens import counter

SYSTEM = "Use only the supplied conversation."
QUESTION = "Explain the next step."
WIDE_BYTES = 1 << 22  # every fact fits the bytes: the token limit is the one that binds
TOKENIZER = "o200k_base"


def make_facts(count: int) -> list[Fact]:
    """Facts of 40 to 90 bytes, with quotes, CJK and emoji (as in bench_select)."""
    return [Fact(f"fact{i}", f'Fact {i}: the project code is "ORCHID-{i}" 接口 🙂' + "y" * (i % 30),
                 f"t{i}") for i in range(count)]


def measured(call) -> tuple[float, int, object]:
    """Seconds for one call, the characters it gave the tokenizer, and its result."""
    count = counter(TOKENIZER)
    encode, seen = count.encode, [0]

    def counting(text: str):
        seen[0] += len(text)
        return encode(text)

    count.encode = counting
    try:
        started = time.perf_counter()
        result = call()
        return time.perf_counter() - started, seen[0], result
    finally:
        count.encode = encode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, nargs="+", default=[250, 500, 1_000, 2_000])
    parser.add_argument("--fit", type=int, default=100, help="facts that fit the token limit")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}; {TOKENIZER}; "
          f"the first {args.fit} facts fit the token limit")
    print(f"{'facts':>6} {'select s':>9} {'reference s':>12} {'ref/sel':>8} "
          f"{'select chars':>13} {'reference chars':>16}")
    for number in args.facts:
        facts = make_facts(number)
        max_tokens = request_tokens(SYSTEM, [], QUESTION, tokenizer=TOKENIZER,
                                    facts=facts[:args.fit]) + 2
        options = dict(facts=facts, max_tokens=max_tokens, tokenizer=TOKENIZER)
        counter(TOKENIZER)  # built before timing
        select_s, select_chars, chosen = measured(
            lambda: select(SYSTEM, [], QUESTION, WIDE_BYTES, **options))
        reference_s, reference_chars, oracle = measured(
            lambda: select_reference(SYSTEM, [], QUESTION, WIDE_BYTES, **options))
        assert (chosen.payload, chosen.tokens, chosen.facts_kept) == (
            oracle.payload, oracle.tokens, oracle.facts_kept) and chosen.facts_kept == args.fit
        print(f"{number:>6,} {select_s:>9.4f} {reference_s:>12.3f} "
              f"{reference_s / select_s:>7,.0f}x {select_chars:>13,} {reference_chars:>16,}",
              flush=True)


if __name__ == "__main__":
    main()
