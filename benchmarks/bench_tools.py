"""Side-by-side benchmark of select on tool and reasoning turns (issues 28, 36, 44): `make bench`.

Histories of seeded random turns: plain questions and answers, turns with one to three
rounds of one to three parallel tool calls, questions with a small image, and tool
schemas in every request; the current question has a tool round in progress. Beside
them, reasoning-heavy histories (a Reasoning belongs to one dialect): nine rounds in ten
open with the dialect's reasoning items (Anthropic thinking blocks with signatures of
200 B to 4 KB of base64, a tenth redacted_thinking; Responses reasoning items with
encrypted_content of the same sizes; openai-chat, which has none, gets the Responses
items and leaves them out, so its history is openai-responses' and is made once), half
of the rounds have the assistant's text beside the calls, a tenth of the results are
errors.

The target (issue 44), cold: select on turns it has never seen costs at most 3.0x one
dumps of the body it returns, at 10,000 and 100,000 turns, at 64 KiB and 512 KiB
budgets, in the three dialects, on the tool turns and on the reasoning-heavy turns. The
dumps is ENCODERS["gson"].dumps, the encoder whose bytes select measures, of the returned
body, its object prepared outside the timing (json.loads of the payload). select keeps
nothing between calls (ledgerlab/selector.py, ledgerlab/request.py: each call writes the
turns it reaches anew, in chunks of one dumps each), so every call is a call on turns it
has never seen, and repeated calls on one history time exactly that. (Earlier versions
timed repeated calls, which found each turn's bytes kept on it, and a first call apart on
turns copied afresh; those caches are gone, and so is the copying.)

Every ratio compares timings measured in this one run, on this machine, interleaved
(select, then the dumps, round after round, the order turned around every other round)
and taken as the median of the rounds. The times are the process's CPU time
(time.process_time; --wall for time.perf_counter): on a machine shared with other work,
wall time also counts the time the process waits for a core, which lands on whichever
call was running, and moved the same request's ratio by 4x between two rows of one run.

- the target's rows: select against the dumps at 10k and 100k turns (--sizes; the
  shorter history is the newest turns of the longer, so both return the same request),
  each marked within or OVER 3.0x;
- information, not a target: the same at a 4 KiB budget (a request of a few KB, where
  what every call does whatever it keeps weighs most), and with a 32,768-token limit
  (the byte budget wide), against the dumps and against one request_tokens of the
  returned request;
- LangChain's trim_messages (strategy="last", include_system=True, with and without
  start_on="human") on the same histories as LangChain messages, with a counter that
  gives the exact bytes of the same openai-chat request: its time per call at 100k
  turns beside select's, and, over many budgets, the share of its outputs that a
  provider refuses (ledgerlab.check_request, on the output converted to an openai-chat
  and an anthropic-messages body), beside select's share in the three dialects, which
  must be 0. langchain-ai/langchain#33245 (open) is that bug: without start_on, the kept
  suffix can begin with a tool result whose call was trimmed away.

Printed only: no results file (a check, not a chart).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import platform
import random
import statistics
import struct
import time
import timeit
from collections import Counter
from importlib.metadata import version

from ledgerlab import (DIALECTS, ENCODERS, AssistantText, Image, InvalidRequest, Reasoning, Tool,
                       ToolCall, ToolResult, Turn, check_request, request_body, request_tokens,
                       select)

SYSTEM = "Use only the supplied conversation and the tools' results."
CURRENT = 'Which client does project "ORCHID-7" need? 接口 🙂'
MODEL = "agnes-3.0-flash"
SIZES = (10_000, 100_000)  # history lengths, each the newest turns of the longest
SEED = 28
TARGET = 3.0  # select at most this many times one dumps of the body it returns (issue 44)
# The target's budgets: returned requests of about 64 KiB and 512 KiB (a hundred and a
# thousand messages or so); and 4 KiB (a dozen messages), measured as information.
BUDGETS = (64 * 1024, 512 * 1024)
INFO_BUDGETS = (4 * 1024,)
ROUNDS = 11  # interleaved rounds per row; their median
CLOCK = [time.process_time]  # what interleaved reads: CPU time, or wall time with --wall
RESERVE_TOKENS = 1024  # anthropic-messages' max_tokens (the reply's share): required there
MAX_TOKENS, TOKENIZER, WIDE_BYTES = 32_768, "o200k_base", 1 << 24
SHARE_BUDGETS = 400  # budgets for the invalid share, log-uniform up to the largest above
SHARE_TURNS = 5_000  # a tail longer than any budget keeps: the same result as the whole
gson = ENCODERS["gson"]
TOOLS = (
    Tool("lookup_project", "Look up a project by its code: its client, owner and status.",
         {"type": "object", "properties": {
             "code": {"type": "string", "description": "The project code, e.g. ORCHID-7"},
             "fields": {"type": "array", "items": {"type": "string"}}},
          "required": ["code"]}),
    Tool("search_docs", "Search the team's documents; returns the best passages.",
         {"type": "object", "properties": {
             "query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
          "required": ["query"]}),
    Tool("get_weather", "The weather in a city.",
         {"type": "object", "properties": {
             "city": {"type": "string"},
             "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
          "required": ["city"]}),
)
NAMES = [tool.name for tool in TOOLS]
FILLER = 'Use a Java 8 client: "ORCHID-7" 接口 🙂 line\n\tend. '


def tiny_png(width: int, height: int, pad: int) -> bytes:
    """A PNG signature and IHDR header (what Image reads), then ``pad`` bytes."""
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
            + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00" + bytes(pad))


def arguments(rng: random.Random, name: str, i: int) -> str:
    args = {"lookup_project": {"code": f"ORCHID-{i % 97}", "fields": ["client", "owner"]},
            "search_docs": {"query": f"release notes {i} 接口", "limit": rng.randint(1, 5)},
            "get_weather": {"city": "Zürich", "unit": "celsius"}}[name]
    # Compact, raw UTF-8: the converter below writes LangChain's args back the same way.
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


def filler(rng: random.Random, low: int, high: int) -> str:
    """``low`` to ``high`` characters of FILLER (multibyte characters and escapes included)."""
    size = rng.randint(low, high)
    start = rng.randrange(len(FILLER))
    return (FILLER * (size // len(FILLER) + 2))[start:start + size]


def base64_text(rng: random.Random, low: int, high: int) -> str:
    """``low`` to ``high`` characters of base64, as a signature or encrypted reasoning is."""
    size = rng.randint(low, high)
    return base64.b64encode(rng.randbytes(size)).decode()[:size]


def reasoning(rng: random.Random, dialect: str, tag: str) -> Reasoning:
    """One reasoning item as ``dialect``'s provider returns it: an Anthropic thinking block
    (a tenth of them redacted_thinking) or a Responses reasoning item with its
    encrypted_content; signatures and encrypted content of 200 B to 4 KB."""
    if dialect == "anthropic-messages":
        if rng.random() < 0.1:
            return Reasoning({"type": "redacted_thinking", "data": base64_text(rng, 400, 4000)},
                             dialect)
        return Reasoning({"type": "thinking", "thinking": filler(rng, 40, 800),
                          "signature": base64_text(rng, 200, 4000)}, dialect)
    summary = ([{"type": "summary_text", "text": filler(rng, 40, 400)}]
               if rng.random() < 0.5 else [])
    return Reasoning({"type": "reasoning", "id": f"rs_{tag}", "summary": summary,
                      "encrypted_content": base64_text(rng, 200, 4000)}, dialect)


def reasoning_dialect(dialect: str) -> str:
    """The dialect whose reasoning items a history for ``dialect`` holds: its own, and for
    openai-chat (which has none, and leaves every Reasoning out) the Responses API's."""
    return "openai-responses" if dialect == "openai-chat" else dialect


def make_reasoning_history(turns: int, dialect: str, seed: int = SEED) -> list[Turn]:
    """Seeded reasoning-heavy turns: 30% plain, 60% with 1-3 rounds of 1-3 parallel calls,
    10% with an image (half of them with rounds). Nine rounds in ten open with the
    dialect's reasoning, half have the assistant's text beside the calls, a tenth of the
    results are errors; the texts and calls carry the Responses API's item ids (written in
    openai-responses only, which pairs a reasoning item with the item after it by them).
    The turns are the same in every dialect but for the reasoning items (drawn from a
    generator of their own)."""
    rng, items = random.Random(seed), random.Random(seed + 1)
    kind_of = reasoning_dialect(dialect)
    images = [Image("image/png", tiny_png(rng.randint(64, 1024), rng.randint(64, 1024),
                                          rng.randint(200, 3000))) for _ in range(16)]
    history = []
    for i in range(turns):
        question = f"question {i}: " + filler(rng, 20, 180)
        kind = rng.random()
        if kind < 0.10:
            question = (question, rng.choice(images))
        steps = []
        if 0.10 <= kind < 0.70 or (kind < 0.10 and rng.random() < 0.5):
            for r in range(rng.randint(1, 3)):
                if rng.random() < 0.9:
                    steps.append(reasoning(items, kind_of, f"{i}_{r}"))
                if rng.random() < 0.5:
                    steps.append(AssistantText(filler(rng, 20, 200), f"msg_{i}_{r}"))
                calls = [ToolCall(f"call_{i}_{r}_{k}", name, arguments(rng, name, i),
                                  f"fc_{i}_{r}_{k}")
                         for k, name in enumerate(rng.choices(NAMES, k=rng.randint(1, 3)))]
                steps += calls
                steps += [ToolResult(call.id, filler(rng, 40, 300), is_error=True)
                          if rng.random() < 0.1 else
                          ToolResult(call.id, filler(rng, 2_000, 8_000) if rng.random() < 0.05
                                     else filler(rng, 40, 1_500)) for call in reversed(calls)]
        history.append(Turn(question, f"answer {i}\n" + filler(rng, 40, 400), tuple(steps)))
    return history


def make_history(turns: int, seed: int = SEED) -> list[Turn]:
    """Seeded turns: 45% plain, 45% with 1-3 rounds of 1-3 parallel calls, 10% with an
    image (any of them may have rounds); results of 40 B to 1.5 KB, a few of 2 to 8 KB."""
    rng = random.Random(seed)
    images = [Image("image/png", tiny_png(rng.randint(64, 1024), rng.randint(64, 1024),
                                          rng.randint(200, 3000))) for _ in range(16)]

    def text(low: int, high: int) -> str:
        return filler(rng, low, high)

    history = []
    for i in range(turns):
        question = f"question {i}: " + text(20, 180)
        kind = rng.random()
        if kind < 0.10:
            question = (question, rng.choice(images))
        steps = []
        if 0.10 <= kind < 0.55 or (kind < 0.10 and rng.random() < 0.5):
            for r in range(rng.randint(1, 3)):
                calls = [ToolCall(f"call_{i}_{r}_{k}", name, arguments(rng, name, i))
                         for k, name in enumerate(rng.choices(NAMES, k=rng.randint(1, 3)))]
                steps += calls
                steps += [ToolResult(call.id, text(2_000, 8_000) if rng.random() < 0.05
                                     else text(40, 1_500)) for call in reversed(calls)]
        history.append(Turn(question, f"answer {i}\n" + text(40, 400), tuple(steps)))
    return history


# The turn in progress: the model called a tool for the current question, its result is in.
CURRENT_STEPS = (ToolCall("call_now_0", "lookup_project",
                          '{"code":"ORCHID-7","fields":["client"]}'),
                 ToolResult("call_now_0", '{"client":"Java 8","owner":"Ana"}'))


def current_reasoning_steps(dialect: str) -> tuple:
    """The turn in progress of a reasoning-heavy history: reasoning, text, a call, its result."""
    item = reasoning(random.Random(SEED + 2), reasoning_dialect(dialect), "now")
    call = CURRENT_STEPS[0]
    return (item, AssistantText("Let me look that project up.", "msg_now"),
            ToolCall(call.id, call.name, call.arguments, "fc_now_0"), CURRENT_STEPS[1])


# Fields an application adds to every request, measured with the rest (issue 46's extra=):
# the cold ratios are measured with them (LangChain's bodies, compared byte for byte, have none).
APPLICATION_FIELDS = {"stream": True, "temperature": 0.2}


def options(dialect: str, current_steps: tuple = CURRENT_STEPS) -> dict:
    extra = {"reserve_tokens": RESERVE_TOKENS} if dialect == "anthropic-messages" else {}
    return dict(dialect=dialect, tools=TOOLS, current_steps=current_steps, model=MODEL, **extra)


def interleaved(*calls, rounds: int = ROUNDS, block: float = 0.005) -> list[float]:
    """Median per-call times of calls timed in alternation, round after round (the order
    turns around every other round), so that a burst of load on a shared machine slows
    them all, not only whichever ran during it. Each call is looped for about ``block``
    seconds a round, sized from one call made first. The clock is CLOCK's: by default the
    process's CPU time."""
    timers = [timeit.Timer(call, timer=CLOCK[0]) for call in calls]
    numbers = [max(1, math.ceil(block / max(timer.timeit(1), 1e-7))) for timer in timers]
    times: list[list[float]] = [[] for _ in calls]
    order = list(range(len(calls)))
    for round_ in range(rounds):
        for index in (order if round_ % 2 == 0 else order[::-1]):
            times[index].append(timers[index].timeit(numbers[index]) / numbers[index])
    return [statistics.median(each) for each in times]


def bench_select(history: list[Turn], dialect: str, current_steps: tuple, label: str,
                 tokens: bool = True, rounds: int = ROUNDS) -> list[dict]:
    """select on ``history`` in ``dialect`` for each budget against one dumps of the body
    it returns; then, with a token limit, against that dumps and one request_tokens."""
    rows = []
    opts = dict(options(dialect, current_steps), extra=APPLICATION_FIELDS)
    tag = {"dialect": dialect, "history": label, "turns": len(history)}
    for budget in INFO_BUDGETS + BUDGETS:
        chosen = select(SYSTEM, history, CURRENT, budget, **opts)
        check_request(chosen.payload, dialect)
        body = json.loads(chosen.payload)
        assert gson.dumps(body) == chosen.payload
        kept = history[len(history) - chosen.kept:]
        assert body == request_body(SYSTEM, kept, CURRENT, **opts)
        select_s, dumps_s = interleaved(
            lambda: select(SYSTEM, history, CURRENT, budget, **opts),
            lambda: gson.dumps(body), rounds=rounds)
        rows.append({**tag, "limit": f"{budget // 1024} KiB", "target": budget in BUDGETS,
                     "kept": chosen.kept, "messages": len(body.get("messages") or body["input"]),
                     "bytes": chosen.size, "select_s": select_s, "dumps_s": dumps_s})
    if not tokens:
        return rows
    # The token limit binds (the byte budget is wide): select counts each turn it reaches.
    token_opts = dict(opts, max_tokens=MAX_TOKENS, reserve_tokens=RESERVE_TOKENS,
                      tokenizer=TOKENIZER)
    chosen = select(SYSTEM, history, CURRENT, WIDE_BYTES, **token_opts)
    check_request(chosen.payload, dialect)
    assert chosen.size < WIDE_BYTES and chosen.kept < len(history)
    body = json.loads(chosen.payload)
    kept = history[len(history) - chosen.kept:]

    def count():
        return request_tokens(SYSTEM, kept, CURRENT, tokenizer=TOKENIZER, tools=TOOLS,
                              current_steps=current_steps, dialect=dialect, model=MODEL,
                              extra=APPLICATION_FIELDS)
    assert chosen.tokens == count()
    select_s, dumps_s, count_s = interleaved(
        lambda: select(SYSTEM, history, CURRENT, WIDE_BYTES, **token_opts),
        lambda: gson.dumps(body), count, rounds=rounds)
    rows.append({**tag, "limit": f"{MAX_TOKENS // 1024}k tok", "target": False,
                 "kept": chosen.kept, "messages": len(body.get("messages") or body["input"]),
                 "bytes": chosen.size, "tokens": chosen.tokens, "select_s": select_s,
                 "dumps_s": dumps_s, "count_s": count_s})
    return rows


def bench_histories(tools_history: list[Turn], sizes: list[int], tokens: bool,
                    rounds: int = ROUNDS) -> list[dict]:
    """bench_select at each size (the newest turns of the longest history) in each dialect,
    on the tool turns and on reasoning-heavy turns. Each history is made once: the tool
    turns serve the three dialects, and openai-chat's reasoning-heavy turns are
    openai-responses' (the same Responses items, which openai-chat leaves out)."""
    rows = []
    groups = [("tools", tools_history, DIALECTS)]
    for kind in dict.fromkeys(map(reasoning_dialect, DIALECTS)):
        groups.append(("reasoning", kind, [d for d in DIALECTS if reasoning_dialect(d) == kind]))
    for label, history, dialects in groups:
        if label == "reasoning":
            started = time.perf_counter()
            history = make_reasoning_history(max(sizes), history)
            print(f"  {len(history):,} reasoning-heavy turns for {', '.join(dialects)} made in "
                  f"{time.perf_counter() - started:.1f} s", flush=True)
        for dialect in dialects:
            steps = CURRENT_STEPS if label == "tools" else current_reasoning_steps(dialect)
            for size in sizes:
                rows += bench_select(history[-size:], dialect, steps, label, tokens, rounds)
                print(f"  measured {label} {dialect} at {size:,} turns", flush=True)
        del history
    return rows


# LangChain: the same histories as its messages, trim_messages, and its output back to a body.

def to_langchain(history: list[Turn], system: str = SYSTEM, current=CURRENT,
                 current_steps: tuple = CURRENT_STEPS) -> list:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    def human(question) -> HumanMessage:
        if isinstance(question, str):
            return HumanMessage(question)
        return HumanMessage([{"type": "text", "text": part} if isinstance(part, str) else
                             {"type": "image_url", "image_url": {
                                 "url": f"data:{part.media_type};base64,{part.base64}"}}
                             for part in question])

    def rounds(turn_rounds) -> list:
        result = []
        for calls, results in turn_rounds:
            result.append(AIMessage("", tool_calls=[
                {"name": call.name, "args": call.input, "id": call.id} for call in calls]))
            result += [ToolMessage(answer.content, tool_call_id=answer.call_id)
                       for answer in results]
        return result

    chat = [SystemMessage(system)]
    for turn in history:
        chat.append(human(turn.question))
        chat += rounds(turn.rounds)
        chat.append(AIMessage(turn.answer))
    chat.append(human(current))
    chat += rounds(Turn(current, "-", current_steps).rounds)
    return chat


def openai_message(message) -> dict:
    """One LangChain message as an openai-chat message (ledgerlab's shapes)."""
    kind = message.type
    if kind == "system":
        return {"role": "system", "content": message.content}
    if kind == "human":
        return {"role": "user", "content": message.content}
    if kind == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.tool_calls:
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": call["id"], "type": "function", "function": {
                "name": call["name"],
                "arguments": json.dumps(call["args"], ensure_ascii=False, separators=(",", ":"))}}
            for call in message.tool_calls]}
    return {"role": "assistant", "content": message.content}


def openai_tools(tools: tuple = TOOLS) -> list[dict]:
    return [{"type": "function", "function": {"name": tool.name, "description": tool.description,
                                              "parameters": tool.schema}} for tool in tools]


def to_openai_body(messages: list, tools: tuple = TOOLS) -> dict:
    return {"model": MODEL, "messages": [openai_message(m) for m in messages],
            "tools": openai_tools(tools)}


def to_anthropic_body(messages: list) -> dict:
    """The same messages as an anthropic-messages body: the system message a field, each
    tool round's results (consecutive ToolMessages) one user message of tool_result blocks."""
    system, out = None, []
    for message in messages:
        kind = message.type
        if kind == "system":
            system = message.content
        elif kind == "human":
            content = message.content
            if not isinstance(content, str):
                content = [block if block["type"] == "text" else {
                    "type": "image", "source": {
                        "type": "base64",
                        "media_type": block["image_url"]["url"][5:].split(";", 1)[0],
                        "data": block["image_url"]["url"].split(",", 1)[1]}}
                    for block in content]
            out.append({"role": "user", "content": content})
        elif kind == "tool":
            block = {"type": "tool_result", "tool_use_id": message.tool_call_id,
                     "content": message.content}
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list) and (
                    out[-1]["content"] and out[-1]["content"][0]["type"] == "tool_result"):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif message.tool_calls:
            out.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["args"]}
                for call in message.tool_calls]})
        else:
            out.append({"role": "assistant", "content": message.content})
    return {"model": MODEL, "max_tokens": RESERVE_TOKENS, "system": system, "messages": out,
            "tools": [{"name": tool.name, "description": tool.description,
                       "input_schema": tool.schema} for tool in TOOLS]}


def byte_counter(chat: list, tools: tuple = TOOLS):
    """trim_messages' token_counter in bytes of the openai-chat request: the system message
    alone counts the request with no other message (envelope, system, tools); any other
    batch counts each message's bytes and its separator, so the two add up to the exact
    request. Each message's bytes are computed here, before any timing: the time measured
    is trim_messages' own, not the serializing."""
    system = chat[0]
    alone = len(gson.dumps(to_openai_body([system], tools)))
    sizes = {id(m): len(gson.dumps(openai_message(m))) + 1 for m in chat[1:]}
    size_of = sizes.__getitem__

    def count(batch) -> int:
        if batch and batch[0] is system:
            return alone + sum(map(size_of, map(id, batch[1:])))
        return sum(map(size_of, map(id, batch)))
    return count


def trimmer(chat: list, tools: tuple = TOOLS):
    from langchain_core.messages import trim_messages

    count = byte_counter(chat, tools)

    def trim(budget: int, start_on: str | None):
        return trim_messages(chat, max_tokens=budget, token_counter=count, strategy="last",
                             include_system=True, start_on=start_on)
    return trim


# The dialects trim_messages' output is converted to (the bench's converters below).
CONVERTED = ("openai-chat", "anthropic-messages")


def refusal(body: dict, dialect: str) -> str | None:
    """The rule check_request names for ``body``, or None if it passes."""
    try:
        check_request(gson.dumps(body), dialect)
    except InvalidRequest as error:
        return error.rule
    return None


def bench_trim_time(history: list[Turn], chat: list) -> list[dict]:
    """trim_messages at the full history's size, timed in alternation with select on the
    same budgets (openai-chat)."""
    trim = trimmer(chat)
    rows = []
    opts = options("openai-chat")
    for budget in INFO_BUDGETS + BUDGETS:
        chosen = select(SYSTEM, history, CURRENT, budget, **opts)
        # The same rule on the same bytes: trim_messages with start_on keeps the same turns.
        assert gson.dumps(to_openai_body(trim(budget, "human"))) == chosen.payload
        select_s, trim_s, trim_human_s = interleaved(
            lambda: select(SYSTEM, history, CURRENT, budget, **opts),
            lambda: trim(budget, None), lambda: trim(budget, "human"), rounds=3)
        rows.append({"limit": f"{budget // 1024} KiB", "kept": chosen.kept, "select_s": select_s,
                     "trim_s": trim_s, "trim_human_s": trim_human_s})
        print(f"  timed trim_messages at {budget // 1024} KiB", flush=True)
    return rows


def bench_share(history: list[Turn], budgets: list[int]) -> dict:
    """Over many budgets: which outputs of trim_messages (converted to each dialect's body)
    and of select a provider refuses, by rule."""
    chat = to_langchain(history)
    trim = trimmer(chat)
    result = {"budgets": len(budgets)}
    failures = {(who, dialect): Counter() for who in ("trim", "trim_human", "select")
                for dialect in DIALECTS}
    starts = Counter()
    for budget in budgets:
        outputs = {"trim": trim(budget, None), "trim_human": trim(budget, "human")}
        first = outputs["trim"][1] if len(outputs["trim"]) > 1 else None
        starts[type(first).__name__ + (" with tool_calls" if getattr(first, "tool_calls", None)
                                       else "")] += 1
        for who, kept in outputs.items():
            for dialect, convert in zip(CONVERTED, (to_openai_body, to_anthropic_body)):
                rule = refusal(convert(kept), dialect)
                if rule:
                    failures[who, dialect][rule] += 1
        for dialect in DIALECTS:
            chosen = select(SYSTEM, history, CURRENT, budget, **options(dialect))
            assert chosen.kept < len(history), "the tail must be longer than any budget keeps"
            try:
                check_request(chosen.payload, dialect)
            except InvalidRequest as error:
                failures["select", dialect][error.rule] += 1
            if dialect == "openai-chat":  # start_on="human" keeps the same turns as select
                assert gson.dumps(to_openai_body(outputs["trim_human"])) == chosen.payload
    result["failures"] = failures
    result["starts"] = starts
    return result


CLOCK_NAME = {time.process_time: "CPU", time.perf_counter: "wall"}


def load() -> str:
    """The load averages (1, 5 and 15 minutes): the machine may be shared."""
    return "load average %.2f, %.2f, %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else ""


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info
                          if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{platform.machine()} {model}, {os.cpu_count()} cores, {load()}"


def over(ratio: float) -> str:
    return "within" if ratio <= TARGET else "OVER"


def print_report(select_rows, trim_rows, share, turns: int, rounds: int) -> None:
    sizes = sorted({row["turns"] for row in select_rows})
    groups: dict[tuple, dict[int, dict]] = {}
    rank = {"tools": 0, "reasoning": 1}
    for row in sorted(select_rows, key=lambda row: (rank[row["history"]],
                                                    DIALECTS.index(row["dialect"]))):
        groups.setdefault((row["history"], row["dialect"], row["limit"]), {})[row["turns"]] = row
    for key, by_size in groups.items():  # the newest turns of one history: the same request
        assert len({(row["kept"], row["bytes"]) for row in by_size.values()}) == 1, key

    def us(row: dict, key: str) -> str:
        return f"{row[key] * 1e6:>9,.1f}"

    def ratio(row: dict, top: str = "select_s", bottom: str = "dumps_s") -> str:
        return f"{row[top] / row[bottom]:>7.2f}x"

    def table(keys: list, marked: bool) -> None:
        mark = f" {'<=3.0x':<6}" if marked else ""
        print(f"{'history':<9} {'dialect':<18} {'limit':>7} {'kept':>5} {'msgs':>5} "
              f"{'bytes':>8}" + "".join(f" | {f'{size:,}: select':>17} {'dumps':>9} {'ratio':>8}"
                                        + mark for size in sizes))
        for key in keys:
            by_size = groups[key]
            first = by_size[sizes[0]]
            print(f"{key[0]:<9} {key[1]:<18} {key[2]:>7} {first['kept']:>5} "
                  f"{first['messages']:>5} {first['bytes']:>8,}" + "".join(
                      f" | {us(row, 'select_s'):>17} {us(row, 'dumps_s')} {ratio(row)}"
                      + (f" {over(row['select_s'] / row['dumps_s']):<6}" if marked else "")
                      for row in (by_size[size] for size in sizes)))

    target = [key for key, by_size in groups.items() if by_size[sizes[0]]["target"]]
    info = [key for key, by_size in groups.items()
            if not by_size[sizes[0]]["target"] and "count_s" not in by_size[sizes[0]]]
    tokens = [key for key, by_size in groups.items() if "count_s" in by_size[sizes[0]]]
    print()
    print(f"select on turns it has never seen against one gson dumps of the body it returns "
          f"(median of {rounds} interleaved rounds, {CLOCK_NAME[CLOCK[0]]} microseconds per "
          f"call), at "
          + " and ".join(f"{size:,}" for size in sizes) + " turns side by side")
    print(f"target (issue 44): select <= {TARGET:.1f}x the dumps, at "
          + " and ".join(f"{budget // 1024} KiB" for budget in BUDGETS)
          + "; tools: the tool turns; reasoning: reasoning-heavy turns, each dialect's own items")
    table(target, marked=True)
    cells = [(key, row) for key in target for row in groups[key].values()]
    overs = [(key, row) for key, row in cells if row["select_s"] / row["dumps_s"] > TARGET]
    print(f"{len(cells) - len(overs)} of {len(cells)} within {TARGET:.1f}x" + (
        "; over: " + "; ".join(
            f"{key[0]} {key[1]} {key[2]} at {row['turns']:,} turns "
            f"{row['select_s'] / row['dumps_s']:.2f}x "
            f"(+{100 * (row['select_s'] / row['dumps_s'] / TARGET - 1):.0f}%)"
            for key, row in overs) if overs else ""))
    if info:
        print()
        print("information, not a target: the same at "
              + " and ".join(f"{budget // 1024} KiB" for budget in INFO_BUDGETS))
        table(info, marked=False)
    if tokens:
        print()
        print(f"information, not a target: with a {MAX_TOKENS:,}-token limit "
              f"({RESERVE_TOKENS:,} reserved, {TOKENIZER}, the byte budget wide): select "
              f"against one request_tokens of the returned request (count) and the dumps")
        print(f"{'history':<9} {'dialect':<18} {'kept':>5} {'tokens':>7} {'bytes':>8}" + "".join(
            f" | {f'{size:,}: select':>17} {'count':>9} {'sel/cnt':>8} {'sel/dmp':>8}"
            for size in sizes))
        for key in tokens:
            by_size = groups[key]
            first = by_size[sizes[0]]
            print(f"{key[0]:<9} {key[1]:<18} {first['kept']:>5} {first['tokens']:>7,} "
                  f"{first['bytes']:>8,}" + "".join(
                      f" | {us(row, 'select_s'):>17} {us(row, 'count_s')} "
                      f"{ratio(row, 'select_s', 'count_s')} {ratio(row)}"
                      for row in (by_size[size] for size in sizes)))
    if trim_rows:
        print()
        print(f"trim_messages (strategy=\"last\", include_system=True) at {turns:,} turns, "
              f"openai-chat bytes (median of 3 interleaved rounds, {CLOCK_NAME[CLOCK[0]]} "
              f"milliseconds per call)")
        print(f"{'limit':>9} {'kept':>5} {'select':>9} {'trim':>10} {'trim/sel':>9} "
              f"{'+start_on':>10} {'trim/sel':>9}")
        for row in trim_rows:
            print(f"{row['limit']:>9} {row['kept']:>5} {row['select_s'] * 1e3:>9.3f} "
                  f"{row['trim_s'] * 1e3:>10,.1f} {row['trim_s'] / row['select_s']:>8,.0f}x "
                  f"{row['trim_human_s'] * 1e3:>10,.1f} {row['trim_human_s'] / row['select_s']:>8,.0f}x")
    if share is None:
        return
    print()
    total = share["budgets"]
    print(f"refused by check_request over {total} budgets (log-uniform, mandatory input to "
          f"{BUDGETS[-1] // 1024} KiB); the rule named")
    labels = {"trim": "trim_messages", "trim_human": 'trim_messages start_on="human"',
              "select": "ledgerlab select"}
    for who in ("trim", "trim_human", "select"):
        for dialect in (DIALECTS if who == "select" else CONVERTED):
            failures = share["failures"][who, dialect]
            refused = sum(failures.values())
            rules = ", ".join(f"{rule} {n}" for rule, n in failures.most_common()) or "-"
            print(f"  {labels[who]:<31} {dialect:<19} {refused:>4}/{total} "
                  f"{100 * refused / total:>5.1f}%  {rules}")
    starts = ", ".join(f"{name} {n}" for name, n in share["starts"].most_common())
    print(f"  (trim_messages without start_on: first message after the system one: {starts})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="history lengths, comma-separated (default %(default)s)")
    parser.add_argument("--budgets", type=int, default=SHARE_BUDGETS,
                        help="budgets for the invalid share")
    parser.add_argument("--rounds", type=int, default=ROUNDS,
                        help="interleaved rounds per row (default %(default)s)")
    parser.add_argument("--wall", action="store_true",
                        help="time wall time (time.perf_counter), not the process's CPU time")
    parser.add_argument("--no-tokens", action="store_true", help="leave out the token-limit rows")
    parser.add_argument("--no-langchain", action="store_true",
                        help="leave out trim_messages and the refusal share")
    args = parser.parse_args()
    if args.wall:
        CLOCK[0] = time.perf_counter
    sizes = sorted({int(size) for size in args.sizes.split(",")})
    turns = sizes[-1]
    peer = "" if args.no_langchain else f", langchain-core {version('langchain-core')}"
    print(f"Python {platform.python_version()}{peer}, ledgerlab {version('ledgerlab')}; "
          f"{machine()}")
    started = time.perf_counter()
    history = make_history(turns)
    print(f"{turns:,} turns made in {time.perf_counter() - started:.1f} s; "
          f"{sum(bool(t.steps) for t in history):,} with tool rounds, "
          f"{sum(bool(t.images) for t in history):,} with an image", flush=True)
    print("select ...", flush=True)
    select_rows = bench_histories(history, sizes, not args.no_tokens, args.rounds)
    trim_rows, share = [], None
    if not args.no_langchain:
        print("trim_messages ...", flush=True)
        chat = to_langchain(history)
        print(f"  {len(chat):,} LangChain messages", flush=True)
        trim_rows = bench_trim_time(history, chat)
        del chat
        print("refusals over many budgets ...", flush=True)
        rng = random.Random(SEED)
        mandatory = max(len(select(SYSTEM, [], CURRENT, WIDE_BYTES, **options(d)).payload)
                        for d in DIALECTS)
        budgets = sorted(round(math.exp(rng.uniform(math.log(mandatory),
                                                    math.log(BUDGETS[-1]))))
                         for _ in range(args.budgets))
        share = bench_share(history[-min(SHARE_TURNS, len(history)):], budgets)
    print_report(select_rows, trim_rows, share, turns, args.rounds)
    print(f"\n(whole run {time.perf_counter() - started:.0f} s; at its end, {load()})")


if __name__ == "__main__":
    main()
