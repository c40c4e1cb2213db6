"""Every figure the docs give of the course, checked against the course's own counts: how many
exercises, notebooks, lessons and decks, which notebooks a range spans, each notebook's number
in its file name, Moodle's maximum grade, the grader's hidden tests. A lesson or an exercise
added (or a notebook renumbered) fails here, by the sentence to change, instead of leaving a
typed-in number to drift. (Where a sentence reads as well without its count, it has none.)

The counts come from ``ledgerlab.course.syllabus`` (the notebooks) and
``ledgerlab.course.exercises.EXERCISES``; tests/course/test_syllabus.py checks the tables it
writes, the decks' range and the discussion questions' list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ledgerlab.course.exercises import EXERCISES
from ledgerlab.course.grading.editions import EXERCISES_NOTEBOOK, SOLUTIONS_NOTEBOOK
from ledgerlab.course.syllabus import LESSONS

ROOT = Path(__file__).resolve().parents[2]
# What a teacher, a learner or a maintainer reads: the README, the docs and the teacher's files
# (the journal is a record of past rounds, with the figures of its day).
TEXTS = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
         for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                      *sorted((ROOT / "teacher").glob("*.md"))]
         if path.name != "journal.md"}
# Each text with its line breaks and runs of spaces as one space: a sentence may wrap anywhere.
FLAT = {name: " ".join(text.split()) for name, text in TEXTS.items()}
WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen " \
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
NUMBER = r"\d{1,2}|" + "|".join(WORDS)

# The lessons: every notebook between the contents and the exercises (01 to 12 today).
NOT_LESSONS = {LESSONS[0].file, EXERCISES_NOTEBOOK, SOLUTIONS_NOTEBOOK}
TAUGHT = [lesson for lesson in LESSONS if lesson.file not in NOT_LESSONS]
COUNTS = {"exercises": len(EXERCISES), "notebooks": len(LESSONS), "lessons": len(TAUGHT),
          "decks": len(TAUGHT)}
# A count of something else, each with why it is not the course's.
OTHER_COUNTS = {
    "builds two decks": "the slides test builds two decks to check a deck, not the course's",
}
# A range of notebooks that is a part of the course on purpose.
PARTS: dict[str, str] = {}


def number(text: str) -> int:
    return int(text) if text.isdigit() else WORDS.index(text.lower())


def test_each_count_of_exercises_notebooks_lessons_and_decks_is_the_courses():
    counted = [(name, match) for name, text in FLAT.items()
               for match in re.finditer(rf"\b({NUMBER}) (?:graded )?(exercises|notebooks|lessons|"
                                        rf"decks)\b", text, re.IGNORECASE)]
    wrong = [f"{name}: {match.group()!r} (the course has {COUNTS[match[2].lower()]})"
             for name, match in counted
             if not any(other in FLAT[name][max(0, match.start() - 20):match.end()]
                        for other in OTHER_COUNTS)
             and number(match[1]) != COUNTS[match[2].lower()]]
    assert counted and not wrong, wrong


def test_each_range_of_the_whole_course_spans_its_notebooks_or_its_lessons():
    """From 00: every notebook, to the last; from 01: the lessons, to the last lesson."""
    ends = {"00": LESSONS[-1].number, "01": TAUGHT[-1].number}
    ranges = [(name, match) for name, text in TEXTS.items()
              for match in re.finditer(r"\b(?:notebooks?|lessons|decks?)\b[^.\n]{0,24}?"
                                       r"\b(0[01])\s?(?:to|–|-)\s?(\d\d)\b", text)]
    wrong = [f"{name}: {match.group()!r} (the course's end at {ends[match[1]]:02})"
             for name, match in ranges
             if int(match[2]) != ends[match[1]] and not any(part in match.group()
                                                            for part in PARTS)]
    assert ranges and not wrong, wrong


def test_each_notebook_named_by_its_file_carries_its_number():
    """`13-exercises`, `14-solutions`, `00-contents`, with or without .ipynb: a course
    notebook renumbered fails here wherever its old number is written."""
    numbers = {lesson.file.removesuffix(".ipynb")[3:]: lesson.file[:2] for lesson in LESSONS}
    named = [(name, match) for name, text in TEXTS.items()
             for match in re.finditer(r"(?<![\w-])(\d\d)-([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", text)
             if match[2] in numbers]
    wrong = [f"{name}: {match.group()} (it is {numbers[match[2]]}-{match[2]})"
             for name, match in named if match[1] != numbers[match[2]]]
    # Canvas's example name ends with the student's file, after an underscore: lovelaceada_
    # LATE_101_9001_13-exercises.ipynb.
    canvas = [(name, match[1]) for name, text in TEXTS.items()
              for match in re.finditer(r"_\d+_\d+_(\d\d)-exercises\b", text)]
    assert named and not wrong, wrong
    assert all(found == EXERCISES_NOTEBOOK[:2] for _, found in canvas)


def test_moodles_maximum_grade_is_a_point_an_exercise():
    stated = [int(found) for text in TEXTS.values() for found in re.findall(
        r"maximum\s+grade\s+to\s+the\s+number\s+of\s+exercises\s+\((\d+)", text)]
    assert stated and set(stated) == {len(EXERCISES)}


def exercise(number: int):
    return next(each for each in EXERCISES if each.number == number)


def test_the_functions_and_the_graders_hidden_tests_are_the_courses():
    """docs/grading.md: "exercises 3 and 9 (two functions)", "exercise 3's check() tries 8
    texts and the grader 7 more; exercise 9's 7 message lists and 7 more"."""
    text = FLAT["docs/grading.md"]
    functions = tuple(each.number for each in EXERCISES if each.inputs)  # run on test inputs
    said = [tuple(map(int, found)) for pattern in (r"two functions \(exercises (\d+) and (\d+)\)",
                                                   r"Exercises (\d+) and (\d+) \(two functions\)")
            for found in re.findall(pattern, text)]
    assert said and set(said) == {functions}
    (java, java_more), = re.findall(r"exercise 3's check\(\) tries (\d+) texts and the grader "
                                    r"(\d+) more", text)
    (lists, lists_more), = re.findall(r"exercise 9's (\d+) message lists and (\d+) more", text)
    assert int(java) + int(java_more) == len(exercise(3).inputs)
    assert int(lists) + int(lists_more) == len(exercise(9).inputs)
    checked = exercise(3).check(lambda text: len(text.encode("utf-16-le")) // 2)
    assert re.search(rf"\ball {java} test texts match Java", checked.message)
    assert f'("all {java} test texts match Java")' in text


@pytest.mark.parametrize("phrase", sorted({**OTHER_COUNTS, **PARTS}))
def test_each_exception_is_still_in_the_docs(phrase):
    """An exception for a sentence no longer written would let a wrong count through."""
    assert any(phrase in text for text in FLAT.values())


def test_the_progress_table_is_described_with_the_columns_it_has():
    """Before, docs/development.md said 00's table is "lesson, item, answered?, right?": it has
    per-notebook totals, and each item's hint? and solution? too."""
    from ledgerlab.course.contents import ProgressTable
    from ledgerlab.course.progress import SHOWN

    text = FLAT["docs/development.md"]
    columns = re.findall(r"\w+\?(?:, \w+\?)+", text)
    assert columns and set(columns) == {", ".join(ProgressTable.HEADER[2:])}
    assert all(f"`{kind}()`" in text for kind in SHOWN)  # counted when shown, as the doc says
    assert "per notebook" in text and all(total in text for total in ("answered", "right"))
