"""02 · Bad slice vs whole-turn slice: what a message-count slice breaks; the whole-turn rule.

The predictions and the quiz, on the slice fixture (SYSTEM, U1 A1 to U3 A3, U4); the
explorer's settings (``SLICE_EXPLORER``); and the lesson's optional exercise, write the
whole-turn rule, checked against ``select`` (``exercise02``), below.

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

from ledgerlab import BudgetError, Turn, byte_breakdown, messages, request_bytes, select

from .. import fixtures, measures
from ..feedback import (Discussion, Exercise, Feedback, Question, Questionnaire, correct,
                        type_name, wrong)
from ..syllabus import heading

# --- What the answers are computed from ------------------------------------------------

SLICE = (fixtures.SLICE_SYSTEM, fixtures.SLICE_HISTORY, fixtures.SLICE_QUESTION)
SLICE_SIZES = measures.suffix_sizes(*SLICE)  # the slice fixture's requests: 0 to 3 turns kept


def _smallest_budget_with_system() -> int:
    """The smallest budget at which the message-count slice sends the system message."""
    total = len(messages(*SLICE))
    return next(budget for budget in range(1, measures.suffix_sizes(*SLICE)[-1] + 1)
                if measures.count_slice(*SLICE, budget)[0] == total)


# The what-if the quiz asks about: it changes one thing the notebook showed.
BRIEF_SYSTEM = fixtures.SLICE_SYSTEM + ": be brief"           # 02: 10 more ASCII bytes


# --- The predictions and the quiz --------------------------------------------------------

predict02 = Question(
    "What is the smallest budget, in bytes, at which the message-count slice keeps the system "
    "message?",
    _smallest_budget_with_system,
    explanation="the slice keeps the most recent messages, a suffix, and the system message "
                "comes first: keeping it means keeping every message, the whole request, so a "
                "slice that keeps it orphans nothing.",
    hint="which messages does a suffix of SYSTEM U1 A1 U2 A2 U3 A3 U4 hold if it holds SYSTEM? "
         "The chart's bars give each message's bytes.",
    mistakes=lambda: {measures.suffix_sizes(*SLICE)[0]: "that is the whole-turn rule's "
                      "smallest request, SYSTEM and the question. The message-count slice "
                      "keeps the newest messages: where is SYSTEM among them?"},
)

predict02_count = Question(
    "At a 120-byte budget, how many messages does the message-count slice send?",
    lambda: measures.count_slice(*SLICE, 120)[0],
    explanation="N follows from the budget: the slice takes the most recent messages, as many "
                "as fit, and counts messages, not turns.",
    hint="the slice keeps the most recent messages whose request fits: start from the "
         "messages it sends at 175 bytes (A2 U3 A3 U4, in the chart with each one's bytes) and "
         "take them off the front, oldest first, until the request fits 120 bytes.",
    mistakes=lambda: {4: "4 was the example's N at 175 bytes. Here N follows from a smaller "
                         "budget.",
                      1: "that would be U4 alone. Measure whether the next message from the "
                         "end still fits in 120 bytes.",
                      3: "that counts turns, as the whole-turn rule does. The message-count "
                         "slice counts messages, from the end: U4, then A3, then U3, ..."},
)

quiz02 = Questionnaire(heading(2), [
    Question("At a 240-byte budget, how many turns does the whole-turn slice keep?",
             lambda: select(*SLICE, 240).kept,
             explanation="each turn adds 67 bytes to the 108-byte mandatory input: one turn "
                         "needs 175 bytes, two need 242, so at 240 only the newest fits.",
             hint=f"in the slice fixture (SYSTEM, U1 A1 to U3 A3, U4) the mandatory input, "
                  f"SYSTEM and U4, is {SLICE_SIZES[0]} bytes, and each stored turn adds "
                  f"{SLICE_SIZES[1] - SLICE_SIZES[0]}: add the newest turns one at a time.",
             mistakes=lambda: {2: "add up the request with the two newest turns (the "
                                  "mandatory input and the bytes of each turn): does it fit in "
                                  "240 bytes?",
                               0: "no turn at all would mean even the newest turn does not "
                                  "fit: add its bytes to the mandatory input. Is that over "
                                  "240?",
                               3: "all three turns need the slice fixture's full request, "
                                  "the mandatory input and the bytes of each of them.",
                               measures.count_slice(*SLICE, 240)[0]: "that is how many messages "
                               "the message-count slice sends; the whole-turn slice keeps whole "
                               "turns."}),
    Question(f"Suppose the system message were {BRIEF_SYSTEM!r} (10 more ASCII characters). "
             "Below how many bytes would the whole-turn rule refuse the request?",
             lambda: measures.suffix_sizes(BRIEF_SYSTEM, *SLICE[1:])[0],
             explanation="the system message is mandatory: every ASCII character it gains is a "
                         "byte the mandatory input needs.",
             hint="the slider's 'rejected' message gives the mandatory input for 'SYSTEM'; what "
                  "do 10 ASCII characters add?",
             mistakes=lambda: {measures.suffix_sizes(*SLICE)[0]: "that is the mandatory input "
                               "with the old system message; the system message is mandatory, "
                               "so its new bytes count too.",
                               71: "that is the request with U4 alone; the system message is "
                                   "mandatory too."}),
    Discussion("Why is an orphan answer worse than simply sending less?",
               "the model reads an answer with no question and no system instructions: the "
               "conversation is wrong, not just shorter, and no error is reported."),
])


# --- The explorer ------------------------------------------------------------------------
# SliceExplorer's starting point (``ledgerlab.course.widgets`` takes its defaults from here):
# the slice fixture at 175 bytes, the message-count slice beside the whole-turn rule, gson.
SLICE_EXPLORER = {"system": fixtures.SLICE_SYSTEM, "history": fixtures.SLICE_HISTORY,
                  "current": fixtures.SLICE_QUESTION, "budget": 175, "encoder": "gson"}


# --- The optional exercise: write the whole-turn rule --------------------------------------

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
