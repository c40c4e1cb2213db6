"""One module per lesson: its predictions and quiz, its explorer's settings and its exercise,
named for its notebook (``the_boundary_table`` is ``04-the-boundary-table``'s), so a teacher
changing a lesson opens one file. Each module's docstring starts with the lesson's number and
title. ``ledgerlab.course.questions`` and ``ledgerlab.course.exercises`` gather them, and the
notebooks and the grader import from those. What several lessons share stays where it was: the
fixtures, ``measures``, the feedback core (``feedback``) and the variants
(``exercises.variants``).

An exercise goes with the lesson it practises: 7 with 07, 8 with 08, 9 with 10 (tool
messages), 10 with 09 (a summary and evidence), 11 with 11, 12 with 12 (prompt caching), and
02's optional exercise with 02.
Exercises 1 to 5, the article's own, are 04's: they are one set on 04's conversation, the
boundary fixture, sharing helpers (``unit_mistake``, ``SMILE``), and 04 is the first lesson
after which all five can be done (1 and 2 ask for the table's whole-turn rule, 3 to 5 for 03's
lengths and encoders). Exercise 6, a journal's torn tail, is 05's: the lesson that opens a
journal with a torn tail.

An exercise that asks about a variant is here an ``Exercise`` but its variant (``EXERCISE7``,
a ``functools.partial``); ``ledgerlab.course.exercises``, which holds the variants, gives it
the variant in use (``q7 = EXERCISE7(fixture=active)``). A lesson importing that package, which
imports the lessons, would make an import cycle; for the same reason a checker's first
argument, the variant ``v``, has no annotation.

An explorer's settings are its class's arguments, as a dict (``TWO_LIMITS_EXPLORER``):
``ledgerlab.course.widgets`` takes each explorer's defaults from its lesson, and keeps the
classes and the rules that size a slider from the fixture. Nothing here draws.
"""
