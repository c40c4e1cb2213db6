"""Written answers: a cell to write in after each quiz with a discussion question, a section
of the graded notebook the grader reads by metadata, and a teacher's page where nothing a
student wrote is live."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from ledgerlab.course import paths, questions, written
from ledgerlab.course.feedback import Discussion, Questionnaire
from ledgerlab.course.grading.reports import quoted, written_page, written_report
from ledgerlab.course.written import (MAX_ANSWER_CHARS, PLACEHOLDER, WRITTEN, Answer,
                                      WrittenError, collect_written, written_cell,
                                      written_section)

from maintainer_tools import tool
from sentences import says

written_cells = tool("written_cells")  # tools/written_cells.py puts the cell in the course
add_written_cells = written_cells.add_written_cells

NOTEBOOKS = paths.notebooks()
IDS = ["01-3", "02-3", "05-3", "06-3", "07-2", "07-3", "08-4", "11-2", "12-3", "12-4"]


def course_notebook(number: int) -> Path:
    return next(NOTEBOOKS.glob(f"{number:02}-*.ipynb"))


# --- The questions ----------------------------------------------------------------------

def test_ids_are_stable_and_unique():
    # A submitted notebook names its answers by these ids: renumbering one loses answers.
    assert [question.id for question in WRITTEN] == IDS
    assert len(set(written.BY_ID)) == len(WRITTEN)


def test_every_discussion_of_the_course_is_covered_with_its_own_texts():
    found = []
    for _, parts in questions.NOTEBOOK_QUESTIONS.items():
        for _, part in parts:
            items = part.questions if isinstance(part, Questionnaire) else (part,)
            found += [item for item in items if isinstance(item, Discussion)]
    assert [id(q) for q in found] == [id(question.question) for question in WRITTEN]
    for question in WRITTEN:
        quiz = getattr(questions, f"quiz{question.notebook:02}")
        assert quiz[question.number] is question.question
        assert question.prompt == quiz[question.number].prompt
        assert question.model_answer == quiz[question.number].model_answer
    # The texts live in the questions alone, never copied into written.py.
    source = Path(written.__file__).read_text(encoding="utf-8")
    assert not [q.id for q in WRITTEN if q.prompt[:30] in source or q.model_answer[:30] in source]


def test_the_written_cell_names_each_question_and_leaves_a_line_to_replace():
    cell = written_cell(7)
    assert cell.cell_type == "markdown" and cell.id == "written-answers"
    assert cell.metadata == {"ledgerlab": {"written": ["07-2", "07-3"]}}
    for question in (written.BY_ID["07-2"], written.BY_ID["07-3"]):
        assert f"**{question.number}.** {question.prompt}\n\n{PLACEHOLDER}" in cell.source
    assert cell.source.count(PLACEHOLDER) == 3 and "quiz[3].solution()" in cell.source
    # No code cell runs solution() for the learner: the text says how to make one.
    says(cell.source, "Esc", "B", "`quiz[2].solution()`", in_order=True)
    # It says what to do with the placeholder: the first line names it.
    says(cell.source.splitlines()[0], "replace", PLACEHOLDER, "your answer", in_order=True)
    assert len(written_cell(2).source) < 500  # short: one line of how, then the question
    # A markdown cell that says "predict" makes the next code cell a Predict cell.
    assert not re.search(r"\bpredict", cell.source, re.I)
    with pytest.raises(WrittenError, match="no discussion"):
        written_cell(3)


# --- Putting the cell into a notebook ---------------------------------------------------

def without_written_cell(number: int, folder: Path) -> Path:
    notebook = nbformat.read(course_notebook(number), as_version=4)
    notebook.cells = [cell for cell in notebook.cells if cell.get("id") != written.CELL_ID]
    path = folder / course_notebook(number).name
    nbformat.write(notebook, path)
    return path


def outputs(notebook) -> list:
    return [(cell.id, cell.get("outputs"), cell.get("execution_count"))
            for cell in notebook.cells if cell.cell_type == "code"]


def quiz_run(notebook, number: int) -> tuple[int, int]:
    """The index of the quiz cell, and that of the last ``quiz[n]`` cell right after it."""
    quiz = next(i for i, cell in enumerate(notebook.cells)
                if cell.source == f"quiz = quiz{number:02}\nquiz")
    last = quiz
    while notebook.cells[last + 1].source.startswith("quiz["):
        last += 1
    return quiz, last


def test_insertion_goes_after_the_quizs_check_cells_is_idempotent_and_changes_no_output(
        tmp_path):
    path = without_written_cell(8, tmp_path)
    before = nbformat.read(path, as_version=4)
    quiz, last = quiz_run(before, 8)
    assert last - quiz == 3  # quiz[1], quiz[2], quiz[3]: checked before the one in words
    assert add_written_cells(path) == {path: written.ADDED}
    after = nbformat.read(path, as_version=4)
    assert after.cells[last + 1] == written_cell(8)
    assert [c.source for c in after.cells[quiz + 1:last + 1]] == [
        f"quiz[{n}].check(...)" for n in (1, 2, 3)]
    assert [c for c in after.cells if c.id != written.CELL_ID] == before.cells
    assert outputs(after) == outputs(before) and outputs(before)
    text = path.read_bytes()
    assert add_written_cells(path) == {path: written.UNCHANGED}
    assert path.read_bytes() == text


def test_a_stale_or_misplaced_written_cell_is_replaced_where_it_belongs(tmp_path):
    path = without_written_cell(6, tmp_path)
    notebook = nbformat.read(path, as_version=4)
    old = written_cell(6)
    old.source = "an older wording"
    notebook.cells.insert(2, old)
    nbformat.write(notebook, path)
    assert add_written_cells(path) == {path: written.UPDATED}
    after = nbformat.read(path, as_version=4)
    assert [i for i, c in enumerate(after.cells) if c.id == written.CELL_ID] == [
        quiz_run(after, 6)[1] + 1]
    assert len(after.cells) == len(notebook.cells)
    # Where an earlier version of the tool put it, right after the quiz cell, above the
    # checked questions: moved below them, the other cells as they were.
    moved = nbformat.read(path, as_version=4)
    cell = moved.cells.pop(quiz_run(after, 6)[1] + 1)
    moved.cells.insert(quiz_run(moved, 6)[0] + 1, cell)
    nbformat.write(moved, path)
    assert add_written_cells(path) == {path: written.UPDATED}
    assert nbformat.read(path, as_version=4) == after
    assert add_written_cells(path) == {path: written.UNCHANGED}


def test_a_notebook_without_a_discussion_is_left_as_it_is(tmp_path):
    path = tmp_path / "03.ipynb"
    path.write_bytes(course_notebook(3).read_bytes())
    assert add_written_cells(path) == {path: written.NO_DISCUSSION}
    assert path.read_bytes() == course_notebook(3).read_bytes()


def test_bad_input_is_refused_before_any_file_is_written(tmp_path):
    good = without_written_cell(2, tmp_path)
    twice = tmp_path / "twice.ipynb"
    notebook = nbformat.read(good, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell("quiz = quiz02\nquiz"))
    nbformat.write(notebook, twice)
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{ not json")
    saved = {path: path.read_bytes() for path in (good, twice, broken)}
    for bad, message in ((twice, "2 cells hold"), (broken, "not a notebook")):
        with pytest.raises(WrittenError, match=message):
            add_written_cells(good, bad)
        assert written_cells.main(["add", str(good), str(bad)]) == 1
    assert {path: path.read_bytes() for path in saved} == saved


def test_the_command_line_adds_and_reports(tmp_path, capsys):
    path = without_written_cell(11, tmp_path)
    assert written_cells.main(["add", str(path)]) == 0
    assert written_cells.main(["add", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{path}: {written.ADDED}",
                                                    f"{path}: {written.UNCHANGED}"]


@pytest.mark.parametrize("number", sorted({q.notebook for q in WRITTEN}))
def test_each_course_notebook_has_its_written_cell_after_its_quiz(number):
    # python tools/written_cells.py add notebooks/NN-*.ipynb puts it there, and again
    # after a question's prompt changes: this fails until it is re-run.
    notebook = nbformat.read(course_notebook(number), as_version=4)
    assert written.with_written_cell(notebook) == written.UNCHANGED, course_notebook(number).name


# --- The graded edition -----------------------------------------------------------------

def test_the_section_has_a_prompt_and_an_answer_cell_per_question():
    cells = written_section()
    heading = cells[0].source.splitlines()[0]
    assert heading.startswith("## ")
    says(heading, "Written answers", "teacher", "not scored", in_order=True)
    assert len(cells) == 1 + 2 * len(WRITTEN)
    for question, (prompt, answer) in zip(WRITTEN, zip(cells[1::2], cells[2::2])):
        assert question.prompt in prompt.source and question.title in prompt.source
        assert answer.metadata == {"ledgerlab": {"written": question.id}}
        assert answer.source == PLACEHOLDER and answer.cell_type == "markdown"
    assert len({cell.id for cell in cells}) == len(cells)
    nbformat.validate(nbformat.v4.new_notebook(cells=cells))


def submitted(answers: dict[str, str], shuffle: bool = True) -> dict:
    """A graded notebook with ``answers`` written in, as JSON the way it is handed in."""
    cells = written_section()
    for cell in cells:
        key = cell.metadata.get("ledgerlab", {}).get("written")
        if key in answers:
            cell.source = answers[key]
    if shuffle:  # read by metadata, never by position
        random.Random(4).shuffle(cells)
    return json.loads(nbformat.writes(nbformat.v4.new_notebook(cells=cells)))


def test_collect_reads_what_was_written_and_skips_what_was_not():
    notebook = submitted({"01-3": "The ledger keeps it.\n\nSo the next request can send it.",
                          "07-2": f"{PLACEHOLDER} Tokens per byte vary.",
                          "08-4": "   \n", "11-2": PLACEHOLDER})
    assert collect_written(notebook) == {"01-3": "The ledger keeps it.\n\nSo the next request "
                                                 "can send it.", "07-2": "Tokens per byte vary."}
    assert collect_written(submitted({})) == {}


def test_collect_survives_a_hostile_notebook():
    def cell(source, mark="01-3", **meta):
        return {"cell_type": "markdown", "source": source,
                "metadata": meta or {"ledgerlab": {"written": mark}}}

    for notebook in (None, [], "cells", {"cells": "x"}, {"cells": None}, {"cells": [1, None]},
                     {"cells": [cell(42)]}, {"cells": [cell(["a", 3])]},
                     {"cells": [cell("x", mark=["01-3"])]}, {"cells": [cell("x", mark="99-1")]},
                     {"cells": [cell("x", ledgerlab="01-3")]},
                     {"cells": [{"source": "x", "metadata": []}]}):
        assert collect_written(notebook) == {}, notebook
    lines = {"cells": [cell(["one\n", "two"], mark="02-3"), cell("x", mark="02-3")]}
    assert collect_written(lines) == {"02-3": "one\ntwo\n\nx"}  # a duplicated cell: both
    assert collect_written({"cells": [cell("lone \ud800 surrogate")]}) == {
        "01-3": "lone \ufffd surrogate"}
    huge = "A" * (10 * 1024**2)
    for source in (huge, [huge[i:i + 1000] + "\n" for i in range(0, len(huge), 1000)]):
        text = collect_written({"cells": [cell(source)]})["01-3"]
        assert text.cut is True and len(text) == MAX_ANSWER_CHARS and text.startswith("AAA")
    many = {"cells": [cell("B" * 6000)] * 1000}  # many cells for one question: cut as one
    assert len(collect_written(many)["01-3"]) == MAX_ANSWER_CHARS
    assert collect_written(many)["01-3"].cut is True
    exact = collect_written({"cells": [cell("C" * MAX_ANSWER_CHARS)]})["01-3"]
    assert exact.cut is False and exact == "C" * MAX_ANSWER_CHARS


def test_an_answer_cannot_pass_for_one_the_grader_cut():
    # The cut is a flag beside the text: writing the grader's words does not set it.
    note = f"*Cut at {MAX_ANSWER_CHARS:,} characters by the grader.*"
    fake = f"A short answer.\n\n{note}"
    answers = collect_written(submitted({"01-3": fake}))
    assert answers == {"01-3": fake} and answers["01-3"].cut is False
    section = page_sections(written_page([("eve.ipynb", answers)]))["01-3"]
    assert note not in section  # only quoted and escaped, inside the student's answer
    assert "> A short answer." in section and "> \\*Cut at" in section


# --- The teacher's page -----------------------------------------------------------------

RENDER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render
HOSTILE = ("# A heading\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n"
           "[a link](https://example.org) ![an image](x.png) <https://example.org>\n"
           "*emphasis* __strong__ `code` ~~gone~~ $x^2$ &lt;b&gt;\n| a | b |\n|---|---|\n"
           "1. a list\n- another\n> a quote\n    indented\n===\n```\nfence\n\\\n"
           "right-to-left \u202e and a tab\there\r\nand a NUL \x00")


def test_an_answer_is_quoted_with_nothing_in_it_live():
    html = RENDER(quoted(HOSTILE))
    assert set(re.findall(r"</?([a-z0-9]+)", html)) == {"blockquote", "p", "br"}, html
    assert html.count("<blockquote>") == 1 and html.count("<br />") == HOSTILE.count("\n")
    for shown in ("# A heading", "&lt;script&gt;alert(1)&lt;/script&gt;", "[a link](https://",
                  "*emphasis* __strong__ `code` ~~gone~~ $x^2$ &amp;lt;b&amp;gt;", "| a | b |",
                  "1. a list", "- another", "&gt; a quote", "\\u202e", "\\there", "\\x00"):
        assert shown in html, shown
    assert "\u202e" not in quoted(HOSTILE) and "\x00" not in quoted(HOSTILE)


def page_sections(page: str) -> dict[str, str]:
    parts = re.split(r"^## ", page, flags=re.MULTILINE)[1:]
    return {part.split(":", 1)[0]: part for part in parts}


def test_the_page_puts_the_model_answer_beside_each_submissions_answer():
    rows = [("alice.ipynb", {"01-3": HOSTILE, "07-3": "Because the reserve leaves no room."}),
            ("bob`s <b>.ipynb", {"01-3": Answer("x" * MAX_ANSWER_CHARS, cut=True)})]
    page = written_page(rows)
    sections = page_sections(page)
    assert list(sections) == IDS
    for question in WRITTEN:
        at = sections[question.id].index
        assert at(question.prompt) < at(question.model_answer[1:]) < at("Answered by")
    first = sections["01-3"].index
    assert (first("Answered by 2 of 2.") < first("### ` alice.ipynb `")
            < first("### `` bob`s <b>.ipynb ``") < first("*Cut at 10,000 characters"))
    assert "> Because the reserve leaves no room." in sections["07-3"]
    assert sections["07-3"].endswith("*Not answered:* `` bob`s <b>.ipynb ``.\n\n")
    assert "Answered by 1 of 2." in sections["07-3"]
    assert "*Not answered:* ` alice.ipynb `, `` bob`s <b>.ipynb ``." in sections["02-3"]
    html = RENDER(page)
    assert "<script" not in html and "<img" not in html and "<a " not in html
    assert html.count("<h1>") == 1 and html.count("<h2>") == len(WRITTEN)
    assert html.count("<h3>") == 3 and html.count("<table") == 0


def test_the_report_is_written_whole_or_not_at_all(tmp_path):
    path = tmp_path / "written.md"
    assert written_report([("a.ipynb", {"05-3": "It stops."})], path) == path
    assert path.read_text(encoding="utf-8") == written_page([("a.ipynb", {"05-3": "It stops."})])
    before = path.read_bytes()
    for rows in ([("a.ipynb", "not a dict")], [["a.ipynb", {}]], [(1, {})], None):
        with pytest.raises(TypeError):
            written_report(rows, path)
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]


def test_a_graded_notebook_with_the_section_is_read_back_from_its_handed_in_bytes(tmp_path):
    # The student edition ends with the section, before its closing line; the grader reads
    # the handed-in bytes and takes the answers from them, not from a kernel.
    from ledgerlab.course.grading import editions, judge

    student = editions.student_edition(nbformat.read(NOTEBOOKS / editions.EXERCISES_NOTEBOOK,
                                                     as_version=4))
    ids = [cell.id for cell in student.cells]
    assert ids[-len(written_section()) - 1:-1] == [cell.id for cell in written_section()]
    nbformat.validate(student)
    for cell in student.cells:
        if cell.metadata.get("ledgerlab", {}).get("written") == "06-3":
            cell.source = "Backups, and requests already sent."
    path = tmp_path / "ada.ipynb"
    nbformat.write(student, path)
    data = judge.read_submission(path)
    assert isinstance(data, bytes)
    answers = collect_written(nbformat.reads(data.decode("utf-8"), as_version=4))
    assert answers == {"06-3": "Backups, and requests already sent."}
    page = written_page([(path.name, answers)])
    assert "> Backups, and requests already sent." in page_sections(page)["06-3"]
