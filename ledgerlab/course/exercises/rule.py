"""Notebook 02's optional exercise: write the whole-turn rule, checked against ``select``.

The learner writes ``my_select(system, history, current, max_bytes)``: the turns the rule
keeps, oldest first (``history[start:]``), or None where not even the system message and
the question fit (where ``select`` raises BudgetError and ``whole_turn_rule`` returns None).
The check runs it beside ``select`` on a few hundred random histories, drawn from a fixed
seed (every run draws the same ones, smallest first), as micrograd checks its engine
against PyTorch. It reports the first history where the two differ by its counts and sizes,
never its text; a function that agrees with a known wrong rule on every history is told
that rule's mistake.

The histories are the exercise's own, not the article's fixture nor a student's variant,
so the feedback is the same in every edition. It is optional and graded nowhere: it is not
in ``EXERCISES``, so notebook 13's exercises and their points are what the graded edition
grades.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ledgerlab import BudgetError, Turn, byte_breakdown, request_bytes, select

from ..feedback import Exercise, Feedback, correct, type_name, wrong

SEED = 2
HISTORIES = 300
MOST_TURNS = 6
# Mostly ASCII, with what JSON escapes (a quote, a backslash, a newline) and characters of
# two, three and four UTF-8 bytes: a rule that counts characters differs from one in bytes.
LETTERS = "aaaaeeeiioonrst     " + '"\\\n' + "é接口🙂"


@dataclass(frozen=True)
class Case:
    """One history the check runs: what ``select`` is called with."""

    system: str
    history: tuple[Turn, ...]
    question: str
    budget: int

    def expected(self) -> tuple[Turn, ...] | None:
        """What ``select`` keeps, oldest first; None where it raises BudgetError."""
        try:
            return select(self.system, self.history, self.question, self.budget).turns
        except BudgetError:
            return None

    def size(self, kept) -> int:
        return len(request_bytes(self.system, list(kept), self.question))

    def described(self, number: int) -> str:
        """The history in counts and sizes: never a text of it."""
        parts = byte_breakdown(self.system, self.history, self.question)
        mandatory = self.size([])
        turns = parts["turns"]
        if not turns:
            what = "no stored turn"
        else:
            listed = (str(turns[0]) if len(turns) == 1 else
                      ", ".join(map(str, turns[:-1])) + f" and {turns[-1]}")
            what = (f"1 stored turn adding {listed} bytes" if len(turns) == 1 else
                    f"{len(turns)} stored turns adding {listed} bytes, oldest first")
        return (f"history #{number} ({what}; the system message and the question alone "
                f"need {mandatory} bytes; max_bytes {self.budget})")


def _text(rng: random.Random) -> str:
    size = rng.randint(0, 12) if rng.random() < 0.7 else rng.randint(30, 160)
    return "".join(rng.choice(LETTERS) for _ in range(size))


def cases(count: int = HISTORIES, seed: int = SEED) -> list[Case]:
    """``count`` random histories, each with a budget: some below the mandatory input (select
    refuses), some exactly one of the requests' sizes (the edge), the rest anywhere up to a
    little above the whole request. Smallest first, so the first difference is a small one."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        history = tuple(Turn(_text(rng), _text(rng)) for _ in range(rng.randint(0, MOST_TURNS)))
        system, question = _text(rng), _text(rng)
        sizes = [len(request_bytes(system, history[start:], question))
                 for start in range(len(history) + 1)]
        mandatory, whole = sizes[-1], sizes[0]
        pick = rng.random()
        if pick < 0.1:
            budget = max(1, mandatory - rng.randint(1, 20))
        elif pick < 0.4:
            budget = rng.choice(sizes)
        else:
            budget = rng.randint(mandatory, whole + 20)
        found.append(Case(system, history, question, budget))
    return sorted(found, key=lambda case: (len(case.history), sum(map(len, (
        case.system, case.question, *(t.question + t.answer for t in case.history))))))


# --- What the learner's function returned ---------------------------------------------------

def _kept(my_select: Callable, case: Case, number: int) -> list | None | Feedback:
    """The turns the learner's function keeps for ``case`` (None: refused), or feedback
    saying why its result is not that."""
    try:
        got = my_select(case.system, list(case.history), case.question, case.budget)
    except Exception as error:  # the learner's code: report, don't crash
        return wrong(f"your function raised {type_name(error)} on {case.described(number)}.")
    if got is None:
        return None
    if isinstance(got, (list, tuple)):
        other = next((item for item in got if not isinstance(item, Turn)), None)
        if other is None:
            return list(got)
        kind = f"{type_name(got)} holding a {type_name(other)}"
    else:
        kind = {int: "count", bytes: "request's bytes"}.get(type(got), type_name(got))
    return wrong(f"return the kept turns themselves, oldest first (a list of Turn, as "
                 f"history[start:] is), or None where nothing fits; not a {kind}.")


def _positions(kept: list, history: tuple) -> list[int] | None:
    """Where each kept turn is in ``history`` (the same object first, else an equal turn not
    used yet); None if one is not a stored turn, whole."""
    left, found = list(range(len(history))), []
    for turn in kept:
        match = next((i for i in left if history[i] is turn), None)
        if match is None:
            match = next((i for i in left if history[i] == turn), None)
        if match is None:
            return None
        left.remove(match)
        found.append(match)
    return found


def _turns(count: int) -> str:
    return f"{count} turn{'' if count == 1 else 's'}"


def _newest(count: int) -> str:
    return "no turn" if count == 0 else f"the newest {_turns(count)}"


def _difference(case: Case, number: int, got: list | None, expected) -> str:
    """What differs on one history, in counts and sizes: a sentence or two."""
    where = case.described(number)
    where = where[:1].upper() + where[1:]
    if expected is None:
        return (f"{where}: select refuses it (BudgetError), the system message and the "
                f"question alone being over max_bytes; your function keeps "
                f"{'no turn' if got == [] else _turns(len(got))}.")
    kept = (f"select keeps {_newest(len(expected))}, a {case.size(expected)}-byte request")
    if got is None:
        return (f"{where}: {kept}; your function returns None (refused), though the system "
                f"message and the question fit.")
    at = _positions(got, case.history)
    if at is None:
        return (f"{where}: {kept}; your function returns a turn that is not one of the stored "
                f"turns, whole. A turn is kept or dropped whole, never cut or changed to fit.")
    if at != sorted(set(at)):
        return (f"{where}: {kept}; your function returns the turns out of order. Return them "
                f"oldest first, as history holds them.")
    if at != list(range(len(case.history) - len(at), len(case.history))):
        shown = ", ".join(str(i + 1) for i in at[:-1]) + f" and {at[-1] + 1}" if len(at) > 1 \
            else str(at[0] + 1)
        return (f"{where}: {kept}; your function keeps turn{'s' if len(at) > 1 else ''} "
                f"{shown} of {len(case.history)}, numbered from the oldest: not a run that "
                f"ends at the newest turn.")
    size = case.size(got)
    if size > case.budget:
        return (f"{where}: {kept}; your function keeps {_newest(len(got))}, a {size}-byte "
                f"request, over max_bytes.")
    return (f"{where}: {kept}; your function keeps {_newest(len(got))}, a {size}-byte "
            f"request, though more fit.")


# --- Known wrong rules, and what each gets wrong --------------------------------------------

def _walk_back(fits: Callable[[list], bool], history, *, pack: bool = False):
    """From the newest turn back, keeping each that fits; stopping at the first that does
    not, or with ``pack`` skipping it and going on."""
    if not fits([]):
        return None
    kept = []
    for turn in reversed(history):
        if fits([turn, *kept]):
            kept.insert(0, turn)
        elif not pack:
            break
    return kept


def _bytes(system, current, budget, below=False):
    def fits(kept):
        size = len(request_bytes(system, kept, current))
        return size < budget if below else size <= budget
    return fits


def _packs(system, history, current, max_bytes):
    return _walk_back(_bytes(system, current, max_bytes), history, pack=True)


def _strictly_below(system, history, current, max_bytes):
    return _walk_back(_bytes(system, current, max_bytes, below=True), history)


def _characters(system, history, current, max_bytes):
    return _walk_back(lambda kept: len(request_bytes(system, kept, current).decode("utf-8"))
                      <= max_bytes, history)


def _texts_only(system, history, current, max_bytes):
    mandatory = len(request_bytes(system, [], current))
    return _walk_back(lambda kept: mandatory + sum(
        len(turn.question.encode("utf-8")) + len(turn.answer.encode("utf-8")) for turn in kept)
        <= max_bytes, history)


def _oldest_kept(system, history, current, max_bytes):
    fits = _bytes(system, current, max_bytes)
    for end in range(len(history), -1, -1):
        if fits(list(history[:end])):
            return list(history[:end])
    return None


def _never_refuses(system, history, current, max_bytes):
    kept = _walk_back(_bytes(system, current, max_bytes), history)
    return [] if kept is None else kept


def _newest_first(system, history, current, max_bytes):
    kept = _walk_back(_bytes(system, current, max_bytes), history)
    return None if kept is None else kept[::-1]


WRONG_RULES: tuple[tuple[Callable, str], ...] = (
    (_packs, "your function skips a turn that does not fit and keeps an older one that does. "
             "select never packs: the kept turns are a run that ends at the newest turn, so "
             "the first turn that does not fit ends the walk back."),
    (_oldest_kept, "your function keeps the oldest turns and drops the newest. The rule drops "
                   "the oldest whole turn first: the newest turns stay."),
    (_strictly_below, "a request of exactly max_bytes fits: the budget itself is allowed "
                      "(<=, not <)."),
    (_characters, "your function counts characters, not bytes. The budget is in bytes of the "
                  "UTF-8 request, len(request_bytes(...)): é takes 2, 接 3 and 🙂 4."),
    (_texts_only, "your function counts the turns' texts, not the request they make: each "
                  "turn adds its JSON too (roles, quotes, escapes, commas). Measure the whole "
                  "request with request_bytes."),
    (_never_refuses, "where even the system message and the question do not fit, select "
                     "refuses (BudgetError): return None there, not an empty list."),
    (_newest_first, "return the kept turns oldest first, in history's order (history[start:] "
                    "is)."),
)


# --- The check ------------------------------------------------------------------------------

def _check_rule(my_select: object) -> Feedback:
    if not callable(my_select):
        return wrong("pass a function: my_select(system, history, current, max_bytes).")
    drawn = cases()
    results = []
    for number, case in enumerate(drawn, start=1):
        got = _kept(my_select, case, number)
        if isinstance(got, Feedback):
            return got
        results.append(got)
    if all(got is None for got in results):
        return Feedback("unanswered", "your function returned None for every history: write "
                                      "its body, then run check() again.")
    expected = [case.expected() for case in drawn]
    refused = sum(turns is None for turns in expected)
    same = [None if got is None else tuple(got) for got in results]
    if same == [None if turns is None else tuple(turns) for turns in expected]:
        return correct(f"your function keeps the same turns as select on all {len(drawn)} "
                       f"random histories, and refuses the {refused} that select refuses. Two "
                       f"ways of writing one rule agree: whole turns, the newest kept, the "
                       f"mandatory input never dropped.")
    differ = [i for i, (got, turns) in enumerate(zip(same, expected))
              if got != (None if turns is None else tuple(turns))]
    first = _difference(drawn[differ[0]], differ[0] + 1, results[differ[0]],
                        expected[differ[0]])
    told = f"Your function and select differ on {len(differ)} of {len(drawn)} random histories."
    for rule, mistake in WRONG_RULES:
        if all(_same(rule(c.system, c.history, c.question, c.budget), got)
               for c, got in zip(drawn, same)):
            return wrong(f"{mistake} {told} The first: {first}")
    return wrong(f"{told} The first: {first}")


def _same(rule_kept, got) -> bool:
    return (None if rule_kept is None else tuple(rule_kept)) == got


exercise02 = Exercise(
    1, "write the whole-turn rule", _check_rule, name="exercise02",
    label="Notebook 02's optional exercise",
    hint="Measure a request with len(request_bytes(system, kept, current)). Either start with "
         "every turn and drop the oldest until it fits, as whole_turn_rule does, or start with "
         "none and add turns from the newest back; then ask what to do with a turn that does "
         "not fit.",
)
