"""The figures docs/grading.md gives a teacher, checked against the course: the number of
exercises (Moodle's maximum grade), the questions answered in words, the notebook handed in.
(Every count of exercises, notebooks and lessons in every doc: test_doc_figures.py.)"""

import re
from pathlib import Path

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading.editions import EXERCISES_NOTEBOOK
from ledgerlab.course.written import WRITTEN

DOC = " ".join((Path(__file__).parents[2] / "docs" / "grading.md").read_text(encoding="utf-8").split())


def test_moodles_maximum_grade_is_the_number_of_exercises():
    """Before, the doc said to set it to 10, with 11 exercises: a full score read 110%."""
    (said,) = re.findall(r"maximum grade to the number of exercises \((\d+)", DOC)
    assert int(said) == len(GRADED)


def test_the_questions_answered_in_words_are_the_courses():
    """Before, the list named 10 quiz[4], which is 11 quiz[2]."""
    (listed,) = re.findall(r"The discussion questions \(([^)]*)\)", DOC)
    said = {f"{lesson}-{number}" for lesson, numbers in
            re.findall(r"(\d{2}) quiz((?:\s*(?:and\s*)?\[\d+\])+)", listed)
            for number in re.findall(r"\[(\d+)\]", numbers)}
    assert said == {question.id for question in WRITTEN}


def test_every_notebook_named_as_handed_in_is_the_exercises_notebook():
    """Before, an example download named a 10-exercises notebook; students hand in 13."""
    handed_in = set(re.findall(r"(\d{2})-exercises", DOC))
    assert handed_in == {EXERCISES_NOTEBOOK[:2]}
