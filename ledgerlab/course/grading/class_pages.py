"""What a grading run with a roster gives the teacher beyond the grades: the similarity
report, and the gradebook files Canvas and Moodle import.

``judge.grade`` makes them from its results, and ``reports.write_grades`` writes them with
the rest, all or none. Nothing here changes a score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ledgerlab.console import printable

from ..exercises import GRADED
from . import collect, gradebook, similarity
from .reports import NOT_GRADED, failure_text, teacher_file


def class_pages(results: list, paths: list[Path], points: Mapping[str, int], out: Path,
                read: Callable, students: Mapping[str, Mapping[str, str]] | None = None,
                filed: Mapping[str, str] | None = None, collected: Mapping | None = None,
                canvas_title: str = gradebook.ASSIGNMENT_TITLE
                ) -> tuple[dict[Path, str], list[str]]:
    """The similarity page, and with a roster the Canvas and Moodle gradebooks: {path: text};
    and lines for the summary (the students a Moodle worksheet cannot name).

    ``read``: a submission's notebook, or why it cannot be read (``judge.read_notebook``);
    ``filed``: submission name -> the roster file name it is filed under; ``canvas_title``:
    the Canvas gradebook's column (``gradebook.canvas_column``)."""
    def cells():  # one notebook at a time: the page keeps each answer's hash, not its code
        for path in paths:
            notebook = read(path)
            if not isinstance(notebook, str):
                yield path.name, similarity.answer_cells(notebook)

    written = [(result.submission, result.written) for result in results]
    pages = {teacher_file(out, "similarity"): similarity.similarity_page(cells(), written)}
    notes: list[str] = []
    if students is None:
        return pages, notes
    by_student: dict[str, list[int]] = {}
    comments: dict[str, str] = {}  # of the student's best submission
    not_graded: dict[str, str] = {}  # a student's file that could not be graded: why
    for result in results:
        file = (filed or {}).get(result.submission)
        if file not in students:
            continue
        score = result.score(dict(points))
        if not result.has_score:
            not_graded.setdefault(file, comment(result, score))
            continue
        by_student.setdefault(file, []).append(sum(score.values()))
        if sum(score.values()) == max(by_student[file]):
            comments[file] = comment(result, score)
    # A student with no file graded has no grade (None: a blank cell), and Moodle's comment
    # says why; another file of theirs that was graded gives the grade.
    scores: dict[str, int | None] = {**dict.fromkeys(not_graded),
                                     **gradebook.best_scores(by_student)}
    comments = {**not_graded, **comments}
    most = sum(points.values())
    ids = platform_ids(results, filed or {}, collected or {})
    pages[teacher_file(out, "canvas")] = gradebook.canvas_csv(students, scores, most, ids["canvas"],
                                                              canvas_title)
    worksheet, missing = gradebook.moodle_csv(students, scores, most, ids["moodle"], comments)
    pages[teacher_file(out, "moodle")] = worksheet
    if ids["moodle"] and missing:
        notes.append(f"Not in the Moodle worksheet, no participant id (their file did not come "
                     f"from Moodle's download): {', '.join(missing)}")
    return pages, notes


def platform_ids(results: list, filed: Mapping[str, str], collected: Mapping
                 ) -> dict[str, dict[str, str]]:
    """{"canvas": {roster file name: user id}, "moodle": {...: participant id}}: from what
    ``collect`` recorded, or, for a platform's download graded as it is, from each file's
    own name (``collect.submitted_as``)."""
    ids: dict[str, dict[str, str]] = {"canvas": {}, "moodle": {}}
    for result in results:
        found = collect.submitted_as(result.submission, collected)
        file = filed.get(result.submission)
        if found.platform in ids and found.lms_id and file:
            ids[found.platform].setdefault(file, found.lms_id)
    return ids


def comment(result, score: Mapping[str, int]) -> str:
    """The gradebook's comment on a submission: the exercises it got right, or, for one none
    of which could be graded, that it was not graded and why (never "none right")."""
    if result.failure:
        return f"{NOT_GRADED}: {printable(failure_text(result))}"
    numbers = [GRADED[name].number for name, got in score.items() if got]
    return f"Exercises right: {', '.join(map(str, numbers)) or 'none'}"
