"""The bill of a conversation's requests under four schedules of its first kept turn (issue 47).

Simulated conversations of 300 calls (plain chat, tool loops, and per-question evidence), in
``anthropic-messages`` (Claude Opus 4.8, with its cache marks) and ``openai-chat`` (GPT-5.4),
at two byte budgets. Call i sends the turns before it and turn i's question, 30 s after the
last call. Each schedule's requests are billed by ``simulate_bill`` (the provider's
documented rule, tokens as bytes / 4):

- whole-turn: ``select`` every call, the longest whole-turn suffix that fits;
- cache-stable: ``select(..., previous=the last call's Selection, low_water=0.6)``;
- trim_messages: LangChain's (strategy "last", ``start_on="human"``, ``include_system=True``)
  on the same history as LangChain messages (``bench_tools.to_langchain``), at the same budget
  counted in bytes (``bench_tools.trimmer``; a token counter would need a model's tokenizer):
  the turns it keeps are sent as the other schedules send theirs (same dialect, cache marks
  and evidence placement), so the column differs by its schedule alone;
- optimum: the cheapest first kept turn of each call knowing every call in advance
  (``cheapest_starts``, dynamic programming over (call, first kept turn)), under the same
  constraints: each request fits the budget and keeps at least the turns within 0.6 of it. Its
  costs are a model of the bill (each call against the last one, from the requests' sizes);
  its requests are then billed like the others.

Printed: each schedule's billed input cost (US dollars) and mean turns kept per request, and
the cache-stable rule against the targets: at most 1.10x the optimum and at most 0.35x the
whole-turn rule, in every row; trim_messages' ratios beside them as information, and how
often it kept different turns from the whole-turn rule or exceeded the budget in the call's
dialect (its bytes are counted as openai-chat's). Evidence is sent after the turns (``evidence_after_turns``) in
every schedule; an information line gives the cache-stable rule with it before the turns.
Run it with `python benchmarks/bench_cache.py` (``make bench`` runs it).
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import time
from importlib.metadata import version

from bench_tools import gson, machine, to_langchain, to_openai_body, trimmer
from ledgerlab import (Evidence, Tool, ToolCall, ToolResult, Turn, cheapest_starts, request_bytes,
                       select, simulate_bill)
from ledgerlab.prompt_cache import prompt_order, provider_cache, shared_prefix

SEED = 47
CALLS = 300
SECONDS = 30.0
LOW_WATER = 0.6
BYTES_PER_TOKEN = 4.0
MODELS = {"anthropic-messages": "claude-opus-4-8", "openai-chat": "gpt-5.4"}
BUDGETS = (64 << 10, 256 << 10)
WORDS = ("the ledger keeps every turn durable while the request is a projection of it under a "
         "budget of bytes and tokens so older turns are dropped whole never cut").split()
SYSTEM = ("You are a careful assistant. Answer from the conversation and the tools only. "
          + " ".join(WORDS) * 24)
TOOLS = [Tool(f"tool_{n}", f"Look up {n}: " + " ".join(WORDS), {"type": "object", "properties": {
    "key": {"type": "string", "description": "what to look up"}}}) for n in range(3)]


def text(rng: random.Random, low: int, high: int) -> str:
    size = rng.randint(low, high)
    words = []
    while sum(map(len, words)) + len(words) < size:
        words.append(rng.choice(WORDS))
    return " ".join(words)


def conversation(kind: str, seed: int = SEED) -> tuple[list[Turn], list[list[Evidence]]]:
    """CALLS + 1 turns of one kind, and the evidence retrieved for each call (none but for
    the evidence kind)."""
    rng = random.Random(f"{seed}-{kind}")
    turns, evidence = [], []
    for number in range(CALLS + 1):
        question = f"Question {number}: " + text(rng, 80, 400)
        if kind == "tools":
            steps = []
            for round_number in range(rng.randint(1, 3)):
                # Compact JSON, as LangChain writes a call's arguments: the same bytes both ways.
                calls = [ToolCall(f"call_{number}_{round_number}_{k}", rng.choice(TOOLS).name,
                                  f'{{"key":"k{number}-{k}"}}')
                         for k in range(rng.randint(1, 2))]
                steps += calls + [ToolResult(call.id, text(rng, 200, 1500)) for call in calls]
            turns.append(Turn(question, text(rng, 200, 800), tuple(steps)))
        else:
            turns.append(Turn(question, text(rng, 300, 2500 if kind == "plain" else 1500)))
        evidence.append([Evidence(f"e{number}-{k}", text(rng, 600, 900),
                                  f"https://docs.example/{number}/{k}")
                         for k in range(3)] if kind == "evidence" else [])
    return turns, evidence


class Calls:
    """One conversation's calls in one dialect at one budget: each schedule's requests."""

    def __init__(self, kind: str, dialect: str, budget: int) -> None:
        self.turns, self.evidence = conversation(kind)
        self.dialect, self.budget = dialect, budget
        self.options = dict(dialect=dialect, tools=TOOLS if kind == "tools" else (),
                            evidence_after_turns=True)
        if dialect == "anthropic-messages":
            self.options["cache_breakpoints"] = True

    def call(self, number: int, **more):
        return select(SYSTEM, self.turns[:number], self.turns[number].question,
                      more.pop("max_bytes", self.budget), evidence=self.evidence[number],
                      **self.options, **more)

    def whole_turn(self) -> list:
        return [self.call(number) for number in range(CALLS)]

    def cache_stable(self, **more) -> list:
        chosen, previous = [], None
        for number in range(CALLS):
            previous = self.call(number, previous=previous, low_water=LOW_WATER, **more)
            chosen.append(previous)
        return chosen

    def trimmed(self) -> tuple[list[int], int]:
        """The first kept turn of each call under LangChain's ``trim_messages`` (strategy
        "last", ``start_on="human"``, ``include_system=True``) at the same budget, and how many
        of those requests exceed it. Counted in bytes (``bench_tools.trimmer``: a token counter
        would need a model's tokenizer): each message's bytes in the openai-chat request, and
        the part no trim removes (system, tools, evidence, question, marks) as the call's own
        dialect sends it. The kept turns are then sent as the other schedules send theirs, so
        this column differs from them by its schedule alone."""
        starts, over = [], 0
        for number in range(CALLS):
            chat = to_langchain(self.turns[:number], SYSTEM, self.turns[number].question, ())
            fixed = len(gson.dumps(to_openai_body([chat[0], chat[-1]], self.options["tools"])))
            reserve = len(self.payload(number, number)) - fixed
            kept = trimmer(chat, self.options["tools"])(self.budget - reserve, "human")
            turns = max(0, sum(message.type == "human" for message in kept) - 1)
            starts.append(number - turns)
            over += len(self.payload(number, number - turns)) > self.budget
        return starts, over

    def payload(self, number: int, start: int) -> bytes:
        return request_bytes(SYSTEM, self.turns[start:number], self.turns[number].question,
                             evidence=self.evidence[number], **self.options)

    def optimum(self, whole: list) -> tuple[list[int], list[bytes]]:
        """The cheapest first kept turns (``cheapest_starts``) and their requests."""
        windows = []
        for number, chosen in enumerate(whole):
            low = self.call(number, max_bytes=math.floor(LOW_WATER * self.budget))
            windows.append((chosen.dropped, max(chosen.dropped, low.dropped)))
        held, moved = self.cost_model()
        starts = cheapest_starts(windows, held, moved)
        return starts, [self.payload(number, start) for number, start in enumerate(starts)]

    def cost_model(self):
        """Each call's bill from the requests' sizes in the provider's order (``prompt_order``):
        against the last call's request, held (it reads the last request up to its turns) or
        moved (it reads the part before the turns)."""
        def size(turns: list[Turn], number: int) -> int:
            return len(prompt_order(request_bytes(
                SYSTEM, turns, self.turns[number].question, evidence=self.evidence[number],
                **self.options))[0])

        bare = [size([], number) for number in range(CALLS)]
        one = [size([turn], 0) - bare[0] for turn in self.turns[:CALLS]]
        prefix = [0]
        for turn_size in one:
            prefix.append(prefix[-1] + turn_size)
        head = shared_prefix(prompt_order(self.payload(1, 0))[0],
                             prompt_order(self.payload(1, 1))[0])
        cache, rate = provider_cache(MODELS[self.dialect])
        minimum, write = cache.minimum_for(rate.model), next(iter(rate.writes.values()))[1]

        def tokens(count: int) -> int:
            return math.ceil(count / BYTES_PER_TOKEN)

        def bill(number: int, start: int, read_to: int) -> float:
            turns = prefix[number] - prefix[start]
            total = tokens(bare[number] + turns)
            if cache.automatic:
                if total < minimum:
                    return total * rate.input / 1e6
                cached = tokens(read_to)
                cached -= cached % rate.block
                cached = cached if cached >= minimum else 0
                written = total - cached
            else:
                marks = [mark for mark in (head, head + turns if turns else 0)
                         if mark and tokens(mark) >= minimum]
                cached = tokens(read_to) if read_to and tokens(read_to) >= minimum else 0
                written = max(0, tokens(marks[-1]) - cached) if marks else 0
            uncached = total - cached - written
            return (cached * rate.read + written * write + uncached) * rate.input / 1e6

        def held(number: int, start: int) -> float:
            last_turns = prefix[number - 1] - prefix[start]
            return bill(number, start, head + last_turns if last_turns else head)

        def moved(number: int, start: int) -> float:
            return bill(number, start, head if number else 0)

        return held, moved


def billed(payloads: list[bytes], dialect: str) -> float:
    return sum(item.cost for item in simulate_bill([(payload, SECONDS) for payload in payloads],
                                                   MODELS[dialect]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="*", default=["plain", "tools", "evidence"])
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, ledgerlab {version('ledgerlab')}; {machine()}")
    for dialect, model in MODELS.items():
        cache, rate = provider_cache(model)
        print(f"{dialect}: {model}, ${rate.input:.2f} per million input tokens, reads "
              f"{rate.read}x, writes {next(iter(rate.writes.values()))[1]}x, minimum "
              f"{cache.minimum_for(model)} tokens, blocks of {rate.block} (checked "
              f"{cache.checked}); {CALLS} calls {SECONDS:.0f} s apart, low_water {LOW_WATER}, "
              f"{BYTES_PER_TOKEN:.0f} bytes a token")
    print("billed input cost in US dollars (mean turns kept per request); target: cache-stable "
          "<= 1.10x the optimum and <= 0.35x the whole-turn rule")
    print("trim_messages: LangChain's, strategy=\"last\", start_on=\"human\", include_system=True, "
          "the same budget in bytes (a byte counter: a token counter would need a model's "
          "tokenizer); its x opt and x whole are information, not a target")
    print(f"{'conversation':<9} {'dialect':<19} {'budget':>7} | {'whole-turn':>15} | "
          f"{'cache-stable':>15} | {'trim_messages':>15} | {'optimum':>15} | {'x opt':>6} "
          f"{'x whole':>7}  target | trim: {'x opt':>6} {'x whole':>7}")
    started, within = time.perf_counter(), 0
    rows, trims = [], []
    for kind in args.kinds:
        for dialect in MODELS:
            for budget in BUDGETS:
                calls = Calls(kind, dialect, budget)
                whole = calls.whole_turn()
                stable = calls.cache_stable()
                trim_starts, trim_over = calls.trimmed()
                starts, best = calls.optimum(whole)
                costs = [billed([chosen.payload for chosen in whole], dialect),
                         billed([chosen.payload for chosen in stable], dialect),
                         billed([calls.payload(number, start)
                                 for number, start in enumerate(trim_starts)], dialect),
                         billed(best, dialect)]
                kept = [sum(chosen.kept for chosen in whole) / CALLS,
                        sum(chosen.kept for chosen in stable) / CALLS,
                        sum(number - start for number, start in enumerate(trim_starts)) / CALLS,
                        sum(number - start for number, start in enumerate(starts)) / CALLS]
                ratio_best, ratio_whole = costs[1] / costs[3], costs[1] / costs[0]
                ok = ratio_best <= 1.10 and ratio_whole <= 0.35
                within += ok
                cells = " | ".join(f"{cost:>8.2f} ({turns:>4.1f})"
                                   for cost, turns in zip(costs, kept))
                print(f"{kind:<9} {dialect:<19} {budget >> 10:>3} KiB | {cells} | "
                      f"{ratio_best:>5.2f}x {ratio_whole:>6.2f}x  "
                      f"{'within' if ok else 'OVER':<6} | {costs[2] / costs[3]:>11.2f}x "
                      f"{costs[2] / costs[0]:>6.2f}x", flush=True)
                moved = sum(start != chosen.dropped for start, chosen in zip(trim_starts, whole))
                trims.append(f"  information: {kind} {dialect} {budget >> 10} KiB, "
                             f"trim_messages kept different turns from the whole-turn rule in "
                             f"{moved} of {CALLS} calls; {trim_over} of its requests over the "
                             f"budget in the dialect's bytes")
                if kind == "evidence":
                    before = Calls(kind, dialect, budget)
                    before.options["evidence_after_turns"] = False
                    cost = billed([chosen.payload for chosen in before.cache_stable()], dialect)
                    rows.append(f"  information: {dialect} {budget >> 10} KiB, cache-stable with "
                                f"the evidence before the turns: {cost:.2f} "
                                f"({cost / costs[1]:.2f}x after them)")
    for row in trims + rows:
        print(row)
    total = len(args.kinds) * len(MODELS) * len(BUDGETS)
    print(f"{within} of {total} rows within target; {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
