"""The course's fixtures, as data: the article's conversations and notebook 08's facts.

Everything the course measures comes from here, so the notebooks, the quizzes, the
exercises, the tests and the ``ledgerlab-course`` command all measure the same data.
What is done with it (the scenario, the boundary table, the audit) is ``scenario``.
"""

from __future__ import annotations

from ledgerlab import Fact, Turn

# --- The boundary fixture (notebooks 03, 04 and 07) ---------------------------------
BOUNDARY_SYSTEM = "只根据已知信息回答。"
BOUNDARY_QUESTION = "继续🙂"
BOUNDARY_HISTORY = (
    Turn("hello", "world"),
    Turn('接口 "是什么"', "Java\n接口"),
)
BOUNDARY_BUDGETS = (140, 235, 308, 408)
REJECTED_BUDGET = 139

# --- Bad slice vs whole-turn slice: U1 A1 | U2 A2 | U3 A3, then U4 (notebooks 01, 02) ---
SLICE_SYSTEM = "SYSTEM"
SLICE_HISTORY = (Turn("U1", "A1"), Turn("U2", "A2"), Turn("U3", "A3"))
SLICE_QUESTION = "U4"

# --- The projection scenario, "can a trimmed fact return?" (notebooks 05, 06) ---------
SCENARIO_SYSTEM = "Use only the supplied conversation."
SCENARIO_TURNS = (
    ("one", Turn("My project code is ORCHID-17.", "Recorded.")),
    ("two", Turn("I use Java 8.", "Use a Java 8 compatible client.")),
)
SCENARIO_HISTORY = tuple(turn for _, turn in SCENARIO_TURNS)
NEXT_STEP_QUESTION = "Explain the next step."
LOCAL_FIXTURE_REPLY = "Local fixture reply."  # a fixed local reply, not a model's answer
WIDE_QUESTION = "What project code did I provide?"
OLD_FACT = "ORCHID-17"

# --- Notebook 08: the scenario with two facts pinned ------------------------------------
# Each fact comes from one of the scenario's turns, its ``origin``; ORCHID-17 comes first,
# so it is the fact kept when only one fits. The request is the scenario's: system
# SCENARIO_SYSTEM, history SCENARIO_HISTORY, question NEXT_STEP_QUESTION.
PINNED_FACTS = (
    Fact("project-code", "The project code is ORCHID-17.", origin="one"),
    Fact("java-version", "The client runs on Java 8.", origin="two"),
)
# Exercise 8's third fact, pinned after the two others; and quiz 08's, from turn two.
DEADLINE_FACT = Fact("deadline", "The deadline is Friday.", origin="one")
LANGUAGE_FACT = Fact("language", "Reply in English.", origin="two")
