"""What a grading run writes: temporary names that never grow with a student's file name,
and the run's files all written or none, the feedback folder holding this run's pages only."""

import csv
import pathlib

import pytest

from ledgerlab.course.grading import judge

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
    assert len(pages) == 2 and all(len(page.name.encode()) <= 255 for page in pages)
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
    pages = [path.name for path in out.with_name("grades-feedback").iterdir()]
    assert len(pages) == 1 and pages[0].startswith("a-")
