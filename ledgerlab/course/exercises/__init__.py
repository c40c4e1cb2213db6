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
solutions notebook and the graded edition from it. The exercises are split by the
fixture they use: ``boundary`` (1 to 5, and 7), ``scenario`` (6 and 8) and ``pairing``
(9, notebook 09's tool turns); every name a notebook or the grader uses is importable from
here.
"""

from __future__ import annotations

from .boundary import (GROW_BUDGET, HIDDEN_JAVA_TEXTS, HISTORY, JAVA_TEXTS, MANDATORY_UNITS,
                       MUCH_LARGER, QUESTION, SMILE, SYSTEM, WINDOW_RESERVE, WINDOW_TOKENIZER,
                       grown_question, q1, q2, q3, q4, q5, q7, unit_mistake)
from .pairing import SLICED_MESSAGES, TOOL_MESSAGES, q9
from .scenario import EXERCISE_FACTS, PINNED, TORN_AFTER, q6, q8, reopened, torn_journal

EXERCISES = (q1, q2, q3, q4, q5, q6, q7, q8, q9)
# What the graded edition grades, by the names its answers are reported under.
GRADED = {exercise.name: exercise for exercise in EXERCISES}

__all__ = ["EXERCISES", "EXERCISE_FACTS", "GRADED", "GROW_BUDGET", "HIDDEN_JAVA_TEXTS", "HISTORY",
           "JAVA_TEXTS", "MANDATORY_UNITS", "MUCH_LARGER", "PINNED", "QUESTION", "SLICED_MESSAGES",
           "SMILE", "SYSTEM", "TOOL_MESSAGES", "TORN_AFTER", "WINDOW_RESERVE", "WINDOW_TOKENIZER",
           "grown_question", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9",
           "reopened", "torn_journal", "unit_mistake"]
