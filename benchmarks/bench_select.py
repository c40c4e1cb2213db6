"""Side-by-side benchmark: run with `make bench`.

Every ratio below compares timings measured in this one run, on this machine:

- select against the floor: one stdlib json.dumps of the same returned request
  (building its dicts included) and its .encode();
- select_reference (the article's loop) where it finishes in reasonable time;
- LangChain's trim_messages (strategy="last", include_system=True, start_on="human")
  with a counter that returns the exact bytes of the same serialized request;
- select with a token limit (and a reply reserve) against the floor of counting the
  returned request's tokens once, and against trim_messages with a tiktoken counter
  (the cookbook rule, as LangChain's docs write it) on the same texts;
- select with 20 pinned facts against select without them, on the same history and
  budget (bytes, then the token limit): the facts must not make select scan more;
- Journal.commit against a raw os.write + os.fsync of a same-sized line, and opening
  a journal filled to the 4 MiB cap against reading the file and hashing its payloads.

Results go to ledgerlab/course/data/results.json and select-scaling.png there: package
data, because notebook 13 shows them, in a checkout and in an install alike.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import json
import math
import os
import platform
import statistics
import tempfile
import time
import timeit
from pathlib import Path

from ledgerlab import Fact, Journal, Turn, request_tokens, select, select_reference
from ledgerlab.journal import DEFAULT_MAX_BYTES, encode_record
from ledgerlab.tokens import PER_MESSAGE, REPLY_PRIMING, encoding
from ledgerlab import ENCODERS, messages

HERE = Path(__file__).resolve().parent
# Where notebook 13 reads them (ledgerlab.course.paths.DATA): this checkout's package data.
OUT = HERE.parent / "ledgerlab" / "course" / "data"
SYSTEM = "Use only the supplied conversation."
QUESTION = "Explain the next step."
BUDGET = 16 * 1024
SIZES = (100, 1_000, 10_000, 100_000)
REFERENCE_MAX_TURNS = 1_000  # the quadratic loop takes minutes beyond this
# The token rows: a 4,096-token window with 512 kept for the reply; the byte budget is
# wide enough that the token limit is the one that binds (select still measures bytes).
TOKEN_SIZES = (1_000, 10_000, 100_000)
MAX_TOKENS, RESERVE_TOKENS, TOKENIZER, WIDE_BYTES = 4096, 512, "o200k_base", 1 << 20
FACT_SIZES = (1_000, 10_000, 100_000)
FACT_COUNT = 20


@functools.cache
def make_history(turns: int) -> list[Turn]:
    """Deterministic turns of 80 to 180 bytes, with quotes, CJK, emoji and newlines (made
    once per length: the sections below share them, and select keeps nothing on them)."""
    return [
        Turn(f'question {i}: 接口 "是什么" 🙂', f"answer {i}\nUse a Java 8 client. " + "x" * (i % 50))
        for i in range(turns)
    ]


def best_seconds(call, min_total: float = 0.2, repeat: int = 5) -> float:
    """Best per-call time over `repeat` runs of a loop of about `min_total` seconds, sized
    from one call made first (a call that alone takes longer is that run's first)."""
    timer = timeit.Timer(call)
    first = timer.timeit(1)
    number = max(1, math.ceil(min_total / max(first, 1e-7)))
    if number == 1:
        return min([first, *timer.repeat(repeat=repeat - 1, number=1)])
    return min(timer.repeat(repeat=repeat, number=number)) / number


def best_pair(first, second, min_total: float = 0.2, repeat: int = 9) -> tuple[float, float]:
    """Best per-call times of two calls timed in alternation, so that a burst of load on a
    shared machine slows both, not only whichever ran during it."""
    timers = [timeit.Timer(call) for call in (first, second)]
    numbers = [max(1, int(timer.autorange()[0] * min_total / 0.2)) for timer in timers]
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for index, (timer, number) in enumerate(zip(timers, numbers)):
            best[index] = min(best[index], timer.timeit(number) / number)
    return best[0], best[1]


def floor_request(kept: list[Turn]) -> bytes:
    body = {"model": "agnes-3.0-flash", "messages": messages(SYSTEM, kept, QUESTION)}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def langchain_trim(history: list[Turn]):
    """trim_messages set up to apply the same rule to the same request bytes."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages

    roles = {"system": "system", "human": "user", "ai": "assistant"}
    gson = ENCODERS["gson"]

    def request_size(batch) -> int:
        body = {"model": "agnes-3.0-flash",
                "messages": [{"role": roles[m.type], "content": m.content} for m in batch]}
        return len(gson.dumps(body))

    system_only = request_size([SystemMessage(SYSTEM)])

    def count(batch) -> int:
        # trim_messages counts the system message on its own and the rest apart:
        # give the rest its marginal bytes so that the two add up to the request.
        if batch and batch[0].type == "system":
            return request_size(batch)
        return request_size([SystemMessage(SYSTEM), *batch]) - system_only

    chat = [SystemMessage(SYSTEM)]
    for turn in history:
        chat += [HumanMessage(turn.question), AIMessage(turn.answer)]
    chat.append(HumanMessage(QUESTION))

    def trim():
        return trim_messages(chat, max_tokens=BUDGET, token_counter=count, strategy="last",
                             include_system=True, start_on="human")
    return trim


def langchain_trim_tokens(history: list[Turn]):
    """trim_messages with a tiktoken counter, the cookbook rule as LangChain's docs write it."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages

    enc = encoding(TOKENIZER)
    roles = {"system": "system", "human": "user", "ai": "assistant"}

    def count(batch) -> int:
        # Per message only: the reply's priming is taken off max_tokens once, below.
        return sum(PER_MESSAGE + len(enc.encode(roles[m.type])) + len(enc.encode(m.content))
                   for m in batch)

    chat = [SystemMessage(SYSTEM)]
    for turn in history:
        chat += [HumanMessage(turn.question), AIMessage(turn.answer)]
    chat.append(HumanMessage(QUESTION))

    def trim():
        return trim_messages(chat, max_tokens=MAX_TOKENS - RESERVE_TOKENS - REPLY_PRIMING,
                             token_counter=count, strategy="last", include_system=True,
                             start_on="human")
    return trim


def bench_tokens(sizes) -> list[dict]:
    rows = []
    options = dict(max_tokens=MAX_TOKENS, reserve_tokens=RESERVE_TOKENS, tokenizer=TOKENIZER)
    for turns in sizes:
        history = make_history(turns)
        chosen = select(SYSTEM, history, QUESTION, WIDE_BYTES, **options)
        kept = history[turns - chosen.kept:]
        assert chosen.kept < turns and chosen.size < WIDE_BYTES, "the token limit must bind"
        row = {"turns": turns, "kept": chosen.kept, "request_tokens": chosen.tokens,
               "select_s": best_seconds(
                   lambda: select(SYSTEM, history, QUESTION, WIDE_BYTES, **options)),
               "floor_s": best_seconds(
                   lambda: request_tokens(SYSTEM, kept, QUESTION, tokenizer=TOKENIZER))}
        trim = langchain_trim_tokens(history)
        assert len(trim()) == 2 + 2 * chosen.kept, "trim_messages chose another request"
        row["trim_s"] = best_seconds(trim, 0.01, 3 if turns < 100_000 else 1)
        rows.append(row)
        print(f"  measured {turns:>7,} turns with a token limit", flush=True)
    return rows


def make_facts(count: int = FACT_COUNT) -> list[Fact]:
    """Facts of 40 to 90 bytes pinned from the newest turns, with quotes, CJK and emoji."""
    return [Fact(f"fact{i}", f'Fact {i}: the project code is "ORCHID-{i}" 接口 🙂' + "y" * (i % 30),
                 f"t{i}") for i in range(count)]


def bench_facts(sizes) -> list[dict]:
    """select with 20 facts beside select without, both limits; every fact is kept."""
    facts = make_facts()
    rows = []
    for turns in sizes:
        history = make_history(turns)
        row = {"turns": turns}
        for limit, options in (("bytes", dict(max_bytes=BUDGET)),
                               ("tokens", dict(max_bytes=WIDE_BYTES, max_tokens=MAX_TOKENS,
                                               reserve_tokens=RESERVE_TOKENS,
                                               tokenizer=TOKENIZER))):
            pinned = select(SYSTEM, history, QUESTION, facts=facts, **options)
            # The article's loop on the newest turns only (it is quadratic): the same request.
            oracle = select_reference(SYSTEM, history[-pinned.kept - 1:], QUESTION,
                                      facts=facts, **options)
            assert (oracle.payload, oracle.kept, oracle.tokens) == (pinned.payload, pinned.kept,
                                                                   pinned.tokens)
            assert pinned.facts_kept == FACT_COUNT
            plain_s, facts_s = best_pair(
                lambda: select(SYSTEM, history, QUESTION, **options),
                lambda: select(SYSTEM, history, QUESTION, facts=facts, **options))
            row[limit] = {"kept": pinned.kept, "fact_bytes": pinned.fact_bytes,
                          "plain_s": plain_s, "facts_s": facts_s}
        rows.append(row)
        print(f"  measured {turns:>7,} turns with {FACT_COUNT} facts", flush=True)
    return rows


def bench_selection(sizes) -> list[dict]:
    rows = []
    for turns in sizes:
        history = make_history(turns)
        chosen = select(SYSTEM, history, QUESTION, BUDGET)
        kept = history[turns - chosen.kept:]
        assert floor_request(kept) == chosen.payload
        row = {"turns": turns, "kept": chosen.kept, "request_bytes": chosen.size,
               "select_s": best_seconds(lambda: select(SYSTEM, history, QUESTION, BUDGET)),
               "floor_s": best_seconds(lambda: floor_request(kept))}
        if turns <= REFERENCE_MAX_TURNS:
            assert select_reference(SYSTEM, history, QUESTION, BUDGET) == chosen
            row["reference_s"] = best_seconds(
                lambda: select_reference(SYSTEM, history, QUESTION, BUDGET), 0.2, 3)
        trim = langchain_trim(history)
        trimmed = trim()
        assert len(trimmed) == 2 + 2 * chosen.kept, "trim_messages chose another request"
        row["trim_s"] = best_seconds(trim, 0.01, 3 if turns < 100_000 else 1)
        rows.append(row)
        print(f"  measured {turns:>7,} turns", flush=True)
    return rows


def bench_commit(directory: Path, pairs: int = 300) -> dict:
    """A commit, then a raw write + fsync, alternately: both see the same disk weather."""
    answer = "answer 0 " + "x" * 60
    line = encode_record("t000000", "question 0000", answer)
    commit_times, raw_times = [], []
    with Journal(directory / "commit.log") as journal:
        fd = os.open(directory / "raw.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for number in range(pairs):
                started = time.perf_counter()
                journal.commit(f"t{number:06d}", f"question {number:04d}", answer)
                middle = time.perf_counter()
                os.write(fd, line)
                os.fsync(fd)
                raw_times.append(time.perf_counter() - middle)
                commit_times.append(middle - started)
        finally:
            os.close(fd)
    return {"commit_s": statistics.median(commit_times),
            "raw_write_fsync_s": statistics.median(raw_times), "record_bytes": len(line)}


def bench_open(directory: Path) -> dict:
    """Open a journal filled to the cap, against reading it and hashing each payload."""
    path = directory / "full.log"
    lines, size, number = [], 0, 0
    while True:
        line = encode_record(f"t{number}", f"question {number} 接口", f"answer {number} " + "x" * 80)
        if size + len(line) > DEFAULT_MAX_BYTES:
            break
        lines.append(line)
        size += len(line)
        number += 1
    path.write_bytes(b"".join(lines))

    def open_journal():
        Journal(path).close()

    def read_and_hash():
        for line in path.read_bytes().splitlines():
            encoded, digest = line.split(b" ")
            hashlib.sha256(base64.b64decode(encoded)).hexdigest()

    return {"file_bytes": size, "records": len(lines),
            "open_s": best_seconds(open_journal, 1.0, 3),
            "read_hash_s": best_seconds(read_and_hash, 1.0, 3)}


def print_report(results: dict) -> None:
    print()
    print(f"select, budget {BUDGET} bytes (best of repeated runs, microseconds per call)")
    print(f"{'turns':>8} {'kept':>5} {'select':>9} {'floor':>9} {'sel/floor':>9} "
          f"{'reference':>11} {'ref/sel':>8} {'trim_messages':>14} {'trim/sel':>9}")
    for row in results["selection"]:
        def us(key: str, row: dict = row) -> str:
            return f"{row[key] * 1e6:,.1f}" if key in row else "-"
        ref_ratio = f"{row['reference_s'] / row['select_s']:,.0f}x" if "reference_s" in row else "-"
        print(f"{row['turns']:>8,} {row['kept']:>5} {us('select_s'):>9} {us('floor_s'):>9} "
              f"{row['select_s'] / row['floor_s']:>8.2f}x {us('reference_s'):>11} {ref_ratio:>8} "
              f"{us('trim_s'):>14} {row['trim_s'] / row['select_s']:>8,.0f}x")
    print()
    print(f"select with a {MAX_TOKENS}-token limit, {RESERVE_TOKENS} reserved, {TOKENIZER} "
          f"(microseconds per call)")
    print(f"{'turns':>8} {'kept':>5} {'tokens':>6} {'select':>9} {'count':>9} {'sel/count':>9} "
          f"{'trim_messages':>14} {'trim/sel':>9}")
    for row in results["tokens"]["rows"]:
        print(f"{row['turns']:>8,} {row['kept']:>5} {row['request_tokens']:>6} "
              f"{row['select_s'] * 1e6:>9,.1f} {row['floor_s'] * 1e6:>9,.1f} "
              f"{row['select_s'] / row['floor_s']:>8.2f}x {row['trim_s'] * 1e6:>14,.1f} "
              f"{row['trim_s'] / row['select_s']:>8,.0f}x")
    print()
    print(f"select with {FACT_COUNT} pinned facts beside select without them, same history "
          f"(microseconds per call)")
    print(f"{'turns':>8} {'limit':>6} {'kept':>5} {'facts':>6} {'no facts':>9} {'20 facts':>9} "
          f"{'ratio':>6}")
    for row in results["facts"]:
        for limit in ("bytes", "tokens"):
            cell = row[limit]
            print(f"{row['turns']:>8,} {limit:>6} {cell['kept']:>5} {cell['fact_bytes']:>6} "
                  f"{cell['plain_s'] * 1e6:>9,.1f} {cell['facts_s'] * 1e6:>9,.1f} "
                  f"{cell['facts_s'] / cell['plain_s']:>5.2f}x")
    commit = results["commit"]
    print()
    print(f"journal commit ({commit['record_bytes']}-byte record): {commit['commit_s'] * 1e6:,.0f} us; "
          f"raw os.write + os.fsync: {commit['raw_write_fsync_s'] * 1e6:,.0f} us; "
          f"ratio {commit['commit_s'] / commit['raw_write_fsync_s']:.2f}x")
    opened = results["open"]
    print(f"open a {opened['file_bytes']:,}-byte journal ({opened['records']:,} records): "
          f"{opened['open_s'] * 1e3:,.1f} ms; read + hash payloads: "
          f"{opened['read_hash_s'] * 1e3:,.1f} ms; ratio {opened['open_s'] / opened['read_hash_s']:.2f}x")


def plot(results: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["selection"]
    fig, (ax, tokens_ax) = plt.subplots(1, 2, figsize=(12, 4.5))
    series = [("select_s", "select (ledgerlab)", "#0072B2", "o"),
              ("reference_s", "select_reference (the article's loop)", "#D55E00", "s"),
              ("trim_s", "LangChain trim_messages", "#009E73", "^"),
              ("floor_s", "floor: one json.dumps of the result", "#999999", "x")]
    for key, label, colour, marker in series:
        points = [(row["turns"], row[key]) for row in rows if key in row]
        ax.plot(*zip(*points), marker=marker, color=colour, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("stored turns")
    ax.set_ylabel("seconds per selection")
    ax.set_title(f"Selecting a {BUDGET // 1024} KiB request: time against stored turns")
    ax.legend()
    ax.grid(True, which="major", alpha=0.3)
    token_rows = results["tokens"]["rows"]
    series = [("select_s", "select with a token limit (ledgerlab)", "#0072B2", "o"),
              ("trim_s", "trim_messages, tiktoken counter", "#009E73", "^"),
              ("floor_s", "floor: count the returned request once", "#999999", "x")]
    for key, label, colour, marker in series:
        tokens_ax.plot([row["turns"] for row in token_rows], [row[key] for row in token_rows],
                       marker=marker, color=colour, label=label)
    tokens_ax.set_xscale("log")
    tokens_ax.set_yscale("log")
    tokens_ax.set_xlabel("stored turns")
    tokens_ax.set_ylabel("seconds per selection")
    tokens_ax.set_title(f"A {MAX_TOKENS}-token window, {RESERVE_TOKENS} kept for the reply")
    tokens_ax.legend()
    tokens_ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    results = {"budget_bytes": BUDGET, "python": platform.python_version()}
    print("selection ...", flush=True)
    results["selection"] = bench_selection(args.sizes)
    print("selection with a token limit ...", flush=True)
    results["tokens"] = {"max_tokens": MAX_TOKENS, "reserve_tokens": RESERVE_TOKENS,
                         "tokenizer": TOKENIZER, "max_bytes": WIDE_BYTES,
                         "rows": bench_tokens([n for n in args.sizes if n in TOKEN_SIZES])}
    print(f"selection with {FACT_COUNT} facts ...", flush=True)
    results["facts"] = bench_facts([n for n in args.sizes if n in FACT_SIZES])
    work = HERE.parent / "build" / "bench"
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work) as directory:
        print("journal commit ...", flush=True)
        results["commit"] = bench_commit(Path(directory))
        print("journal open ...", flush=True)
        results["open"] = bench_open(Path(directory))
    print_report(results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    plot(results, args.out / "select-scaling.png")
    print(f"\nwrote {args.out / 'results.json'} and {args.out / 'select-scaling.png'}")


if __name__ == "__main__":
    main()
