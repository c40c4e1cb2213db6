"""One chapter, one module (issue 48): each lesson's questions, quiz, explorer settings and
exercise live in ledgerlab/course/lessons/<name>.py, named for its notebook, so a teacher
changing lesson 07 opens one file. The lessons are the syllabus's notebooks between the
contents and the exercises, so a lesson added to the syllabus is held to the rule too."""

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

from ledgerlab.course import exercises, questions
from ledgerlab.course.feedback import Discussion, Exercise, Question, Questionnaire
from ledgerlab.course.grading.editions import EXERCISES_NOTEBOOK, SOLUTIONS_NOTEBOOK
from ledgerlab.course.syllabus import LESSONS

ROOT = Path(__file__).resolve().parents[2]
LESSONS_FOLDER = ROOT / "ledgerlab" / "course" / "lessons"
TAUGHT = [lesson for lesson in LESSONS
          if lesson.file not in (LESSONS[0].file, EXERCISES_NOTEBOOK, SOLUTIONS_NOTEBOOK)]
# Where a notebook takes its questions and exercises from, and what counts as one.
GATHERERS = {"ledgerlab.course.questions": questions, "ledgerlab.course.exercises": exercises}
ASKED = (Question, Questionnaire, Discussion, Exercise)


def module_name(lesson) -> str:
    """``07-two-limits.ipynb`` -> ``two_limits``: the notebook's name without its number."""
    return re.sub(r"^\d+-", "", Path(lesson.file).stem).replace("-", "_")


def lesson_module(lesson):
    return importlib.import_module(f"ledgerlab.course.lessons.{module_name(lesson)}")


def asked_in(notebook: Path) -> dict[str, str]:
    """Each question or exercise ``notebook``'s code imports, by name: the package it takes it
    from."""
    found = {}
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module in GATHERERS:
                for alias in node.names:
                    if isinstance(getattr(GATHERERS[node.module], alias.name), ASKED):
                        found[alias.name] = node.module
    return found


def defined_in(path: Path) -> set[str]:
    """The names ``path`` assigns at its top level (not those it imports)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [
            node.target] if isinstance(node, ast.AnnAssign) else []
        names |= {name.id for target in targets for name in ast.walk(target)
                  if isinstance(name, ast.Name)}
    return names


def test_the_lessons_are_the_notebooks_between_the_contents_and_the_exercises():
    assert [lesson.number for lesson in TAUGHT] == list(range(1, len(TAUGHT) + 1))
    assert module_name(LESSONS[7]) == "two_limits"


def test_the_lessons_folder_holds_one_module_per_lesson_and_nothing_else():
    modules = {path.stem for path in LESSONS_FOLDER.glob("*.py")} - {"__init__"}
    assert modules == {module_name(lesson) for lesson in TAUGHT}


@pytest.mark.parametrize("lesson", TAUGHT, ids=lambda lesson: lesson.file)
def test_each_lesson_module_starts_with_its_lessons_number_and_title(lesson):
    assert lesson_module(lesson).__doc__.startswith(lesson.heading)


@pytest.mark.parametrize("lesson", TAUGHT, ids=lambda lesson: lesson.file)
def test_every_question_a_lesson_asks_is_defined_in_its_lessons_module(lesson):
    asked = asked_in(ROOT / "notebooks" / lesson.file)
    module = lesson_module(lesson)
    assert any(name.startswith("quiz") for name in asked), "each lesson ends with a quiz"
    misplaced = sorted(name for name in asked if name not in defined_in(Path(module.__file__)))
    assert not misplaced, f"asked in {lesson.file}, not defined in {module.__name__}"
    # The object the notebook imports is the lesson's, gathered as it is.
    for name, gatherer in asked.items():
        assert getattr(GATHERERS[gatherer], name) is getattr(module, name)


@pytest.mark.parametrize("lesson", TAUGHT, ids=lambda lesson: lesson.file)
def test_a_lessons_questions_are_its_own_number(lesson):
    # predict07 in 04's module would be the rule broken the other way round.
    numbered = {name for name in defined_in(Path(lesson_module(lesson).__file__))
                if re.fullmatch(r"(predict|quiz|exercise)\d\d\w*", name)}
    assert numbered and {name[-2:] for name in (re.match(r"[a-z]+\d\d", name)[0]
                                                for name in numbered)} == {f"{lesson.number:02}"}


def test_the_rule_is_caught_when_broken(tmp_path):
    # A notebook that asks predict07 while 04's module is checked: predict07 is not 04's.
    notebook = tmp_path / "04-the-boundary-table.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [
        "from ledgerlab.course.questions import predict04, predict07, quiz04\n",
        "from ledgerlab.course import fixtures"]}]}), encoding="utf-8")
    asked = asked_in(notebook)
    assert asked == dict.fromkeys(("predict04", "predict07", "quiz04"),
                                  "ledgerlab.course.questions")
    module = Path(lesson_module(LESSONS[4]).__file__)
    assert sorted(set(asked) - defined_in(module)) == ["predict07"]
