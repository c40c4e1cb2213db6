"""Self-checks for the exercises notebook, in the style of Kaggle Learn's learntools.

Each exercise ``qN`` has ``check(...)``, ``hint()`` and ``solution()``.
``check`` returns Feedback: correct, or what is wrong, told in bytes and turns.
Feedback names the mistake (the wrong unit, a count that is not the smallest, a
rule that packs) without giving the answer: answers live in ``solution()`` only.
It never repeats the learner's text: a conversation may be private, so only
sizes, counts and positions are shown. A placeholder ``...`` reads as "not
answered yet".

This package is the one source of truth for the exercises: the notebook's answer
cells are named by each checker's parameters, and ``ledgerlab.course.grading`` builds the
solutions notebook and the graded edition from it. Each exercise is written in the module of
the lesson it practises (``ledgerlab.course.lessons``): 1 to 5, the article's own, in
``the_boundary_table`` (04); 6 in ``the_ledger`` (05); 7 in ``two_limits``; 8 in
``pinned_facts``; 9 in ``tool_turns`` (10's tool turns); 10 in ``summaries_and_evidence``
(09's summary and evidence); 11 in ``images_loops_and_reasoning``; 12 in
``prompt_caching``. Every name a notebook or the
grader uses is importable from here. An exercise that asks about a variant is there an
``Exercise`` but its variant (``EXERCISE1`` and so on, a partial), and is made here, where the
variants are (``q1 = EXERCISE1(fixture=active)``): a lesson's module does not import this
package, which imports it. Exercise 9 asks about no variant and is whole in its lesson, as is
notebook 02's optional exercise (``exercise02``: write the whole-turn rule, checked against
``select``, in ``bad_slice_vs_whole_turn``), which is in ``OPTIONAL``, not in ``EXERCISES``:
nothing grades it.

What exercises 1 to 8 and 10 to 12 ask about is a ``variants.Variant``: the self-paced edition's
(``SELF_PACED``, not the article's fixture the lessons teach with, whose figures they print), or
in a graded class each student's own (``use_variant``). ``SYSTEM``, ``QUESTION``, ``HISTORY`` and
the other names below that depend on it are read from the variant in use when they are
imported, so the graded notebook calls ``use_variant`` before its imports.
"""

from __future__ import annotations

from ..lessons import the_boundary_table, the_ledger
# Each lesson's own, in the course's order: lessons/<name>.py, named for its notebook.
from ..lessons.bad_slice_vs_whole_turn import exercise02
from ..lessons.the_boundary_table import (EXERCISE1, EXERCISE2, EXERCISE4, EXERCISE5,
                                          HIDDEN_JAVA_TEXTS, MUCH_LARGER, SMILE, exercise3,
                                          java_texts, unit_mistake)
from ..lessons.the_ledger import EXERCISE6, reopened
from ..lessons.two_limits import EXERCISE7, WINDOW_TOKENIZER
from ..lessons.pinned_facts import EXERCISE8
from ..lessons.summaries_and_evidence import EVIDENCE, EXERCISE10, MEMORY_IDS
from ..lessons.tool_turns import SLICED_MESSAGES, TOOL_MESSAGES, q9
from ..lessons.images_loops_and_reasoning import EXERCISE11, reasoned
from ..lessons.prompt_caching import EXERCISE12, exercise_inputs
from .variants import (ARTICLE, SELF_PACED, Variant, VariantError, active, use_variant, variant,
                       variant_key)

# Each lesson's exercise but its variant, given here the variant in use (``active``).
q1 = EXERCISE1(fixture=active)
q2 = EXERCISE2(fixture=active)
JAVA_TEXTS = java_texts(SELF_PACED)  # exercise 3's texts: two are the self-paced variant's
q3 = exercise3(JAVA_TEXTS)(fixture=active)
q4 = EXERCISE4(fixture=active)
q5 = EXERCISE5(fixture=active)
q6 = EXERCISE6(fixture=active)
q7 = EXERCISE7(fixture=active)
q8 = EXERCISE8(fixture=active)
q10 = EXERCISE10(fixture=active)
q11 = EXERCISE11(fixture=active)
q12 = EXERCISE12(fixture=active)


def grown_question(count: int, v: Variant | None = None) -> str:
    """Exercise 2's question with ``count`` more smileys, on the variant in use unless ``v``
    is given."""
    return the_boundary_table.grown_question(count, v or active())


def torn_journal(v: Variant | None = None) -> bytes:
    """Exercise 6's journal bytes, on the variant in use unless ``v`` is given."""
    return the_ledger.torn_journal(v or active())


EXERCISES = (q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12)
# What the graded edition grades, by the names its answers are reported under.
GRADED = {exercise.name: exercise for exercise in EXERCISES}
# Each lesson's optional exercises, by its number: in the lesson, not in 13, and graded
# nowhere (their worked solutions are in 14 all the same).
OPTIONAL = {2: (exercise02,)}

# The names a notebook imports that are the variant's: name -> how the variant gives it.
_FROM_VARIANT = {
    "SYSTEM": lambda v: v.system, "QUESTION": lambda v: v.question,
    "HISTORY": lambda v: v.history, "GROW_BUDGET": lambda v: v.grow_budget,
    "WINDOW_RESERVE": lambda v: v.window_reserve, "TORN_AFTER": lambda v: v.torn_after,
    "PINNED": lambda v: v.pinned, "EXERCISE_FACTS": lambda v: v.facts,
    "MEMORY": lambda v: v.memory, "SUMMARY": lambda v: v.summary,
    "REASONED": reasoned,
    "CONVERSATION": lambda v: (exercise_inputs(v.key).system, exercise_inputs(v.key).turns),
    "CACHE_BUDGET": lambda v: exercise_inputs(v.key).budget,
    "CACHE_LOW_WATER": lambda v: exercise_inputs(v.key).low_water,
}


def __getattr__(name: str):
    if name in _FROM_VARIANT:
        return _FROM_VARIANT[name](active())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ARTICLE", "CACHE_BUDGET", "CACHE_LOW_WATER", "CONVERSATION", "EVIDENCE", "EXERCISES",
           "EXERCISE_FACTS", "GRADED", "GROW_BUDGET",
           "HIDDEN_JAVA_TEXTS", "HISTORY", "JAVA_TEXTS", "MEMORY", "MEMORY_IDS", "MUCH_LARGER",
           "OPTIONAL", "PINNED", "QUESTION", "REASONED", "SELF_PACED", "SLICED_MESSAGES", "SMILE",
           "SUMMARY", "SYSTEM",
           "TOOL_MESSAGES", "TORN_AFTER", "Variant",
           "VariantError", "WINDOW_RESERVE", "WINDOW_TOKENIZER", "active", "exercise02",
           "grown_question", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11",
           "q12", "reopened",
           "torn_journal", "unit_mistake", "use_variant", "variant", "variant_key"]
