"""The graded edition: a student notebook without solutions, and an autograder.

The answer cells are named by each checker's parameters (``ledgerlab.course.exercises``),
the worked solutions are the teacher's ``teacher/solutions.py`` (never in the package), and
the verdicts are ``Exercise.grade`` (the learner's ``check`` plus what only grading runs),
made here on the plain answers that ``sandbox.py`` brings back from each submission.

Built on nbclient, which JupyterLab already installs, rather than otter-grader or
nbgrader: both would need the answers written again in a master notebook in their own
format, nbgrader a course database besides, and otter a whole-notebook timeout that
scores a looping submission 0. Here each cell has a timeout, and a cell that runs over
is interrupted and the rest of the notebook still runs and is graded.

    python -m ledgerlab.course.grading assignment build/assignment
    python -m ledgerlab.course.grading grade SUBMISSIONS --out build/grades.csv
    python -m ledgerlab.course.grading solutions notebooks/10-solutions.ipynb
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import re
import shutil
import stat
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ledgerlab import InvalidText, Turn

from . import sandbox
from .exercises import EXERCISES, GRADED
from .feedback import Feedback, wrong

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
EXERCISES_NOTEBOOK = "09-exercises.ipynb"
SOLUTIONS_NOTEBOOK = "10-solutions.ipynb"
CELL_TIMEOUT = 30  # seconds per cell, the answer cells included
NOTEBOOK_TIMEOUT = 600  # seconds per submission, kernel start included


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
            cell.source = GRADED[_answer(cell)].solution_code
        _clear(cell)
    return notebook


def _cell(kind: str, source: str, cell_id: str):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    cell.id = cell_id  # stable ids keep the generated notebook's diffs small
    return cell


SOLUTIONS_HEAD = """# 10 · Solutions

**What you'll learn**

- one worked answer for every exercise of [09 · Exercises](09-exercises.ipynb), with its check passing

**Before you start**

- Try the exercises first: the checks tell you what is wrong in bytes and turns.

**Time:** about 10 minutes to read; each answer's check explains why it is right.

This notebook is generated from `teacher/solutions.py`, the one place each answer is written
(`python -m ledgerlab.course.grading solutions notebooks/10-solutions.ipynb` rebuilds it)."""

SOLUTIONS_RECAP = """## Recap

- Measure, don't estimate: `request_bytes` and `byte_breakdown` give the exact bytes of a request
  and of each part of it (exercises 1, 2, 4 and 5).
- A prediction about `select` follows from two facts: it keeps a contiguous suffix of whole turns,
  and it fails only when the mandatory input alone is over budget (exercises 1 and 2).
- Count in the unit the limit is in: UTF-16 units for Java's `length()`, UTF-8 bytes of the body
  as the sending client serializes it for the budget (exercises 3 to 5).
- What a journal does with a crash's leftovers is found by opening a real one (exercise 6).
- A token window holds the request and the reply's reserve, counted with its own tokenizer
  (exercise 7).
- Pinned facts are paid first and their bytes do not depend on the turns kept, so a request is
  the mandatory input + the facts + the kept turns (exercise 8).

---

Previous: [09 · Exercises](09-exercises.ipynb) · [Contents](00-contents.ipynb)"""


def solutions_notebook():
    """The solutions notebook, unexecuted: every cell comes from ``ledgerlab.course.exercises``."""
    answers = [f"q{e.number}.check({', '.join(e.answers)})" for e in EXERCISES]
    cells = [
        _cell("markdown", SOLUTIONS_HEAD, "solutions-head"),
        _cell("code", "from ledgerlab import Journal, Turn, byte_breakdown, request_bytes, "
                      "request_tokens, select\n"
                      "from ledgerlab.course import pinning\n"
                      "from ledgerlab.course.exercises import (EXERCISE_FACTS, HISTORY, QUESTION,\n"
                      "                                        SYSTEM, grown_question, torn_journal,\n"
                      "                                        q1, q2, q3, q4, q5, q6, q7, q8)",
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


BUILD_MARK = ".ledgerlab-assignment"  # marks a folder this builder wrote, and may rewrite


class AssignmentError(Exception):
    """The assignment cannot be built where asked; nothing was changed."""


def build_assignment(out: Path, notebooks: Path = NOTEBOOKS) -> Path:
    """``student/`` (the course without solutions), ``solutions/``, ``autograder/``."""
    out = Path(out)
    parts = ("student", "solutions", "autograder")
    if out.exists() and not (out.is_dir() and (out / BUILD_MARK).is_file()
                             and set(os.listdir(out)) <= {*parts, BUILD_MARK}):
        if not out.is_dir() or os.listdir(out):
            raise AssignmentError(f"{out} exists and is not an earlier assignment build: "
                                  f"choose a new or empty folder (nothing was changed)")
    for part in parts:
        shutil.rmtree(out / part, ignore_errors=True)
    student, solutions, autograder = (out / part for part in parts)
    for folder in (student, solutions, autograder):
        folder.mkdir(parents=True)
    (out / BUILD_MARK).write_text("written by python -m ledgerlab.course.grading assignment\n")
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
                       "points": 1} for name, exercise in GRADED.items()],
        "cell_timeout": CELL_TIMEOUT,
        "notebook_timeout": NOTEBOOK_TIMEOUT,
    }
    (autograder / "assignment.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return out


# --- Grading: answers come back from the sandbox, verdicts are made here ---------------------

MAX_NOTEBOOK_BYTES = 5 * 1024**2
NOT_REGULAR = "not a regular file (a directory, a link, a pipe or a device): not graded"


@dataclass(frozen=True)
class Graded:
    """One submission's verdicts, and why it earned nothing if it could not run."""

    submission: str
    verdicts: dict[str, Feedback]
    note: str  # "" when the notebook ran to the end
    seconds: float

    def score(self, points: dict[str, int]) -> dict[str, int]:
        return {name: points[name] * bool(self.verdicts[name]) for name in points}


class _Replay:
    """A function answer as the sandbox measured it: its outputs on the grading inputs."""

    def __init__(self, inputs: tuple, outputs: list) -> None:
        self._outputs = dict(zip(inputs, outputs))

    def __call__(self, argument):
        if argument not in self._outputs:
            raise LookupError("no output for this input")
        output = self._outputs[argument]
        if isinstance(output, dict) and set(output) == {"raised"}:
            raise _named(str(output["raised"]), Exception)()
        return from_plain(output)


def _named(name: str, base: type = object) -> type:
    """A class named ``name`` (cleaned): feedback that names a type names the student's."""
    return type(re.sub(r"\W", "", name)[:60] or "unreadable", (base,), {})


def from_plain(tagged: object, inputs: tuple = (), depth: int = 0) -> object:
    """The answer that ``sandbox.plain`` tagged, rebuilt from untrusted JSON: only ints,
    floats, strings, lists, Turns and replayed functions; anything else is an opaque object."""
    if not isinstance(tagged, dict) or len(tagged) != 1 or depth > 4:
        return _named("unreadable")()
    (kind, value), = tagged.items()
    simple = {"int": int, "float": float, "str": str, "bool": bool}
    if kind in simple and type(value) is simple[kind]:
        return value
    if kind == "ellipsis":
        return Ellipsis
    if kind == "none":
        return None
    if kind in ("list", "tuple") and isinstance(value, list):
        items = [from_plain(item, (), depth + 1) for item in value]
        return items if kind == "list" else tuple(items)
    if kind == "turn" and isinstance(value, list) and len(value) == 2:
        return Turn(*value)  # InvalidText for a non-str: a wrong answer, said so
    if kind == "function" and isinstance(value, list) and inputs:
        return _Replay(inputs, value)
    return _named(str(value) if kind == "other" else "unreadable")()


def judge(name: str, answers: dict) -> Feedback:
    """The verdict on one exercise's plain answers, by the learner's own checks."""
    exercise = GRADED[name]
    values = []
    for variable in exercise.answers:
        tagged = answers.get(variable)
        if tagged is None or tagged == {"missing": True}:
            return Feedback("unanswered", f"no variable named {variable}.")
        try:
            values.append(from_plain(tagged, exercise.inputs))
        except (InvalidText, TypeError):
            return wrong(f"{variable} holds a Turn whose texts are not valid strings.")
    try:
        return exercise.grade(*values)
    except Exception as error:  # a replayed function that raises, an odd value: wrong
        return wrong(f"grading raised {type(error).__name__}.")


def read_submission(path: Path) -> bytes | str:
    """The bytes of a submitted notebook, or why it is not graded. Never follows a link,
    never blocks on a pipe, never reads more than MAX_NOTEBOOK_BYTES."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return NOT_REGULAR
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return f"cannot be read ({error.strerror}): not graded"
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # swapped since the lstat
            return NOT_REGULAR
        data = file.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        return f"larger than {MAX_NOTEBOOK_BYTES // 1024**2} MiB: not graded"
    try:
        nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception as error:  # nbformat raises several kinds for a broken file
        return f"not a notebook ({type(error).__name__}): not graded"
    return data


def grade_submission(path: Path, names: list[str], *, cell_timeout: int = CELL_TIMEOUT,
                     notebook_timeout: int = NOTEBOOK_TIMEOUT, sandboxed: bool = True) -> Graded:
    """Run one submission in the sandbox and judge the answers it hands back."""
    started = time.monotonic()
    data = read_submission(path)
    if isinstance(data, str):
        verdicts = {name: Feedback("unanswered", data) for name in names}
        return Graded(path.name, verdicts, data, time.monotonic() - started)
    outcome = sandbox.run(data, names, cell_timeout=cell_timeout,
                          notebook_timeout=notebook_timeout, sandboxed=sandboxed)
    verdicts = {}
    for name in names:
        if name in outcome.answers:
            verdicts[name] = judge(name, outcome.answers[name])
        else:
            verdicts[name] = Feedback("unanswered", "no answers came back: the notebook did "
                                      "not reach the grader's cells (a crash, a kernel that "
                                      "died, or the time limit).")
    return Graded(path.name, verdicts, outcome.problem, time.monotonic() - started)


def grade(submissions: Path, out: Path, autograder: Path | None = None, *,
          cell_timeout: int | None = None, jobs: int = 1, sandboxed: bool = True,
          progress=None) -> list[Graded]:
    """Grade every ``*.ipynb`` entry of ``submissions``; write the grades, one feedback file
    per submission and a summary for the teacher. Every entry gets its row."""
    manifest = (json.loads((Path(autograder) / "assignment.json").read_text())
                if autograder else None)
    entries = manifest["exercises"] if manifest else [
        {"name": name, "points": 1} for name in GRADED]
    points = {entry["name"]: entry["points"] for entry in entries}
    names = list(points)
    timeout = cell_timeout or (manifest or {}).get("cell_timeout", CELL_TIMEOUT)
    notebook_timeout = (manifest or {}).get("notebook_timeout", NOTEBOOK_TIMEOUT)
    paths = sorted(path for path in Path(submissions).iterdir() if path.name.endswith(".ipynb"))
    if not paths:
        raise FileNotFoundError(f"no .ipynb files in {submissions}")

    def one(path: Path) -> Graded:
        result = grade_submission(path, names, cell_timeout=timeout,
                                  notebook_timeout=notebook_timeout, sandboxed=sandboxed)
        if progress:
            progress(result, sum(result.score(points).values()), sum(points.values()))
        return result

    # Each submission is its own sandbox: grading several at once only overlaps them.
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, paths))
    write_grades(results, points, Path(out))
    return results


def write_grades(results: list[Graded], points: dict[str, int], out: Path) -> None:
    """grades.csv (atomically), ``<stem>-feedback/NAME.md`` each, ``<stem>-summary.md``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"submission": csv_safe(result.submission),
             "score": sum(result.score(points).values()), "max": sum(points.values()),
             **result.score(points), "note": result.note} for result in results]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["submission", "score", "max", *points, "note"])
    writer.writeheader()
    writer.writerows(rows)
    _write_atomically(out, buffer.getvalue())
    folder = out.with_name(out.stem + "-feedback")
    folder.mkdir(exist_ok=True)
    for result in results:
        _write_atomically(folder / feedback_name(result.submission), feedback_page(result, points))
    _write_atomically(out.with_name(out.stem + "-summary.md"), summary_page(results, points))


def _write_atomically(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def csv_safe(name: str) -> str:
    """A name a spreadsheet shows as text: never a formula (=, +, -, @, tab, CR first)."""
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


def printable(name: str) -> str:
    """A name as one printable line: control characters and the like become escapes."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in name)


def feedback_name(submission: str) -> str:
    """A file name for a submission's feedback: safe characters, and a hash against clashes."""
    stem = re.sub(r"[^\w.-]", "_", submission.removesuffix(".ipynb"))[:60].lstrip(".") or "x"
    return f"{stem}-{hashlib.sha256(submission.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}.md"


def feedback_page(result: Graded, points: dict[str, int]) -> str:
    scores = result.score(points)
    lines = [f"# Feedback: {printable(result.submission)}", "",
             f"Score: {sum(scores.values())} / {sum(points.values())}", ""]
    if result.note:
        lines += [f"Note: {result.note}.", ""]
    for name, verdict in result.verdicts.items():
        exercise = GRADED[name]
        lines += [f"## Exercise {exercise.number}: {exercise.title}", "",
                  f"**{Feedback.LABELS[verdict.status]}** ({scores[name]} / {points[name]}): "
                  f"{verdict.message}", ""]
    return "\n".join(lines)


def summary_page(results: list[Graded], points: dict[str, int]) -> str:
    """Per exercise: how many got it right, and the commonest mistakes, with counts."""
    lines = [f"# Grading summary: {len(results)} submissions", "",
             "| exercise | right | not yet | not answered |", "|---|---|---|---|"]
    for name in points:
        statuses = Counter(result.verdicts[name].status for result in results)
        lines.append(f"| {name} | {statuses['correct']} | {statuses['incorrect']} | "
                     f"{statuses['unanswered']} |")
    for name in points:
        mistakes = Counter(result.verdicts[name].message for result in results
                           if result.verdicts[name].status == "incorrect")
        if mistakes:
            lines += ["", f"## {name}: the commonest mistakes", ""]
            lines += [f"- {count} x {message}" for message, count in mistakes.most_common(3)]
    notes = [result for result in results if result.note]
    if notes:
        lines += ["", "## Submissions that did not run to the end", ""]
        lines += [f"- {printable(result.submission)}: {result.note}" for result in notes]
    return "\n".join(lines) + "\n"


UNSAFE_HELP = ("grade without the bubblewrap sandbox (where bwrap cannot run: macOS, no user "
               "namespaces). Gives up: the read-only view of the system and of the installed "
               "package (a submission can change ledgerlab for every later one), the private "
               "home and /tmp, the network cut, and the PID namespace (a process a submission "
               "starts can outlive grading). Answers are still judged here, outside the "
               "kernel, so printed or forged verdicts still earn nothing.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledgerlab.course.grading",
                                     description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    assignment = commands.add_parser("assignment", help="build student/, solutions/, autograder/")
    assignment.add_argument("out", type=Path)
    grading = commands.add_parser("grade", help="grade every .ipynb in a folder")
    grading.add_argument("submissions", type=Path)
    grading.add_argument("--out", type=Path, default=Path("build/grades.csv"))
    grading.add_argument("--autograder", type=Path)
    grading.add_argument("--cell-timeout", type=int)
    grading.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    grading.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE_HELP)
    solutions = commands.add_parser("solutions", help="regenerate and execute the solutions notebook")
    solutions.add_argument("path", type=Path, nargs="?", default=NOTEBOOKS / SOLUTIONS_NOTEBOOK)
    args = parser.parse_args(argv)

    if args.command == "assignment":
        try:
            out = build_assignment(args.out)
        except AssignmentError as error:
            print(f"assignment: {error}", file=sys.stderr)
            return 2
        print(f"wrote {out}/student, {out}/solutions and {out}/autograder")
    elif args.command == "grade":
        if not args.submissions.is_dir():
            parser.error(f"{args.submissions} is not a folder")
        if not args.unsafe_no_sandbox:
            try:
                sandbox.check_bwrap()
            except sandbox.SandboxUnavailable as error:
                print(f"grade: {error}. Grading runs every submission in a bubblewrap sandbox; "
                      f"--unsafe-no-sandbox grades without one (see its help for what that "
                      f"gives up).", file=sys.stderr)
                return 2

        def progress(result: Graded, score: int, most: int) -> None:
            note = f"; {result.note}" if result.note else ""
            print(f"{printable(result.submission)}: {score}/{most} "
                  f"({result.seconds:.1f} s{note})", flush=True)

        try:
            results = grade(args.submissions, args.out, args.autograder,
                            cell_timeout=args.cell_timeout, jobs=args.jobs,
                            sandboxed=not args.unsafe_no_sandbox, progress=progress)
        except FileNotFoundError as error:
            parser.error(str(error))
        print(f"wrote {args.out} ({len(results)} submissions), "
              f"{args.out.stem}-feedback/ and {args.out.stem}-summary.md")
    else:
        write_solutions(args.path)
        print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
