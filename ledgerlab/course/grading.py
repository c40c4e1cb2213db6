"""The graded edition: a student notebook without solutions, and an autograder.

Everything comes from ``ledgerlab.course.exercises``: the answer cells are named by each
checker's parameters, the solutions are each exercise's ``solution_code``, and the
hidden tests are ``Exercise.grade`` (the learner's ``check`` plus what only grading runs).

Built on nbclient, which JupyterLab already installs, rather than otter-grader or
nbgrader: both would need the answers written again in a master notebook in their own
format, nbgrader a course database besides, and otter a whole-notebook timeout that
scores a looping submission 0. Here each cell has a timeout, and a cell that runs over
is interrupted and the rest of the notebook still runs and is graded.

    python -m ledgerlab.course.grading assignment build/assignment
    python -m ledgerlab.course.grading grade SUBMISSIONS --out build/grades.csv
    python -m ledgerlab.course.grading solutions notebooks/09-solutions.ipynb
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from .exercises import EXERCISES

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
EXERCISES_NOTEBOOK = "08-exercises.ipynb"
SOLUTIONS_NOTEBOOK = "09-solutions.ipynb"
RESULT = "LEDGERLAB-GRADE "  # how a hidden cell's verdict is told apart from other output
CELL_TIMEOUT = 30  # seconds per cell, hidden cells included
NOTEBOOK_TIMEOUT = 600  # seconds per submission, kernel start included
BY_NAME = {f"q{exercise.number}": exercise for exercise in EXERCISES}


# --- The notebooks --------------------------------------------------------------------

def _edition(cell) -> str | None:
    return cell.metadata.get("ledgerlab", {}).get("edition")


def _answer(cell) -> str | None:
    return cell.metadata.get("ledgerlab", {}).get("answer")


def _without_solution_links(text: str) -> str:
    text = re.sub(r" · Next: \[[^\]]*\]\(" + re.escape(SOLUTIONS_NOTEBOOK) + r"\)", "", text)
    return "\n".join(line for line in text.split("\n") if SOLUTIONS_NOTEBOOK not in line)


def _without_solution_calls(source: str) -> str:
    """Drop the commented-out ``name.solution()`` lines a self-paced learner may uncomment."""
    return "\n".join(line for line in source.split("\n")
                     if not re.fullmatch(r"# [\w.]+\.solution\(\)", line.strip()))


def _clear(cell) -> None:
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None


GRADED_NOTE = (
    "**Graded edition.** Write your answers in place of each `...` and keep the answer "
    "variables' names: the grader reads them. `check()` and `hint()` work as you go; "
    "`solution()` is hidden until your teacher shares the solutions. Save the notebook and "
    "hand it in as it is; the grader runs it from the top, and a cell that runs longer than "
    "its time limit is stopped."
)


def student_edition(notebook):
    """The exercises as a student gets them: no solution code, ``solution()`` explained."""
    notebook = nbformat.from_dict(json.loads(json.dumps(notebook)))  # a deep copy
    cells = []
    for cell in notebook.cells:
        if _edition(cell) == "self-paced":
            continue
        if cell.cell_type == "markdown":
            cell.source = _without_solution_links(cell.source)
        else:
            cell.source = _without_solution_calls(cell.source)
        _clear(cell)
        cells.append(cell)
    first_code = next(i for i, cell in enumerate(cells) if cell.cell_type == "code")
    cells.insert(1, _cell("markdown", GRADED_NOTE, "graded-note"))
    cells.insert(first_code + 2, _cell(
        "code", "from ledgerlab.course.feedback import hide_solutions\n\n"
                "hide_solutions()   # the graded edition: solution() explains instead of answering",
        "graded-hide"))
    notebook.cells = cells
    return notebook


def filled_edition(notebook):
    """The exercises with every answer cell replaced by its solution: the teacher's copy."""
    notebook = nbformat.from_dict(json.loads(json.dumps(notebook)))
    for cell in notebook.cells:
        if _answer(cell):
            cell.source = BY_NAME[_answer(cell)].solution_code
        _clear(cell)
    return notebook


def _cell(kind: str, source: str, cell_id: str):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    cell.id = cell_id  # stable ids keep the generated notebook's diffs small
    return cell


SOLUTIONS_HEAD = """# 09 · Solutions

**What you'll learn**

- one worked answer for every exercise of [08 · Exercises](08-exercises.ipynb), with its check passing

**Before you start**

- Try the exercises first: the checks tell you what is wrong in bytes and turns.

**Time:** about 10 minutes to read; each answer's check explains why it is right.

This notebook is generated from `ledgerlab/exercises.py`, the one place each answer is written
(`python -m ledgerlab.course.grading solutions notebooks/09-solutions.ipynb` rebuilds it)."""

SOLUTIONS_RECAP = """## Recap

- Measure, don't estimate: `request_bytes` and `byte_breakdown` give the exact bytes of a request
  and of each part of it (exercises 1, 2, 4 and 5).
- A prediction about `select` follows from two facts: it keeps a contiguous suffix of whole turns,
  and it fails only when the mandatory input alone is over budget (exercises 1 and 2).
- Count in the unit the limit is in: UTF-16 units for Java's `length()`, UTF-8 bytes of the body
  as the sending client serializes it for the budget (exercises 3 to 5).
- What a journal does with a crash's leftovers is found by opening a real one (exercise 6).

---

Previous: [08 · Exercises](08-exercises.ipynb) · [Contents](00-contents.ipynb)"""


def solutions_notebook():
    """The solutions notebook, unexecuted: every cell comes from ``ledgerlab.course.exercises``."""
    answers = [f"q{e.number}.check({', '.join(e.answers)})" for e in EXERCISES]
    cells = [
        _cell("markdown", SOLUTIONS_HEAD, "solutions-head"),
        _cell("code", "from ledgerlab import Journal, Turn, byte_breakdown, request_bytes\n"
                      "from ledgerlab.course.exercises import (HISTORY, QUESTION, SYSTEM,\n"
                      "                                        grown_question, torn_journal,\n"
                      "                                        q1, q2, q3, q4, q5, q6)",
              "solutions-imports"),
    ]
    for exercise in EXERCISES:
        cells.append(_cell("markdown", f"## Exercise {exercise.number}: {exercise.title}",
                           f"q{exercise.number}-title"))
        cells.append(_cell("code", exercise.solution_code, f"q{exercise.number}-solution"))
    cells.append(_cell("markdown", "## Every check at once", "all-title"))
    cells.append(_cell("code", "results = [" + ",\n           ".join(answers) + "]\n"
                               "[bool(result) for result in results]", "all-checks"))
    cells.append(_cell("markdown", SOLUTIONS_RECAP, "recap"))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata.update(nbformat.read(NOTEBOOKS / EXERCISES_NOTEBOOK, as_version=4).metadata)
    return notebook


def execute(notebook, folder: Path, cell_timeout: int = CELL_TIMEOUT):
    """Run ``notebook`` in a fresh kernel with ``folder`` as its working directory."""
    from nbclient import NotebookClient

    NotebookClient(notebook, timeout=cell_timeout, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(folder)}}).execute()
    notebook.metadata.pop("widgets", None)
    return notebook


def write_solutions(path: Path) -> None:
    """Generate the solutions notebook, execute it where it lives, and write it."""
    path = Path(path)
    notebook = execute(solutions_notebook(), path.parent)
    nbformat.write(notebook, path)


def build_assignment(out: Path, notebooks: Path = NOTEBOOKS) -> Path:
    """``student/`` (the course without solutions), ``solutions/``, ``autograder/``."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    student, solutions, autograder = (out / name for name in ("student", "solutions", "autograder"))
    for folder in (student, solutions, autograder):
        folder.mkdir(parents=True)
    exercises = nbformat.read(notebooks / EXERCISES_NOTEBOOK, as_version=4)
    for path in sorted(notebooks.glob("*.ipynb")):
        if path.name == SOLUTIONS_NOTEBOOK:
            continue
        if path.name == EXERCISES_NOTEBOOK:
            nbformat.write(student_edition(exercises), student / path.name)
            continue
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                cell.source = _without_solution_links(cell.source)
            else:
                cell.source = _without_solution_calls(cell.source)
        nbformat.write(notebook, student / path.name)
    for extra in notebooks.glob("*.cfg"):
        shutil.copy(extra, student / extra.name)
    nbformat.write(filled_edition(exercises), solutions / EXERCISES_NOTEBOOK)
    shutil.copy(notebooks / SOLUTIONS_NOTEBOOK, solutions / SOLUTIONS_NOTEBOOK)
    manifest = {
        "notebook": EXERCISES_NOTEBOOK,
        "exercises": [{"name": name, "title": exercise.title, "answers": list(exercise.answers),
                       "points": 1} for name, exercise in BY_NAME.items()],
        "cell_timeout": CELL_TIMEOUT,
        "notebook_timeout": NOTEBOOK_TIMEOUT,
    }
    (autograder / "assignment.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return out


# --- Grading ----------------------------------------------------------------------------

def _hidden_cell(name: str):
    # Imports nothing but the exercises, so the student's kernel stays fast, and the
    # student's own names (a variable called json, a redefined q1) cannot change the
    # verdict; what the student's code prints while it is graded is swallowed, and only
    # these cells report. Not a sandbox: code in the student's kernel could still patch
    # ledgerlab itself.
    cell = nbformat.v4.new_code_cell(
        f"import contextlib as _contextlib, io as _io, json as _json\n"
        f"from ledgerlab.course.exercises import {name} as _exercise\n"
        f"with _contextlib.redirect_stdout(_io.StringIO()):\n"
        f"    _status = _exercise.graded(globals()).status\n"
        f"print({RESULT!r} + _json.dumps({{'exercise': {name!r}, 'status': _status}}))")
    cell.metadata["ledgerlab"] = {"hidden": name}
    return cell


def run_submission(path: Path, names: list[str], cell_timeout: int) -> None:
    """In the grading subprocess: run the notebook, then one hidden cell per exercise.

    Each verdict is printed as soon as its cell finishes, so a parent that has to kill
    this process still has the verdicts before the hang.
    """
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    # A submitted cell that claims to be a hidden one (its metadata is the student's to
    # edit) is dropped with the raw cells: only the cells added here report a verdict.
    notebook.cells = [cell for cell in notebook.cells if cell.cell_type != "raw"
                      and "hidden" not in cell.metadata.get("ledgerlab", {})]
    notebook.cells += [_hidden_cell(name) for name in names]

    def report(cell, **_):
        name = cell.metadata.get("ledgerlab", {}).get("hidden")
        if cell.cell_type == "code" and name:
            for output in cell.get("outputs", []):
                for line in output.get("text", "").splitlines():
                    if line.startswith(RESULT) and json.loads(line[len(RESULT):])["exercise"] == name:
                        print(line, flush=True)

    stopped = {"ename": "CellTimeoutError", "evalue": f"stopped after {cell_timeout} s",
               "traceback": []}
    client = NotebookClient(notebook, timeout=cell_timeout, interrupt_on_timeout=True,
                            error_on_timeout=stopped, allow_errors=True, kernel_name="python3",
                            shutdown_kernel="immediate",
                            resources={"metadata": {"path": str(path.parent)}},
                            on_cell_executed=report)
    client.execute()


def grade_submission(path: Path, names: list[str], *, cell_timeout: int = CELL_TIMEOUT,
                     notebook_timeout: int = NOTEBOOK_TIMEOUT) -> dict[str, int]:
    """Grade one notebook in a subprocess, in a temporary directory that is also its HOME.

    Returns the score of each exercise; an exercise without a verdict (the notebook did
    not parse, the kernel died, the whole run timed out) scores 0.
    """
    with tempfile.TemporaryDirectory(prefix="ledgerlab-grade-") as tmp:
        work = Path(tmp)
        shutil.copyfile(path, work / "submission.ipynb")
        env = {**os.environ, "HOME": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
        env.pop("JUPYTER_PATH", None)
        command = [sys.executable, "-m", "ledgerlab.course.grading", "_run", "submission.ipynb",
                   "--cell-timeout", str(cell_timeout), *names]
        process = subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            out, _ = process.communicate(timeout=notebook_timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            out, _ = process.communicate()
        _kill_group(process.pid)  # the runner's group (the kernel starts a session of its own)
    scores = dict.fromkeys(names, 0)
    for line in out.splitlines():
        if line.startswith(RESULT):
            verdict = json.loads(line[len(RESULT):])
            if verdict.get("exercise") in scores:
                scores[verdict["exercise"]] = int(verdict.get("status") == "correct")
    return scores


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def grade(submissions: Path, out: Path, autograder: Path | None = None, *,
          cell_timeout: int | None = None, jobs: int = 1) -> list[dict[str, object]]:
    """Grade every ``.ipynb`` in ``submissions``; write ``submission,score,max,q1,...``."""
    manifest = (json.loads((Path(autograder) / "assignment.json").read_text())
                if autograder else None)
    entries = manifest["exercises"] if manifest else [
        {"name": name, "points": 1} for name in BY_NAME]
    names = [entry["name"] for entry in entries]
    points = {entry["name"]: entry["points"] for entry in entries}
    timeout = cell_timeout or (manifest or {}).get("cell_timeout", CELL_TIMEOUT)
    notebook_timeout = (manifest or {}).get("notebook_timeout", NOTEBOOK_TIMEOUT)
    paths = sorted(Path(submissions).glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no .ipynb files in {submissions}")

    def one(path: Path) -> dict[str, object]:
        start = time.monotonic()
        scores = grade_submission(path, names, cell_timeout=timeout,
                                  notebook_timeout=notebook_timeout)
        earned = {name: scores[name] * points[name] for name in names}
        return {"submission": path.name, "score": sum(earned.values()),
                "max": sum(points.values()), **earned, "seconds": time.monotonic() - start}

    # Each submission is its own process tree: grading several at once only overlaps them.
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rows = list(pool.map(one, paths))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["submission", "score", "max", *names],
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledgerlab.course.grading", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    assignment = commands.add_parser("assignment", help="build student/, solutions/, autograder/")
    assignment.add_argument("out", type=Path)
    grading = commands.add_parser("grade", help="grade every .ipynb in a folder")
    grading.add_argument("submissions", type=Path)
    grading.add_argument("--out", type=Path, default=Path("build/grades.csv"))
    grading.add_argument("--autograder", type=Path)
    grading.add_argument("--cell-timeout", type=int)
    grading.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    solutions = commands.add_parser("solutions", help="regenerate and execute the solutions notebook")
    solutions.add_argument("path", type=Path, nargs="?", default=NOTEBOOKS / SOLUTIONS_NOTEBOOK)
    run = commands.add_parser("_run")  # internal: the grading subprocess
    run.add_argument("notebook", type=Path)
    run.add_argument("--cell-timeout", type=int, default=CELL_TIMEOUT)
    run.add_argument("names", nargs="+")
    args = parser.parse_args(argv)

    if args.command == "assignment":
        out = build_assignment(args.out)
        print(f"wrote {out}/student, {out}/solutions and {out}/autograder")
    elif args.command == "grade":
        if not args.submissions.is_dir():
            parser.error(f"{args.submissions} is not a folder")
        try:
            rows = grade(args.submissions, args.out, args.autograder,
                         cell_timeout=args.cell_timeout, jobs=args.jobs)
        except FileNotFoundError as error:
            parser.error(str(error))
        for row in rows:
            print(f"{row['submission']}: {row['score']}/{row['max']} ({row['seconds']:.1f} s)")
        print(f"wrote {args.out} ({len(rows)} submissions)")
    elif args.command == "solutions":
        write_solutions(args.path)
        print(f"wrote {args.path}")
    else:
        run_submission(args.notebook, args.names, args.cell_timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
