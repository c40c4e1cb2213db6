"""The course layer: it imports the library (``ledgerlab``) and is never imported by it.

- ``fixtures``: the article's conversations, notebook 08's facts and notebook 10's tool
  turns and images, as data;
- ``scenario``: the boundary table, the bad slice, the projection scenario and its audit;
- ``measures``: what the charts, explorers and quizzes measure (no matplotlib);
- ``charts`` and ``widgets``: the figures and the explorers, built on ``measures``;
- ``toolturns`` and ``toolcharts``: what notebook 10 measures (no matplotlib), and its figure;
- ``feedback``: the checks, hints and solutions; ``lessons``: one module per lesson, its
  questions, quiz, explorer settings and exercise, which ``questions`` and ``exercises``
  gather (``cachecharts`` draws 12's figure);
- ``benchmark``: the benchmark results notebook 13 shows (package data);
- ``grading``: the graded edition and its autograder;
- ``paths``: the one place that names folders of a checkout, and what an install does
  without them;
- ``syllabus``: the course's manifest: each notebook's number, title, minutes (measured)
  and summary, which every other copy is written from or checked against;
- ``learner``: the notebooks as learners open them (``learner/``, no outputs) and
  ``make lab``'s own copies of them in ``work/``;
- ``cli``: the ``ledgerlab-course`` command (``table``, ``scenario``, ``audit``).

Some load matplotlib, ipywidgets and nbformat, which the library does without; import the
one you need, e.g. ``from ledgerlab.course.widgets import BudgetExplorer``.
"""
