"""Side-by-side benchmark: select with 1,000 summaries and 1,000 evidence items (issue 37).

At 100k stored turns (ids t0..), the summaries each cover 100 consecutive turns, so only the
ones over dropped turns can be sent; the evidence and the summaries each have a byte cap.
Printed, from this one run: the median per-call times of ``select`` and of one gson
``dumps`` of the body it returned (the parsed payload: the same bytes), timed in
alternation round after round in the process's CPU time (``bench_tools.interleaved``, so
that a burst of load on a shared machine slows both), and their ratio. The ratio is information, not a target: the
one speed target, select at most 3.0x one dumps of what it returns, is stated and
measured on tool and reasoning turns by ``bench_tools.py``. select keeps nothing between
calls, so each timed call is a first call. Run it with `python benchmarks/bench_memory.py`.
"""

from __future__ import annotations

import argparse
import json
import platform

from bench_tools import interleaved
from ledgerlab import ENCODERS, Evidence, Summary, Turn, select

SYSTEM = "Use only the supplied conversation."
QUESTION = "Explain the next step."


def make_memory(turns: int, summaries: int, evidence: int):
    history = [Turn(f"Question {i}: what about 接口 {i}? 🙂", f'Answer {i}: use "ORCHID-{i}".'
                    + "y" * (i % 30)) for i in range(turns)]
    ids = [f"t{i}" for i in range(turns)]
    span = max(1, turns // summaries)
    notes = [Summary(f"s{n}", f"Turns {n * span} to {n * span + span - 1}: the code was "
                     f"ORCHID-{n}; the user asked about 接口.", tuple(ids[n * span:(n + 1) * span]))
             for n in range(summaries)]
    found = [Evidence(f"e{n}", f"Document {n} says the fix is in release {n % 17}. 🙂",
                      f"https://docs.example/{n}") for n in range(evidence)]
    return history, ids, notes, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--summaries", type=int, default=1_000)
    parser.add_argument("--evidence", type=int, default=1_000)
    parser.add_argument("--budget", type=int, default=1 << 20)
    parser.add_argument("--rounds", type=int, default=11, help="interleaved rounds")
    args = parser.parse_args()
    history, ids, notes, found = make_memory(args.turns, args.summaries, args.evidence)
    options = dict(ids=ids, summaries=notes, max_summary_bytes=args.budget // 8,
                   evidence=found, max_evidence_bytes=args.budget // 8)
    chosen = select(SYSTEM, history, QUESTION, args.budget, **options)
    body, gson = json.loads(chosen.payload), ENCODERS["gson"]
    assert gson.dumps(body) == chosen.payload
    select_s, dumps_s = interleaved(
        lambda: select(SYSTEM, history, QUESTION, args.budget, **options),
        lambda: gson.dumps(body), rounds=args.rounds)
    print(f"Python {platform.python_version()} on {platform.machine()}; {args.turns:,} turns, "
          f"{args.summaries:,} summaries, {args.evidence:,} evidence items, "
          f"budget {args.budget:,} bytes")
    print(f"kept {chosen.kept:,} turns, {len(chosen.summary_ids):,} summaries "
          f"({chosen.summary_bytes:,} bytes), {chosen.evidence_kept:,} evidence items "
          f"({chosen.evidence_bytes:,} bytes), {chosen.size:,} bytes in all")
    print(f"select {select_s * 1000:.2f} ms, one gson dumps of the body it returns "
          f"{dumps_s * 1000:.2f} ms: {select_s / dumps_s:.2f}x (median of {args.rounds} "
          f"interleaved rounds, CPU time; information, not a target)")


if __name__ == "__main__":
    main()
