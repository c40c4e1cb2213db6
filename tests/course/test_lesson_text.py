"""A lesson talks about the lesson: not about how the course is tested, built or graded."""

import re

import nbformat
import pytest

from ledgerlab.course import paths, syllabus
from ledgerlab.course.learner import course_notebooks

# Phrases about the course's machinery that a learner on their own has no use for.
MACHINERY = re.compile(r"under test|on the site and|only your answer there is graded|"
                       r"graded copy", re.IGNORECASE)
SESSIONS = {lesson.file for lesson in syllabus.sessions()}
LESSONS = [path for path in course_notebooks(paths.notebooks()) if path.name in SESSIONS]


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


def glossary_citations() -> list[tuple[str, str]]:
    """Each glossary entry that names a notebook: (its term, the notebook's number)."""
    contents = nbformat.read(paths.notebooks() / "00-contents.ipynb", as_version=4)
    (glossary,) = [cell.source for cell in contents.cells if cell.source.startswith("## Glossary")]
    return [(re.sub(r"\s*\(.*", "", term), number) for term, number in
            re.findall(r"^\*\*([^*]+)\*\*[^\n]*\(notebook (\d\d)\)", glossary, re.MULTILINE)]


def own_prose(number: str) -> str:
    """A notebook's markdown without the lines that point to another notebook."""
    (path,) = paths.notebooks().glob(f"{number}-*.ipynb")
    lines = [line for cell in nbformat.read(path, as_version=4).cells
             if cell.cell_type == "markdown" for line in cell.source.splitlines()
             if not re.search(r"\]\((?!" + number + r"-)\d\d-[\w-]+\.ipynb", line)]
    return " ".join(lines).replace("*", "").lower()


def test_the_glossary_names_the_notebook_that_teaches_each_term():
    citations = glossary_citations()
    assert len(citations) >= 8
    assert [(term, number) for term, number in citations
            if term.lower() not in own_prose(number)] == []


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name[:2])
def test_each_prediction_asks_one_question(path):
    # Its check takes one answer: a second question in the same breath goes unchecked.
    notebook = nbformat.read(path, as_version=4)
    asked = [cell.source.split("**Predict")[1].split("\n\n")[0] for cell in notebook.cells
             if cell.cell_type == "markdown" and "**Predict" in cell.source]
    assert [prompt for prompt in asked if prompt.count("?") != 1] == []


# A value whose every field is None, or a printed label with None after it, tells a learner
# nothing: "Refusal(rule=None, index=None, wording=None)", "reasoning dropped: None".
EMPTY_VALUE = re.compile(r"\b\w+\((?:\w+=None(?:, )?)+\)|^[^\n]*: None$", re.MULTILINE)


@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.name[:2])
def test_no_output_shows_a_bare_none(path):
    notebook = nbformat.read(path, as_version=4)
    shown = ["".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
             for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert [match.group(0) for text in shown for match in EMPTY_VALUE.finditer(text)] == []
