"""The course's manifest, ledgerlab/course/syllabus.py: every copy of a notebook's number, title,
minutes and summary says what the manifest says, and every stated time is the measured one."""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from maintainer_tools import tool

from ledgerlab.course import questions, syllabus
from ledgerlab.course.exercises import EXERCISES
from ledgerlab.course.feedback import Discussion
from ledgerlab.course.syllabus import LESSONS, heading

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDE = (ROOT / "teacher" / "TEACHING.md").read_text(encoding="utf-8")
generator = tool("syllabus")


def cells(lesson):
    return json.loads((NOTEBOOKS / lesson.file).read_text(encoding="utf-8"))["cells"]


def markdown(lesson):
    return ["".join(cell["source"]) for cell in cells(lesson) if cell["cell_type"] == "markdown"]


def test_the_manifest_lists_the_course_notebooks_in_order():
    assert [lesson.file for lesson in LESSONS] == sorted(
        path.name for path in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    assert [lesson.number for lesson in LESSONS] == list(range(len(LESSONS)))
    assert all(lesson.file.startswith(f"{lesson.number:02}-") for lesson in LESSONS)
    last = len(LESSONS) - 1
    with pytest.raises(KeyError, match=f"0 to {last}"):
        syllabus.lesson(last + 1)
    # The contents first, the exercises and their solutions last, and the lessons between.
    assert (syllabus.CONTENTS, syllabus.EXERCISES, syllabus.SOLUTIONS) == (
        LESSONS[0], syllabus.lesson(last - 1), syllabus.lesson(last))
    assert [lesson.title for lesson in (syllabus.EXERCISES, syllabus.SOLUTIONS)] == [
        "Exercises", "Solutions"]
    assert [lesson.number for lesson in syllabus.sessions()] == list(range(1, last - 1))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: f"{lesson.number:02}")
def test_each_notebook_opens_on_its_heading_and_minutes_and_ends_on_its_links(lesson):
    texts = markdown(lesson)
    assert texts[0].splitlines()[0] == f"# {lesson.heading}"
    assert re.findall(r"\*\*Time:\*\* about (\d+) minutes", texts[0]) == [str(lesson.minutes)]
    assert texts[-1].splitlines()[-1] == syllabus.navigation(lesson.number)


def test_the_links_run_through_the_course_in_order():
    assert syllabus.navigation(0) == "Next: [01 · Storage vs context](01-storage-vs-context.ipynb)"
    assert syllabus.navigation(5) == (
        "Previous: [04 · The boundary table](04-the-boundary-table.ipynb) · "
        "[Contents](00-contents.ipynb) · Next: [06 · The costs of a ledger]"
        "(06-the-costs-of-a-ledger.ipynb)")
    assert syllabus.navigation(len(LESSONS) - 1).endswith("· [Contents](00-contents.ipynb)")


def every_text():
    """Where a notebook is named: its markdown, the README, the teacher's files and the docs."""
    texts = {lesson.file: "\n".join(markdown(lesson)) for lesson in LESSONS}
    for path in [ROOT / "README.md", *(ROOT / "teacher").glob("*.md"), *(ROOT / "docs").glob("*.md")]:
        texts[path.name] = path.read_text(encoding="utf-8")
    return texts


def test_every_link_to_a_notebook_names_it_by_its_heading():
    found = 0
    for name, text in every_text().items():
        for number, title, file in re.findall(r"\[(\d\d) · ([^]]+)\]\((?:[\w./-]*/)?(\d\d-[\w-]+\.ipynb)",
                                              text):
            lesson = syllabus.lesson(int(number))
            assert (f"{number} · {title}", file) == (lesson.heading, lesson.file), name
            found += 1
    assert found > 50


def test_the_tables_of_notebooks_are_the_manifests():
    series = next(text for text in markdown(LESSONS[0]) if text.startswith("## The series"))
    assert syllabus.table(first=1) in series
    assert syllabus.table(folder="learner/") in README
    assert "| [08 · Pinned facts: explicit origins and budgets](learner/08-pinned-facts.ipynb) |" \
        in README


def test_readme_names_the_notebook_of_solution_and_the_one_of_the_solutions():
    # The numbers README gives, against the notebooks: the one whose code calls the graded
    # exercises' solution() (q1 ...; 02's optional exercise has its own), and the one
    # generated from teacher/solutions.py.
    calls = [lesson.number for lesson in LESSONS if any(
        re.search(r"\bq\d+\.solution\(\)", "".join(cell["source"])) for cell in cells(lesson)
        if cell["cell_type"] == "code")]
    generated = [lesson.number for lesson in LESSONS if "generated" in markdown(lesson)[0]
                 and "`teacher/solutions.py`" in markdown(lesson)[0]]
    assert len(calls) == len(generated) == 1
    assert [int(n) for n in re.findall(r"`solution\(\)` in (\d+)", README)] == calls
    assert [int(n) for n in re.findall(r"(\d+) holds every exercise's solution", README)] == generated


def test_readme_and_contents_give_one_total_the_sum_and_say_how_it_is_measured():
    contents = "\n".join(markdown(LESSONS[0]))
    total = f"The whole course takes about {syllabus.course_length()}"
    for text in (README, contents):
        assert len(re.findall("The whole course takes", text)) == 1
        assert total in text
        assert syllabus.METHOD in text
    assert syllabus.METHOD in GUIDE and "adjust" in GUIDE
    hours, minutes = divmod(sum(lesson.minutes for lesson in LESSONS), 60)
    assert syllabus.course_length() == f"{hours} hours {minutes} minutes"


def test_the_questions_take_their_titles_from_the_manifest():
    numbers = [lesson.number for lesson in syllabus.sessions()]
    assert list(questions.NOTEBOOK_QUESTIONS) == [heading(number) for number in numbers]
    for number in numbers:
        quiz = getattr(questions, f"quiz{number:02}")
        assert quiz.title == heading(number)
        assert repr(quiz).splitlines()[0] == f"Check your understanding: {heading(number)}"


# --- The stated minutes are the measured ones ------------------------------------------------

@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: f"{lesson.number:02}")
def test_each_stated_time_is_the_measured_one(lesson):
    measured = syllabus.measured_minutes(cells(lesson))
    assert abs(lesson.minutes - measured) <= syllabus.tolerance(measured), (
        f"{lesson.heading} states {lesson.minutes} minutes and measures {measured}: set its "
        f"minutes in ledgerlab/course/syllabus.py, then run `python tools/syllabus.py`")


def md(text):
    return {"cell_type": "markdown", "source": text}


def code(text):
    return {"cell_type": "code", "source": text}


def test_the_measure_counts_prose_and_each_kind_of_work():
    notebook = [md("# 99 · A [linked](https://example.org/a/long/address) title\n\n" + "word " * 397),
                code("my_answer = ...\npredict99.check(my_answer)"),
                code("quiz[1].check(...)"),
                md("**2.** Why?\n\n*Your answer:*\n"),
                code("budget = ...   # an int\nq3.check(budget)"),
                code("# q3.hint()\n# q3.solution()"),   # not run: not counted
                code("results = [q3.check(300)]"),      # answered already: a code cell
                code("x = 1")]
    assert syllabus.workload(notebook) == {
        "words": 4 + 397 + 4, "prediction": 1, "quiz question": 1, "answer in words": 1,
        "exercise": 1, "other code cell": 2}
    # 405 words at 200 a minute, 2 + 2 + 3 + 6, and two half minutes: 16.025, rounded.
    assert syllabus.measured_minutes(notebook) == 16
    assert syllabus.tolerance(16) == 2 and syllabus.tolerance(62) == 6


def test_the_session_plan_gives_each_notebook_its_minutes():
    for heading_line in re.findall(r"^### Session \d \((\d+) minutes\): (\d\d) to (\d\d)$", GUIDE,
                                   re.MULTILINE):
        total, first, last = map(int, heading_line)
        assert total == sum(syllabus.lesson(n).minutes for n in range(first, last + 1))


# --- The generator writes every copy ------------------------------------------------------

def test_the_generator_has_nothing_to_change():
    for lesson in LESSONS:
        assert generator.notebook_markdown(lesson, markdown(lesson)) == markdown(lesson), lesson.file
    assert generator.readme(README) == README
    assert generator.guide(GUIDE) == GUIDE


def test_the_generator_mends_a_copy_that_differs():
    pinned = syllabus.lesson(8)
    texts = markdown(pinned)
    wrong = [texts[0].replace(pinned.heading, "08 · Pinned facts").replace(
        f"about {pinned.minutes} minutes", "about 30 minutes"), *texts[1:-1],
        texts[-1].replace("10 · Tool turns: whole turns in real APIs", "10 · Tool turns")]
    assert wrong != texts and generator.notebook_markdown(pinned, wrong) == texts
    row = f"| {pinned.link('learner/')} | {pinned.minutes} |"
    assert generator.readme(README.replace(row, "| [08 · Pinned facts](learner/08-pinned-facts"
                                                ".ipynb) | 30 |")) == README
    session = re.search(r"^\| (\d+)–(\d+) \| 07 \|", GUIDE, re.MULTILINE).group(0)
    assert generator.guide(GUIDE.replace(session, "| 24–54 | 07 |")) == GUIDE


# --- The figures the docs give, against the course ----------------------------------------

NUMBER_WORDS = {word: number for number, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen".split())}
DOCS = {path.name: path.read_text(encoding="utf-8")
        for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]}


def test_every_notebook_file_the_docs_name_is_the_courses():
    # A platform's file name ends with the student's own: lovelaceada_101_9001_13-exercises.ipynb.
    named = {(name, file) for name, text in {**DOCS, **every_text()}.items()
             for file in re.findall(r"(\d\d-[a-z0-9-]+\.ipynb)", text)}
    files = {lesson.file for lesson in LESSONS}
    assert named and not {(name, file) for name, file in named if file not in files}


def test_the_docs_count_the_exercises_there_are():
    counts = [NUMBER_WORDS[word.lower()] for text in DOCS.values()
              for word in re.findall(r"\b(\w+) exercises\b", text) if word.lower() in NUMBER_WORDS]
    stated = re.findall(r"maximum\s+grade to the number of exercises \((\d+)\b",
                        DOCS["grading.md"])
    assert counts and stated and set(counts) | {int(n) for n in stated} == {len(EXERCISES)}


def test_grading_lists_the_questions_answered_in_words():
    """docs/grading.md's list, written from the quizzes: "01 quiz[3], ... 07 quiz[2] and [3], ..."."""
    listed = []
    for number in (lesson.number for lesson in syllabus.sessions()):
        quiz = getattr(questions, f"quiz{number:02}")
        asked = [str(n) for n, item in enumerate(quiz.questions, start=1)
                 if isinstance(item, Discussion)]
        if asked:
            listed.append(f"{number:02} quiz[{asked[0]}]" + "".join(f" and [{n}]" for n in asked[1:]))
    assert f"The discussion questions ({', '.join(listed)}) are not scored" in " ".join(
        DOCS["grading.md"].split())


def test_editions_counts_the_slide_decks_make_slides_builds():
    spec = importlib.util.spec_from_file_location("slides_build_for_docs",
                                                  ROOT / "editions" / "slides" / "build.py")
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build  # dataclasses look their module up there
    spec.loader.exec_module(build)
    decks = [path.name[:2] for path in build.session_notebooks()]
    assert f"one deck for each of notebooks {decks[0]}–{decks[-1]}," in " ".join(
        DOCS["editions.md"].split())
    assert len(decks) == len(questions.NOTEBOOK_QUESTIONS)
