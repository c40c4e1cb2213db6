"""12 · Prompt caching: a prefix the provider can keep. What a provider's cache keeps, what a
trim that moves the first kept turn costs, the cache-stable rule
(``select(previous=, low_water=)``) and why a request missed (``first_difference``,
``ledgerlab prefix``).

Here are the lesson's conversation, its schedules and their bills, its predictions and quiz,
its explorer's settings (``widgets.CacheExplorer`` shows them, ``cachecharts`` draws them) and
exercise 12's checker, on a conversation of each student's own (``exercise_inputs``). Every
figure is the library's: ``select`` builds each request, ``simulate_bill`` bills it by its
provider's documented rule, and the prices and multipliers are read from each dialect
module's data (``provider_cache``), a dated snapshot with its source, never typed in here.
Nothing here draws: it imports no plotting package.

The conversation is made of English words drawn by SHA-256 (``conversation``), so that a
student's kernel and the grader make the same one on every Python. Call ``n`` sends the turns
before it and turn ``n``'s question, ``SECONDS`` after the call before; tokens are the
simulated bill's, bytes / 4.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from ledgerlab import (BilledRequest, Selection, Turn, first_difference, provider_cache, select,
                       simulate_bill)

from ..display import PlainText
from ..feedback import (Discussion, Exercise, Feedback, Question, Questionnaire, as_integral,
                        correct, not_whole, wrong)
from ..syllabus import heading

NUMBER = 12  # the lesson's notebook
MODEL = "claude-opus-4-8"  # the lesson's model: Anthropic's, whose writes cost more than input
CHEAP_MODEL = "claude-haiku-4-5"  # the price table's cheapest, with the largest minimum
OPENAI_MODEL = "gpt-5.4"  # an OpenAI model of the price table: 128-token blocks
DIALECT = "anthropic-messages"
PREFIX_DIALECT = "openai-chat"  # section 4: no cache marks in the body, so bytes are the cache's
CALLS = 40
BUDGET = 24_000  # bytes: full within the first quarter of the calls (Run.full_from), so
# most of the conversation is trimmed
LOW_WATER = 0.6  # select's default
SECONDS = 30.0  # between two calls: well inside every cache's lifetime
WHOLE_TURN, CACHE_STABLE = "whole-turn", "cache-stable"
# Section 4's pair of calls: a call the cache-stable rule sends on the same first kept turn as
# the call before, where the whole-turn rule moves it (tests/course/test_prompt_caching.py).
PREFIX_CALL = 31
# The explorer's slider: low_water from a tenth of the budget to all of it.
SLIDER = {"min": 0.1, "max": 1.0, "step": 0.05, "value": LOW_WATER}

WORDS = ("the ledger keeps every turn durable while each request is a projection of it under "
         "a budget of bytes so older turns are dropped whole and never cut in half a provider "
         "caches the literal prefix of what it read and bills it again at a tenth of the price "
         "when the next request starts with the same bytes").split()
SYSTEM_HEAD = "You are a careful assistant. Answer from this conversation only. "


def _draw(label: str, below: int) -> int:
    """A number in ``range(below)`` drawn from ``label`` by SHA-256 (not ``random``: the
    same on every Python, in a student's kernel and in the grader)."""
    return int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "big") % below


def _text(label: str, low: int, high: int) -> str:
    """Words drawn from ``label``, about ``low`` to ``high`` characters."""
    size, words = low + _draw(f"{label}:size", high - low + 1), []
    while sum(map(len, words)) + len(words) < size:
        words.append(WORDS[_draw(f"{label}:{len(words)}", len(WORDS))])
    return " ".join(words)


def conversation(seed: str, calls: int = CALLS) -> tuple[str, tuple[Turn, ...]]:
    """A system prompt of about 5 KB (above every model's minimum but Haiku's) and ``calls``
    turns of 0.8 to 2.8 KB, made from ``seed``: call ``n`` sends ``turns[:n]`` and
    ``turns[n].question``."""
    system = SYSTEM_HEAD + _text(f"{seed}:system", 5_000, 5_400)
    return system, tuple(Turn(f"Step {n + 1}: " + _text(f"{seed}:q{n}", 150, 600),
                              _text(f"{seed}:a{n}", 600, 2_200)) for n in range(calls))


SYSTEM, TURNS = conversation("lesson")


# --- The schedules and their bills --------------------------------------------------------

def schedule(rule: str, *, low_water: float = LOW_WATER, system: str = SYSTEM,
             turns: Sequence[Turn] = TURNS, budget: int = BUDGET,
             dialect: str = DIALECT) -> list[Selection]:
    """The request of every call: ``select`` every call (``"whole-turn"``), or with the last
    call's Selection as ``previous=`` (``"cache-stable"``). In Anthropic's dialect with its
    cache marks (``cache_breakpoints=True``), which it caches nothing without."""
    if rule not in (WHOLE_TURN, CACHE_STABLE):
        raise ValueError(f"rule must be {WHOLE_TURN!r} or {CACHE_STABLE!r}")
    marks = {"cache_breakpoints": True} if dialect == DIALECT else {}
    chosen: list[Selection] = []
    for number in range(len(turns)):
        stable = {"previous": chosen[-1] if chosen else None,
                  "low_water": low_water} if rule == CACHE_STABLE else {}
        chosen.append(select(system, turns[:number], turns[number].question, budget,
                             dialect=dialect, **marks, **stable))
    return chosen


def billed(selections: Sequence[Selection], model: str = MODEL) -> list[BilledRequest]:
    """Each call's bill, ``SECONDS`` after the call before, by ``model``'s provider's rule."""
    return simulate_bill([(chosen.payload, SECONDS) for chosen in selections], model)


def first_kept(selections: Sequence[Selection]) -> list[int]:
    """Each call's first kept turn (its index in the history)."""
    return [chosen.dropped for chosen in selections]


def cuts(selections: Sequence[Selection]) -> int:
    """How many calls moved the first kept turn: a call whose first kept turn is not the call
    before's (the whole history after the system is then new to the cache)."""
    starts = first_kept(selections)
    return sum(one != other for one, other in zip(starts, starts[1:]))


@dataclass(frozen=True)
class Run:
    """One schedule of the lesson's conversation, billed: ``low_water`` None for the
    whole-turn rule."""

    low_water: float | None
    selections: tuple[Selection, ...]
    bill: tuple[BilledRequest, ...]
    model: str = MODEL

    @property
    def cost(self) -> float:
        """The conversation's billed input, US dollars."""
        return sum(item.cost for item in self.bill)

    @property
    def cuts(self) -> int:
        return cuts(self.selections)

    @property
    def cached(self) -> int:
        return sum(item.cached for item in self.bill)

    @property
    def mean_kept(self) -> float:
        return sum(chosen.kept for chosen in self.selections) / len(self.selections)

    @property
    def full_from(self) -> int:
        """The first call the budget drops a turn at (0 if it never does)."""
        return next((at for at, chosen in enumerate(self.selections) if chosen.dropped), 0)

    @property
    def fewest_kept_when_full(self) -> int:
        """The fewest turns a call keeps once the budget has first dropped one (every call's
        fewest if it never did)."""
        return min(chosen.kept for chosen in self.selections[self.full_from:])

    def differs_from(self, other: Run) -> int:
        """How many calls send other bytes than ``other``'s."""
        return sum(mine.payload != theirs.payload
                   for mine, theirs in zip(self.selections, other.selections))


@lru_cache(maxsize=64)
def run(low_water: float | None = None, model: str = MODEL) -> Run:
    """The lesson's conversation under the whole-turn rule (``low_water`` None) or the
    cache-stable rule at ``low_water``, billed for ``model``."""
    chosen = (schedule(WHOLE_TURN) if low_water is None
              else schedule(CACHE_STABLE, low_water=low_water))
    return Run(low_water, tuple(chosen), tuple(billed(chosen, model)), model)


def slider_settings() -> list[float]:
    """Every low_water the explorer's slider offers, lowest first."""
    steps = round((SLIDER["max"] - SLIDER["min"]) / SLIDER["step"])
    return [round(SLIDER["min"] + step * SLIDER["step"], 2) for step in range(steps + 1)]


def empty_cut_low_water() -> float | None:
    """The largest low_water on the slider at which a cut of the lesson's conversation leaves
    no turn at all (None if none does)."""
    empty = [low_water for low_water in slider_settings()
             if run(low_water).fewest_kept_when_full == 0]
    return max(empty, default=None)


def cents(dollars: float) -> str:
    return f"{100 * dollars:.1f} cents"


def summary(stable: Run, whole: Run) -> PlainText:
    """The explorer's text: both schedules' bills, cuts and turns kept."""
    calls = len(stable.selections)
    return PlainText(
        f"low_water {stable.low_water:.2f} ({round(stable.low_water * BUDGET):,} of "
        f"{BUDGET:,} bytes after a cut): billed {cents(stable.cost)} for {calls} calls, "
        f"the first kept turn moved at {stable.cuts} of them, {stable.mean_kept:.1f} turns "
        f"kept on average (at least {stable.fewest_kept_when_full} once the budget is full)\n"
        f"  whole-turn rule: {cents(whole.cost)}, moved at {whole.cuts}, "
        f"{whole.mean_kept:.1f} turns kept on average; calls whose bytes differ from it: "
        f"{stable.differs_from(whole)} of {calls}")


# --- The providers' caches, as their dialect modules give them -----------------------------

PROVIDERS = {DIALECT: MODEL, "openai-chat and openai-responses": OPENAI_MODEL}


def snapshot() -> PlainText:
    """Where each provider's figures come from and when they were read: a dated snapshot."""
    lines = []
    for dialects, model in PROVIDERS.items():
        cache, _ = provider_cache(model)
        lines.append(f"{dialects}: read on {cache.checked} from {cache.source}")
    return PlainText("\n".join(lines))


def price_table() -> list[dict]:
    """One row per priced model: its input price, what a cached token and a written one cost
    (multiples of the input price, per lifetime), its minimum and its block."""
    rows = []
    for dialects, model in PROVIDERS.items():
        cache, _ = provider_cache(model)
        for rate in cache.rates:
            rows.append({
                "model": rate.model, "dialect": dialects.split(" ")[0],
                "input $ per M tokens": rate.input, "read x": rate.read,
                "write x (lifetime)": ", ".join(f"{multiple:g} ({name}, {seconds // 60:,} min)"
                                                for name, (seconds, multiple)
                                                in rate.writes.items()),
                "minimum tokens": cache.minimum_for(rate.model), "block tokens": rate.block,
                "marks needed": not cache.automatic})
    return rows


def write_multiple(model: str = MODEL, lifetime: str | None = None) -> float:
    """What a written token costs, as a multiple of the input price (the default lifetime's)."""
    _, rate = provider_cache(model)
    return rate.writes[lifetime or next(iter(rate.writes))][1]


def read_multiple(model: str = MODEL) -> float:
    return provider_cache(model)[1].read


def lifetime_minutes(model: str, lifetime: str | None = None) -> int:
    """How long ``model``'s cache keeps an entry after its last use (the default lifetime's)."""
    _, rate = provider_cache(model)
    return rate.writes[lifetime or next(iter(rate.writes))][0] // 60


def minimum(model: str) -> int:
    """The fewest tokens ``model`` caches a prefix of."""
    return provider_cache(model)[0].minimum_for(model)


def block(model: str) -> int:
    return provider_cache(model)[1].block


# --- Section 4: where two requests part ----------------------------------------------------

@lru_cache(maxsize=None)
def prefix_pair(rule: str) -> tuple[bytes, bytes]:
    """Calls ``PREFIX_CALL - 1`` and ``PREFIX_CALL`` of the lesson's conversation in
    ``openai-chat`` (no marks in its bodies: what differs is what the cache sees)."""
    chosen = schedule(rule, dialect=PREFIX_DIALECT)
    return chosen[PREFIX_CALL - 1].payload, chosen[PREFIX_CALL].payload


# --- The predictions ----------------------------------------------------------------------

def _mean_turn_kb() -> float:
    """A turn's text, on average, in kilobytes (its question and answer as UTF-8)."""
    sizes = [len(turn.question.encode()) + len(turn.answer.encode()) for turn in TURNS]
    return sum(sizes) / len(sizes) / 1000


def _call_one_cached(model: str) -> int:
    """What call 1 of the whole-turn schedule reads from the cache, billed for ``model``."""
    return billed(run().selections[:2], model)[1].cached


predict12_model = Question(
    f"Send the same first two calls to {CHEAP_MODEL}, the price table's cheapest model, "
    f"instead of {MODEL}. How many tokens does call 1 read from the cache?",
    lambda: _call_one_cached(CHEAP_MODEL),
    explanation=f"{CHEAP_MODEL}'s minimum is {minimum(CHEAP_MODEL):,} tokens: a prefix "
                "shorter than its model family's minimum is neither written nor read, and no "
                "error says so. The request is billed in full, at the input price, call after "
                "call.",
    hint="a provider caches a prefix only from its model's minimum length on: compare the "
         "prefix call 0 marked with the minimum in the table.",
    mistakes=lambda: {
        _call_one_cached(MODEL): f"that is what {MODEL} reads. The same bytes, but another "
                                 "model: look at its row of the table.",
        billed(run().selections[:2], CHEAP_MODEL)[1].tokens: "that is the whole request: "
        "at most the prefix the call before wrote can be read."})


predict12_cuts = Question(
    f"Thread previous= through the {CALLS} calls, with low_water={LOW_WATER}. At how many "
    f"calls does the first kept turn move?",
    lambda: run(LOW_WATER).cuts,
    explanation="the rule holds the first kept turn while the request from it fits, and when "
                f"it no longer does it cuts back to {LOW_WATER:.0%} of the budget, so the next "
                "few calls append to it. Each cut is one call that writes the history again; "
                "between cuts every call reads the whole of the last one.",
    hint=f"after a cut the request holds at most low_water x the budget: how many turns of "
         f"about {_mean_turn_kb():.1f} KB does it take to grow back to the budget? Or run the "
         f"calls, each with previous= the Selection of the call before, and count where "
         f".dropped changes.",
    mistakes=lambda: {
        run().cuts: "that is the whole-turn rule's count: pass each call previous=, the "
                    "Selection of the call before.",
        0: "the rule still moves the first kept turn when the request from it no longer fits "
           "the budget."})


predict12_slider = Question(
    f"If you moved the slider to low_water = 1.0, how many of the {CALLS} calls would send "
    f"other bytes than the whole-turn rule's?",
    lambda: run(1.0).differs_from(run()),
    explanation="a cut to 100% of the budget is the longest suffix that fits, the whole-turn "
                "rule's, and the first kept turn is held only while that is still what fits. "
                "At 1.0 the cache-stable rule is the whole-turn rule again: it cuts as little "
                "as possible, so it cuts on almost every call.",
    hint="what does the rule cut back to when low_water is 1.0, and when does it hold the "
         "first kept turn?",
    mistakes=lambda: {
        run(LOW_WATER).differs_from(run()): f"that is low_water={LOW_WATER}'s count: at 1.0 "
                                            "the cut is to the whole budget.",
        CALLS: "the calls before the budget is first full keep every turn under both rules."})


def _prefix_shared(rule: str) -> int:
    """How many leading bytes section 4's two calls share under ``rule``."""
    return first_difference(*prefix_pair(rule)).offset


predict12_prefix = Question(
    f"Call {PREFIX_CALL - 1} of the cache-stable schedule, in openai-chat, is shown above with "
    f"its size. Call {PREFIX_CALL} holds the same first kept turn. How many leading bytes does "
    f"it share with call {PREFIX_CALL - 1}?",
    lambda: _prefix_shared(CACHE_STABLE),
    explanation="all of the last request but its last two bytes: the closing ] of the "
                "messages and the } of the body. Where the last request ended, the new one "
                "goes on, with the answer to its question and the next question. "
                f"{OPENAI_MODEL} reads that shared prefix from its cache rounded down to whole "
                f"{block(OPENAI_MODEL)}-token blocks.",
    hint="write the end of one request and the same place in the next: what follows the "
         "last message in each?",
    mistakes=lambda: {
        len(prefix_pair(CACHE_STABLE)[0]): "that is all of the last request: look at its "
                                           "last bytes, after its question.",
        _prefix_shared(WHOLE_TURN): "that is where the whole-turn rule's two calls part: "
                                    "its first kept turn moved, this one's did not."})


# --- The quiz ------------------------------------------------------------------------------

def _one_hour_against_read() -> int:
    return round(write_multiple(MODEL, "1h") / read_multiple(MODEL))


def _openai_read(shared_tokens: int = 2_000) -> int:
    """What an OpenAI model with 128-token blocks reads of a shared prefix."""
    if shared_tokens < minimum(OPENAI_MODEL):
        return 0
    return shared_tokens - shared_tokens % block(OPENAI_MODEL)


quiz12 = Questionnaire(heading(NUMBER), [
    Question(f"With the 1-hour lifetime, a call to {MODEL} whose first kept turn moved "
             "writes its history again. A 1-hour write costs how many times a read?",
             _one_hour_against_read, ratio=True,
             explanation=f"the 1-hour lifetime writes at {write_multiple(MODEL, '1h'):g}x the "
                         f"input price and a read costs {read_multiple(MODEL):g}x (the price "
                         f"table's figures). A trim that moves the first turn on every call "
                         f"pays that on nearly the whole history, every call.",
             hint="read both multiples from the price table (write x for 1h, read x) and "
                  "divide.",
             mistakes=lambda: {
                 write_multiple(MODEL) / read_multiple(MODEL): "that is the 5-minute "
                 "lifetime's ratio: the question is about the 1-hour one.",
                 read_multiple(MODEL) / write_multiple(MODEL, "1h"): "that is a read against a "
                 "1-hour write, the other way round: how many reads does one write cost?",
                 round(write_multiple(MODEL) / read_multiple(MODEL)): "that is the 5-minute "
                 "lifetime's ratio, rounded: the question is about the 1-hour one.",
                 13: "that is the 5-minute lifetime's 12.5, rounded up: the question is about "
                     "the 1-hour one.",
                 round(write_multiple(MODEL, "1h")): "that is the write price against the "
                                                     "input price; compare it with a read."}),
    Question(f"{OPENAI_MODEL} caches in {block(OPENAI_MODEL)}-token blocks from "
             f"{minimum(OPENAI_MODEL):,} tokens. A request shares a 2,000-token prefix with the "
             f"one before. How many tokens does it read from the cache?",
             _openai_read,
             explanation=f"a cached prefix is a whole number of blocks: "
                         f"{2_000 // block(OPENAI_MODEL)} blocks of {block(OPENAI_MODEL)}; "
                         f"the {2_000 % block(OPENAI_MODEL)} tokens after them are billed at "
                         f"the input price.",
             hint=f"how many whole blocks of {block(OPENAI_MODEL)} tokens fit in 2,000?",
             mistakes=lambda: {
                 2_000: "a cached prefix is a whole number of blocks: the part of a block at "
                        "its end is not read.",
                 minimum(OPENAI_MODEL): "that is the least a request must have to be cached "
                                        "at all, not what it reads.",
                 _openai_read() + block(OPENAI_MODEL): "that rounds up to a block the request "
                                                       "does not have."}),
    Discussion(f"Your users write to {MODEL} about once every half hour, and your requests "
               f"use the default lifetime. Does the cache-stable rule still pay for the turns it "
               f"gives up after a cut? What would you choose instead?",
               f"no: an entry lives {lifetime_minutes(MODEL)} minutes from its last use, so a "
               f"call half an hour after the last one finds nothing cached, whatever its prefix, "
               f"and every call is billed as new. Holding the first kept turn then saves "
               f"nothing, and after each cut the model sees fewer turns for no gain: a "
               f"low_water close to 1.0 keeps the most turns. Or buy the longer lifetime "
               f"({lifetime_minutes(MODEL, '1h')} minutes, written at "
               f"{write_multiple(MODEL, '1h'):g}x the input price instead of "
               f"{write_multiple(MODEL):g}x) if the calls come within it, and keep the rule."),
    Discussion("Evidence chosen for each question (notebook 09) is sent before the turns. "
               "What does that do to the cache, even under the cache-stable rule? With "
               "select(..., evidence_after_turns=True), the evidence goes after the turns "
               "instead, just before the question: what does that change?",
               "the cache key is the byte prefix: evidence that changes with each question "
               "changes every byte after it, so the turns after it are written again on every "
               "call, whatever turn is kept first. Sent after the turns, just before the "
               "question, it leaves the system and the turns as the last call sent them, so "
               "they are read from the cache; the evidence itself is then never cached, and "
               "in Anthropic's dialect it reads as the user's words."),
])


# --- Exercise 12: the tokens the cache-stable schedule reads ---------------------------------

EXERCISE_CALLS = 30


@dataclass(frozen=True)
class CacheExercise:
    """Exercise 12's conversation and settings on one variant."""

    system: str
    turns: tuple[Turn, ...]
    budget: int
    low_water: float


BUDGETS = tuple(range(16_000, 28_001, 500))
LOW_WATERS = (0.5, 0.55, 0.65, 0.7, 0.75, 0.8)  # not select's default, 0.6: a named mistake


@lru_cache(maxsize=256)
def exercise_inputs(key: str) -> CacheExercise:
    """The conversation exercise 12 asks about on the variant of ``key``: its texts, budget and
    low_water drawn from the key (the self-paced edition's variant, ``SELF_PACED``, as a
    student's), or for the article's fixture (``key`` ""), a budget and low_water of its own."""
    seed = f"exercise:{key}"
    system, turns = conversation(seed, EXERCISE_CALLS)
    if not key:
        return CacheExercise(system, turns, 20_000, 0.7)
    return CacheExercise(system, turns, BUDGETS[_draw(f"{seed}:budget", len(BUDGETS))],
                         LOW_WATERS[_draw(f"{seed}:low_water", len(LOW_WATERS))])


def _bill(inputs: CacheExercise, rule: str, **options) -> list[BilledRequest]:
    chosen = schedule(rule, system=inputs.system, turns=inputs.turns, budget=inputs.budget,
                      **{"low_water": inputs.low_water, **options})
    return billed(chosen)


@lru_cache(maxsize=256)
def cache_figures(key: str) -> dict[str, int]:
    """Exercise 12's answer on the variant of ``key``, and the sums a learner may give
    instead."""
    inputs = exercise_inputs(key)
    stable, whole = _bill(inputs, CACHE_STABLE), _bill(inputs, WHOLE_TURN)
    chosen = schedule(CACHE_STABLE, system=inputs.system, turns=inputs.turns,
                      budget=inputs.budget, low_water=inputs.low_water)
    return {"answer": sum(item.cached for item in stable),
            "whole_turn": sum(item.cached for item in whole),
            "default_low_water": sum(item.cached for item in
                                     _bill(inputs, CACHE_STABLE, low_water=LOW_WATER)),
            "written": sum(item.written for item in stable),
            "uncached": sum(item.uncached for item in stable),
            "tokens": sum(item.tokens for item in stable),
            "last_call": stable[-1].cached,
            "cheap_model": sum(item.cached for item in billed(chosen, CHEAP_MODEL)),
            "cuts": cuts(chosen)}


def check_cached_tokens(v, cached_tokens: object) -> Feedback:
    """Exercise 12's check on the variant ``v`` (``exercises.variants.Variant``, read by its
    key): the input tokens the cache-stable schedule reads from the cache, all calls
    together."""
    if isinstance(cached_tokens, float) and cached_tokens.is_integer():
        return not_whole(cached_tokens, "tokens")
    if isinstance(cached_tokens, float):
        return wrong("give a whole number of tokens, an int: the tokens read from the cache "
                     "(BilledRequest.cached), not a cost in dollars.")
    tokens = as_integral(cached_tokens)
    if tokens is None:
        return wrong(f"give a whole number of tokens (an int), not a "
                     f"{type(cached_tokens).__name__[:60]}.")
    f = cache_figures(v.key)
    if tokens == f["answer"]:
        return correct(f"{tokens:,} tokens read from the cache over {EXERCISE_CALLS} calls, "
                       f"with {f['cuts']} cuts; the whole-turn rule reads "
                       f"{f['whole_turn']:,}. Each call reads the whole of the last one but "
                       f"at a cut, where only the system prompt is read again.")
    known = {
        f["whole_turn"]: "that is the whole-turn rule's: pass each call previous=, the "
                         "Selection of the call before, and low_water=CACHE_LOW_WATER.",
        f["default_low_water"]: f"that is low_water={LOW_WATER}, select's default: the "
                                "exercise's is CACHE_LOW_WATER.",
        f["written"]: "that counts the tokens written to the cache (BilledRequest.written); "
                      "the exercise asks for those read from it.",
        f["uncached"]: "that counts the tokens neither read nor written (the questions); the "
                       "exercise asks for those read from the cache.",
        f["tokens"]: "that is every input token of the schedule; the exercise asks for those "
                     "read from the cache.",
        f["last_call"]: "that is the last call's alone: add up every call's.",
        f["cheap_model"]: f"that is the schedule billed for {CHEAP_MODEL}: the exercise bills "
                          f"{MODEL}.",
        0: "nothing read. Three things read nothing: requests without cache marks (Anthropic "
           "caches only up to a block a request marks, or the one its top-level automatic "
           "mode moves forward; select(..., cache_breakpoints=True) writes them), calls "
           "further apart than the cache's lifetime, or requests built in another dialect "
           "than the model's. Check each against the exercise's settings.",
    }
    if tokens in known:
        return wrong(known[tokens])
    if tokens < 0:
        return wrong("a count of tokens cannot be negative.")
    return wrong(f"not {tokens:,} tokens. Build the {EXERCISE_CALLS} requests in order, each "
                 "with previous= the Selection of the one before, bill them with "
                 "simulate_bill and add up .cached.")


EXERCISE_HINT = (
    "call n sends turns[:n] and turns[n].question. Keep the last Selection and pass it as "
    "previous= to the next select (with low_water=CACHE_LOW_WATER, "
    "dialect='anthropic-messages' and cache_breakpoints=True), then simulate_bill the payloads, "
    "30.0 seconds apart, for 'claude-opus-4-8', and add up each BilledRequest's cached.")
# Exercise 12 but its variant, which ``exercises`` gives it (as 7's and the others').
EXERCISE12 = partial(Exercise, 12, "the tokens the cache-stable schedule reads from the cache",
                     check_cached_tokens, hint=EXERCISE_HINT)
