"""What a grading run writes: temporary names that never grow with a student's file name,
and the run's files all written or none, the feedback folder holding this run's pages only."""

import csv
import html
import pathlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.feedback import UNANSWERED, Feedback
from ledgerlab.course.grading import judge, reports
from ledgerlab.course.grading.graded import Graded

from sentences import says

POINTS = {name: 1 for name in GRADED}

# 62 four-byte letters and .ipynb: 254 bytes, a legal file name. Its feedback page's name,
# with a dot and .tmp around it, was 257 bytes.
LONG = "\U00010330" * 62 + ".ipynb"


def outputs(out):
    """Every file a run leaves beside grades.csv, with its contents."""
    return {str(path.relative_to(out.parent)): path.read_text(encoding="utf-8")
            for path in sorted(out.parent.rglob("*")) if path.is_file()}


def submissions(tmp_path, *names):
    folder = tmp_path / "submissions"
    folder.mkdir(exist_ok=True)
    for path in folder.iterdir():
        path.unlink()
    for name in names:
        (folder / name).write_text("{not a notebook")  # graded 0 without a kernel
    return folder


def test_a_254_byte_file_name_gets_its_feedback_and_every_file_is_written(tmp_path):
    assert len(LONG.encode()) == 254
    out = tmp_path / "out" / "grades.csv"
    judge.grade(submissions(tmp_path, LONG, "b.ipynb"), out)
    with open(out, newline="", encoding="utf-8") as handle:
        assert sorted(row["submission"] for row in csv.DictReader(handle)) == ["b.ipynb", LONG]
    pages = list(out.with_name("grades-feedback").iterdir())
    assert sorted(page.suffix for page in pages) == [".html", ".html", ".md", ".md"]
    assert all(len(page.name.encode()) <= 255 for page in pages)
    assert out.with_name("grades-summary.md").is_file()
    assert out.with_name("grades-written.md").is_file()
    assert all(not path.name.startswith(".") for path in out.parent.rglob("*"))


def test_temporary_names_never_grow_with_the_submissions_name(tmp_path, monkeypatch):
    names = []
    write_text = pathlib.Path.write_text

    def recording(path, *args, **kwargs):
        names.append(path.name)
        return write_text(path, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_text", recording)
    judge.grade(submissions(tmp_path, LONG), tmp_path / "out" / "grades.csv")
    temporary = [name for name in names if name.startswith(".")]
    assert temporary and max(len(name) for name in temporary) <= 30


def test_a_run_that_fails_while_writing_changes_nothing(tmp_path, monkeypatch):
    out = tmp_path / "out" / "grades.csv"
    judge.grade(submissions(tmp_path, "a.ipynb", "b.ipynb"), out)
    before = outputs(out)
    write_text = pathlib.Path.write_text

    def full_disk_at_the_summary(path, text, *args, **kwargs):
        if text.startswith("# Grading summary"):
            raise OSError(28, "No space left on device")
        return write_text(path, text, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_text", full_disk_at_the_summary)
    with pytest.raises(OSError, match="No space left"):
        judge.grade(submissions(tmp_path, "c.ipynb"), out)
    assert outputs(out) == before  # grades, pages, summary and written report: all the old
    assert sorted(path.name for path in out.parent.iterdir()) == [
        "grades-feedback", "grades-similarity.md", "grades-summary.md",
        "grades-written-scores.csv", "grades-written.md", "grades.csv"]


def test_an_earlier_runs_feedback_pages_do_not_stay_beside_the_new_grades(tmp_path):
    out = tmp_path / "out" / "grades.csv"
    judge.grade(submissions(tmp_path, "a.ipynb", "gone.ipynb"), out)
    judge.grade(submissions(tmp_path, "a.ipynb"), out)
    pages = sorted(path.name for path in out.with_name("grades-feedback").iterdir())
    assert len(pages) == 2 and all(page.startswith("a-") for page in pages)


# --- Feedback as the platforms take it: HTML beside the Markdown (issue 48) ---------------

VERDICT = "484 <= 597: <b>the</b> turn fits & so does cell_type, a __init__ [x](y)"


def graded_with(message, note=""):
    verdicts = {name: UNANSWERED if name != "q1" else Feedback("incorrect", message)
                for name in GRADED}
    return Graded("zoë <b>.ipynb", verdicts, note, 1.0)


def visible_text(html_page):
    """What a browser shows of an HTML page (and what copying it pastes): its text."""
    class Text(HTMLParser):
        def __init__(self):
            super().__init__()
            self.parts, self.skip = [], False

        def handle_starttag(self, tag, attrs):
            self.skip = tag == "title"

        def handle_endtag(self, tag):
            self.skip = False
            if tag in ("h1", "h2", "p"):
                self.parts.append("\n")

        def handle_data(self, data):
            if not self.skip:
                self.parts.append(data)
    parser = Text()
    parser.feed(html_page)
    return "".join(parser.parts)


def test_the_markdown_feedback_has_no_entity_or_backslash_and_nothing_in_it_is_live():
    """Before, the page said `484 &lt;= 597` and `cell\\_type`, which showed raw wherever the
    page was pasted or read as text."""
    page = reports.feedback_page(graded_with(VERDICT, "cell 3 has no cell_type"), POINTS)
    assert "&lt;" not in page and "&amp;" not in page and "\\_" not in page
    assert "484 <= 597" in page and "`cell_type`" in page and "`__init__`" in page
    rendered = MarkdownIt("commonmark", {"html": True}).render(page)
    assert "<b>" not in rendered and "<a " not in rendered and "<strong>init" not in rendered
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert VERDICT in text and "Note: cell 3 has no cell_type." in text


def test_each_feedback_page_has_an_html_page_beside_it_escaped_and_pasteable(tmp_path):
    out = tmp_path / "grades.csv"
    result = graded_with(VERDICT, "cell 3 has no cell_type")
    reports.write_grades([result], POINTS, out)
    folder = reports.feedback_folder(out)
    markdown = folder / reports.feedback_name(result.submission)
    page = (folder / reports.feedback_name(result.submission, ".html")).read_text(encoding="utf-8")
    assert markdown.is_file() and markdown.stem == Path(reports.feedback_name(
        result.submission, ".html")).stem
    assert "<b>" not in page and "<a " not in page  # the student's name and the verdict escaped
    assert '<meta charset="utf-8">' in page
    text = visible_text(page)
    assert "Feedback: zoë <b>.ipynb" in text and f"Score: 0 / {len(GRADED)}" in text
    assert f"Not yet (0 / 1): {VERDICT}" in text  # as written: no Markdown, no entity
    assert "Note: cell 3 has no cell_type." in text
    assert text.count("Not answered yet") == len(GRADED) - 1


def test_a_submission_not_graded_says_so_once_in_its_html_too(tmp_path):
    why = "not a notebook (not JSON): not graded"
    result = Graded("x.ipynb", {name: Feedback("unanswered", why) for name in GRADED}, why, 0.0,
                    failure=why)
    text = visible_text(reports.feedback_html(result, POINTS))
    says(text, "Not graded", "not a notebook", "JSON", len(GRADED), "exercises", in_order=True)
    assert "Not answered yet" not in text


def test_code_in_an_exercises_title_is_code_on_both_pages_never_backticks():
    """Before, exercise 3's title, "what Java's `String.length()` reports", came out as
    `` `String.length()` `` in Markdown (a code span holding the backticks) and with its
    backticks raw in the HTML page a teacher pastes."""
    titled = [exercise for exercise in GRADED.values() if "`" in exercise.title]
    assert titled  # exercise 3's and 5's name code
    page = reports.feedback_page(graded_with(VERDICT), POINTS)
    rendered = MarkdownIt("commonmark").render(page)
    html_page = reports.feedback_html(graded_with(VERDICT), POINTS)
    for exercise in titled:
        words = reports.COURSE_CODE.findall(exercise.title)
        assert all(f"<code>{html.escape(word)}</code>" in rendered for word in words)
        assert all(f"<code>{html.escape(word)}</code>" in html_page for word in words)
        heading = next(line for line in visible_text(html_page).splitlines()
                       if line.startswith(f"Exercise {exercise.number}:"))
        assert "`" not in heading and exercise.title.replace("`", "") in heading
    assert "`" not in html.unescape(re.sub(r"<[^>]+>", "", rendered))


def test_the_written_page_names_a_submission_not_graded_as_that_not_as_unanswered(tmp_path):
    out = tmp_path / "grades.csv"
    why = "not a notebook (not JSON): not graded"
    broken = Graded("broken.ipynb", {name: Feedback("unanswered", why) for name in GRADED}, why,
                    0.0, failure=why)
    answered = Graded("zoë.ipynb", {name: UNANSWERED for name in GRADED}, "", 1.0,
                      written={"01-3": "Because the ledger keeps every turn."})
    reports.write_grades([broken, answered], POINTS, out)
    page = reports.written_path(out).read_text(encoding="utf-8")
    says(page, "Not graded", "broken.ipynb", in_order=True)
    not_answered = "\n".join(line for line in page.splitlines() if "Not answered" in line)
    assert not_answered and "broken" not in not_answered and "zoë.ipynb" in not_answered
    assert "Answered by 1 of 1." in page
