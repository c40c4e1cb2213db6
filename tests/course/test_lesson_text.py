"""A lesson talks about the lesson: not about how the course is tested, built or graded."""

import re

import nbformat
import pytest

from ledgerlab.course import paths
from ledgerlab.course.learner import course_notebooks

# Phrases about the course's machinery that a learner on their own has no use for.
MACHINERY = re.compile(r"under test|on the site and|only your answer there is graded|"
                       r"graded copy", re.IGNORECASE)
LESSONS = [path for path in course_notebooks(paths.notebooks()) if "01" <= path.name[:2] <= "11"]


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name[:2])
def test_no_lesson_talks_about_the_courses_machinery(path):
    notebook = nbformat.read(path, as_version=4)
    said = [match.group(0) for cell in notebook.cells if cell.cell_type == "markdown"
            for match in MACHINERY.finditer(cell.source)]
    assert said == []


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name[:2])
def test_a_solution_call_in_prose_says_where_to_run_it(path):
    # A markdown cell that tells the learner to call quiz[N].solution() says how to get a
    # cell to call it in: none follows for it.
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and re.search(r"quiz\[\d\]\.solution\(\)", cell.source):
            assert "add a cell below" in cell.source
