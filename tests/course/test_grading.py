"""The graded edition: the student copy ships no answers, the generated solutions notebook
matches its generator, and the grader scores what each submission earned, whatever it does."""

import csv
import json
import re

import nbformat
import pytest

from ledgerlab.course import feedback, paths
from ledgerlab.course.grading import cli as grading_cli
from ledgerlab.course.grading import editions, judge
from ledgerlab.course.exercises import EXERCISES, OPTIONAL

from maintainer_tools import tool
from sandbox_required import sandbox_or_skip

write_solutions = tool("write_solutions")

CELL_TIMEOUT = 20  # seconds: the slowest real cell takes 1.6 s idle; this leaves 12x for load
SANDBOXED = sandbox_or_skip()


def sources(notebook):
    return [(cell.cell_type, cell.source) for cell in notebook.cells]


def test_committed_solutions_notebook_is_what_the_generator_makes():
    committed = nbformat.read(paths.notebooks() / editions.SOLUTIONS_NOTEBOOK, as_version=4)
    assert sources(committed) == sources(write_solutions.solutions_notebook()), (
        "regenerate it: .venv/bin/python tools/write_solutions.py")
    checks = [cell for cell in committed.cells if ".check(" in cell.source]
    optional = sum(map(len, OPTIONAL.values()))  # the lessons' own, after 12's: graded nowhere
    assert len(checks) == len(EXERCISES) + 1 + optional
    assert all(cell.outputs for cell in checks)  # committed executed


def test_exercises_notebook_answer_cells_name_the_checkers_parameters():
    notebook = nbformat.read(paths.notebooks() / editions.EXERCISES_NOTEBOOK, as_version=4)
    answers = {cell.metadata["ledgerlab"]["answer"]: cell.source for cell in notebook.cells
               if cell.metadata.get("ledgerlab", {}).get("answer")}
    assert list(answers) == [f"q{e.number}" for e in EXERCISES]
    for exercise in EXERCISES:
        call = f"q{exercise.number}.check({', '.join(exercise.answers)})"
        assert answers[f"q{exercise.number}"].rstrip().endswith(call)
        assert exercise.solution_code.splitlines()[-1].split("#")[0].rstrip() == call


@pytest.fixture(scope="module")
def assignment(tmp_path_factory):
    return editions.build_assignment(tmp_path_factory.mktemp("build") / "assignment")


def test_student_edition_ships_no_solutions(assignment):
    student = assignment / "student"
    names = sorted(path.name for path in student.glob("*.ipynb"))
    assert editions.EXERCISES_NOTEBOOK in names and editions.SOLUTIONS_NOTEBOOK not in names
    text = "\n".join(cell.source for path in student.glob("*.ipynb")
                     for cell in nbformat.read(path, as_version=4).cells)
    assert editions.SOLUTIONS_NOTEBOOK not in text and not re.search(r"q\d+\.solution\(", text)
    exercises = nbformat.read(student / editions.EXERCISES_NOTEBOOK, as_version=4)
    source = nbformat.read(paths.notebooks() / editions.EXERCISES_NOTEBOOK, as_version=4)
    stubs = {line.strip() for cell in source.cells  # what the answer cells hold before answers
             if cell.metadata.get("ledgerlab", {}).get("answer") for line in cell.source.splitlines()}
    for exercise in EXERCISES:
        for line in exercise.solution_code.splitlines()[:-1]:
            if (len(line.strip()) > 12 and line.strip() not in stubs  # real code, not `n = 0`
                    and not line.startswith(("import ", "from "))):  # the setup cell imports too
                assert line.strip() not in "\n".join(cell.source for cell in exercises.cells)
        assert f"# q{exercise.number}.hint()" in text
    assert "hide_solutions()" in exercises.cells[2].source  # before the imports
    assert all(not cell.get("outputs") for cell in exercises.cells if cell.cell_type == "code")
    manifest = json.loads((assignment / "autograder" / "assignment.json").read_text())
    assert [entry["name"] for entry in manifest["exercises"]] == [f"q{e.number}" for e in EXERCISES]
    assert (assignment / "solutions" / editions.SOLUTIONS_NOTEBOOK).is_file()


def test_the_student_folder_holds_the_course_notebooks_and_nothing_else(assignment):
    # Not notebooks/nbval-sanitize.cfg: how the course's tests compare outputs is no student's.
    files = sorted(path.name for path in (assignment / "student").iterdir())
    assert files == sorted(path.name for path in paths.notebooks().glob("*.ipynb")
                           if path.name != editions.SOLUTIONS_NOTEBOOK)


def small_notebook(*sources):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])


SOLVED = {f"q{e.number}": e.solution_code for e in EXERCISES}
IMPORTS = ("from ledgerlab import Journal, Turn, byte_breakdown, request_bytes, request_tokens\n"
           "from ledgerlab.course.exercises import *")
# Right answers to 1, 3, 4 and 6; wrong ones to 2 and 5; and a cell that raises, one that
# deletes every file it can see, one that prints a verdict, and an infinite loop.
MIXED = small_notebook(
    IMPORTS, SOLVED["q1"], "1 / 0", "n = 25", SOLVED["q3"],
    "import os\nfor name in os.listdir('.'):\n    os.remove(name)",
    "while True:\n    pass",
    SOLVED["q4"], "requests_budget = 400.0",
    "print('LEDGERLAB-GRADE {\"exercise\": \"q5\", \"status\": \"correct\"}')",
    SOLVED["q6"])


@pytest.fixture(scope="module")
def graded(assignment, tmp_path_factory):
    submissions = tmp_path_factory.mktemp("submissions")
    student = assignment / "student" / editions.EXERCISES_NOTEBOOK
    (submissions / "blank.ipynb").write_bytes(student.read_bytes())
    solutions = assignment / "solutions" / editions.EXERCISES_NOTEBOOK
    (submissions / "full.ipynb").write_bytes(solutions.read_bytes())
    nbformat.write(MIXED, submissions / "mixed.ipynb")
    (submissions / "broken.ipynb").write_text("{not a notebook")
    before = sorted(path.name for path in submissions.iterdir())
    out = tmp_path_factory.mktemp("out") / "grades.csv"
    results = judge.grade(submissions, out, assignment / "autograder",
                            cell_timeout=CELL_TIMEOUT, jobs=2, sandboxed=SANDBOXED)
    assert sorted(path.name for path in submissions.iterdir()) == before  # nothing deleted
    with open(out, newline="") as handle:
        table = list(csv.DictReader(handle))
    return {row["submission"]: row for row in table}, results, out


@pytest.mark.slow  # runs kernels
def test_grades_csv_has_one_row_per_submission(graded):
    table, results, _ = graded
    assert sorted(table) == ["blank.ipynb", "broken.ipynb", "full.ipynb", "mixed.ipynb"]
    assert list(next(iter(table.values()))) == ["submission", "score", "max",
                                                *(f"q{e.number}" for e in EXERCISES), "late",
                                                "note"]
    assert all(row["max"] == str(len(EXERCISES)) for row in table.values())
    assert len(results) == 4
    # not a notebook: a row, not a crash; no score (a technical failure, not a 0 for answers)
    assert table["broken.ipynb"]["score"] == "" and table["broken.ipynb"]["q1"] == ""
    assert table["broken.ipynb"]["note"] == "not a notebook (not JSON): not graded"


@pytest.mark.slow  # runs kernels
def test_the_solutions_score_full_marks(graded):
    assert graded[0]["full.ipynb"]["score"] == str(len(EXERCISES))


@pytest.mark.slow  # runs kernels
def test_the_unanswered_student_notebook_scores_zero(graded):
    row = graded[0]["blank.ipynb"]
    assert row["score"] == "0" and all(row[f"q{e.number}"] == "0" for e in EXERCISES)


@pytest.mark.slow  # runs kernels
def test_mixed_answers_score_in_between_despite_errors_deletions_forgeries_and_a_loop(graded):
    row = graded[0]["mixed.ipynb"]
    assert (row["q2"], row["q5"]) == ("0", "0")  # 25 is not the smallest; 400.0 is a float
    assert row["score"] == "4"  # 1, 3, 4 and 6: the loop was stopped, the rest graded


@pytest.mark.slow  # runs kernels
def test_every_submission_gets_a_feedback_file_that_diagnoses_without_the_answer(graded):
    _, results, out = graded
    folder = out.with_name("grades-feedback")
    pages = {path.name: path.read_text() for path in folder.glob("*.md")}
    assert len(pages) == 4 and len(list(folder.glob("*.html"))) == 4
    mixed = next(text for name, text in pages.items() if name.startswith("mixed-"))
    assert f"Score: 4 / {len(EXERCISES)}" in mixed
    assert "give a whole number of bytes, e.g. 400, not 400.0" in mixed  # q5: a float
    assert "not the smallest count it rejects" in mixed  # q2: 25
    assert "24" not in mixed.split("## Exercise 2")[1].split("## Exercise 3")[0]  # no answer
    summary = out.with_name("grades-summary.md").read_text()
    assert "| q5 | 1 | 1 | 1 | 1 |" in summary  # broken.ipynb: not graded, not unanswered
    assert "## q2: the commonest mistakes" in summary


@pytest.mark.slow  # runs kernels
def test_a_run_over_the_notebook_timeout_is_killed(tmp_path):
    path = tmp_path / "hang.ipynb"
    # The sleep comes first, so no answer is ever read, however loaded the machine is.
    nbformat.write(small_notebook(IMPORTS, "import time\ntime.sleep(600)", SOLVED["q1"]), path)
    names = [f"q{e.number}" for e in EXERCISES]
    result = judge.grade_submission(path, names, cell_timeout=600, notebook_timeout=8,
                                      sandboxed=SANDBOXED)
    assert not any(result.verdicts.values())
    assert result.note == "stopped: the notebook ran past its time limit"


@pytest.mark.slow  # waits out a 30 s notebook limit
def test_answers_read_before_a_notebook_timeout_still_count(tmp_path):
    path = tmp_path / "late.ipynb"
    nbformat.write(small_notebook(IMPORTS, SOLVED["q1"], "import time\ntime.sleep(600)"), path)
    names = [f"q{e.number}" for e in EXERCISES]
    # 30 s: the kernel's start and q1's cell take about 2 s idle, so this holds under load.
    result = judge.grade_submission(path, names, cell_timeout=600, notebook_timeout=30,
                                      sandboxed=SANDBOXED)
    assert result.verdicts["q1"]
    assert not any(verdict for name, verdict in result.verdicts.items() if name != "q1")
    assert result.note == "stopped: the notebook ran past its time limit"


@pytest.mark.slow  # runs kernels
@pytest.mark.parametrize("source, timeout, why", [
    # No cell of the student's but this one, which cannot time out: only the answers cell does.
    ("def java_length(text):\n    while True:\n        pass", 5,
     "reading them ran past the cell's time limit (5 s)"),
    ("import builtins\nbuiltins.globals = None", CELL_TIMEOUT,
     "the grader's cell that reads them stopped with TypeError"),
    ("import builtins\nbuiltins.print = lambda *a, **k: None", CELL_TIMEOUT,
     "the grader's cell that reads them printed none"),
])
def test_an_answers_cell_that_hands_back_nothing_says_what_happened(tmp_path, source, timeout,
                                                                     why):
    """Before, each was told the notebook "did not reach the grader's cells"."""
    path = tmp_path / "a.ipynb"
    nbformat.write(small_notebook(source), path)
    result = judge.grade_submission(path, ["q3"], cell_timeout=timeout, notebook_timeout=300,
                                    sandboxed=SANDBOXED)
    assert (result.note, result.failure) == ("", "")
    assert result.verdicts["q3"].message.startswith(f"no answers came back: {why}")


def test_a_folder_without_notebooks_is_refused_and_nothing_written(tmp_path):
    out = tmp_path / "grades.csv"
    with pytest.raises(FileNotFoundError, match="no .ipynb files"):
        judge.grade(tmp_path, out)
    assert not out.exists()


def test_assignment_refuses_a_folder_it_did_not_write_and_changes_nothing(tmp_path):
    for name in ("grades.csv", "notes.md"):
        (tmp_path / name).write_text("the teacher's")
    with pytest.raises(editions.AssignmentError, match="not an earlier assignment build"):
        editions.build_assignment(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv", "notes.md"]
    assert grading_cli.main(["assignment", str(paths.notebooks())]) == 2  # the course itself
    assert (paths.notebooks() / editions.EXERCISES_NOTEBOOK).is_file()


def test_assignment_rebuilds_its_own_folder(assignment):
    (assignment / "student" / "stale.ipynb").write_text("{}")
    editions.build_assignment(assignment)
    assert not (assignment / "student" / "stale.ipynb").exists()


def test_grade_refuses_without_its_sandbox_unless_told_what_it_gives_up(tmp_path, monkeypatch,
                                                                        capsys):
    (tmp_path / "a.ipynb").write_text("{}")
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap to be found
    assert grading_cli.main(["grade", str(tmp_path), "--out", str(tmp_path / "g.csv")]) == 2
    err = capsys.readouterr().err
    assert "bwrap is not installed" in err and "--unsafe-no-sandbox" in err
    assert not (tmp_path / "g.csv").exists()
    with pytest.raises(SystemExit):
        grading_cli.main(["grade", "--help"])
    assert "Gives up: the read-only view of the system" in " ".join(capsys.readouterr().out.split())


@pytest.mark.slow  # runs kernels
def test_the_unsafe_mode_still_grades_answers_outside_the_kernel(assignment, tmp_path):
    # --unsafe-no-sandbox gives up isolation, not grading: the filled notebook earns full marks.
    path = tmp_path / "full.ipynb"
    path.write_bytes((assignment / "solutions" / editions.EXERCISES_NOTEBOOK).read_bytes())
    names = [f"q{e.number}" for e in EXERCISES]
    result = judge.grade_submission(path, names, cell_timeout=60, sandboxed=False)
    assert all(result.verdicts.values()) and result.note == "", result


def test_without_a_checkout_the_commands_say_what_is_missing_and_write_nothing(tmp_path,
                                                                                monkeypatch,
                                                                                capsys):
    # A wheel install: no notebooks/ and no teacher/ around the package (ledgerlab.course.paths).
    assert paths.CHECKOUT is not None and (paths.CHECKOUT / "pyproject.toml").is_file()
    monkeypatch.setattr(paths, "CHECKOUT", None)
    assert paths.solutions_file() is None
    assert grading_cli.main(["assignment", str(tmp_path / "assignment")]) == 2
    err = capsys.readouterr().err
    assert "not installed with the package" in err and "clone" in err
    assert not (tmp_path / "assignment").exists()


def test_without_the_teachers_file_no_solutions_notebook_is_made_empty(monkeypatch):
    monkeypatch.setattr(feedback, "worked_solutions", lambda: {})
    with pytest.raises(paths.CheckoutMissing, match="teacher/solutions.py"):
        write_solutions.solutions_notebook()
