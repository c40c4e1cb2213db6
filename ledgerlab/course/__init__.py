"""The course layer: fixtures, feedback, exercises, questions, charts, widgets, grading.

It imports the library (``ledgerlab``) and is never imported by it. Its modules load
matplotlib, ipywidgets and nbformat, which the library does without; import the one
you need, e.g. ``from ledgerlab.course.widgets import BudgetExplorer``.
"""
