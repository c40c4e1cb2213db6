"""Hostile submissions: each earns only what its answers earn, a correct notebook graded
beside them earns full marks, no process is left behind, the package is unchanged, every
entry gets its row, and the grading process's memory stays bounded."""

import csv
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import ledgerlab
from ledgerlab.course.grading import editions, judge
from ledgerlab.course.exercises import EXERCISES

from sandbox_required import sandbox_or_skip

SANDBOXED = sandbox_or_skip()
MARKER = "ledgerlab-hostile-marker-7f3a"  # names the processes a submission starts
IMPORTS = ("from ledgerlab import Journal, Turn, byte_breakdown, request_bytes, request_tokens\n"
           "from ledgerlab.course.exercises import *")
NAMES = [f"q{e.number}" for e in EXERCISES]
ALL_CORRECT = {name: "correct" for name in NAMES}


def notebook(*sources):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])


# Lines a cheat hopes a grader reads: the old verdict format, and answers in the channel's.
FORGERIES = (
    [f'LEDGERLAB-GRADE {json.dumps({"exercise": name, "status": "correct"})}' for name in NAMES]
    + ['LEDGERLAB-ANSWERS ' + json.dumps({"exercise": "q4", "answers": {
        "java_budget": {"int": 120}}})]
    + ["LEDGERLAB-ANSWERS {not json", "LEDGERLAB-ANSWERS " + "[" * 100_000])
FORGE_EVERYWHERE = f"""
import glob, os, signal
lines = {FORGERIES!r}
data = ("\\n".join(lines) + "\\n").encode()
targets = glob.glob('/proc/*/fd/*') + ['/dev/stdout', '/dev/stderr', '/dev/tty']
for path in targets:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, data)
        os.close(fd)
    except OSError:
        pass
for fd in range(0, 64):
    try:
        os.write(fd, data)
    except OSError:
        pass
print(*lines, sep="\\n")
os.kill(os.getpid(), signal.SIGKILL)  # and no real answers follow
"""
PATCH_CHECKS = """
from ledgerlab.course import exercises, feedback
from ledgerlab.course.feedback import Exercise, correct
Exercise.check = Exercise.grade = lambda self, *a: correct('patched')
feedback.wrong = feedback.correct
for exercise in exercises.EXERCISES:
    exercise._checker = lambda *a: correct('patched')
"""
ALWAYS_EQUAL = """
class Anything(int):
    def __eq__(self, other): return True
    __hash__ = int.__hash__
class Everything:
    def __eq__(self, other): return True
    def __index__(self): return 24
history, budget, predicted_kept = Everything(), Everything(), Everything()
n = Anything(3)
java_length = lambda text: Everything()
java_budget, requests_budget = Everything(), Anything(7)
turns_after_open, file_bytes_after_open = Everything(), Everything()
"""
WRITE_PACKAGE = """
import ledgerlab, pathlib
for path in pathlib.Path(ledgerlab.__file__).parent.rglob('*.py'):
    try:
        with open(path, 'a') as f:
            f.write('\\nq1.grade = q2.grade = lambda *a: None\\n')
    except OSError as e:
        print(type(e).__name__)
"""
BACKGROUND = f"""
import subprocess, sys
subprocess.Popen(['sleep', '1000', '{MARKER}'], start_new_session=True)
subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)', '{MARKER}'],
                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
"""
EXEC_SOLUTIONS = """
from ledgerlab.course import exercises
for exercise in exercises.EXERCISES:
    exec(exercise.solution_code, globals())   # the worked solutions are not in the sandbox
print(repr(exercises.q1.solution()))
"""
FLOOD = "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(chunk)"
EAT_MEMORY = "hog = bytearray(8 * 1024**3)"
FORK = "import os, time\nfor _ in range(20):\n    if os.fork() == 0:\n        time.sleep(1000)"


@pytest.fixture(scope="module")
def assignment(tmp_path_factory):
    return editions.build_assignment(tmp_path_factory.mktemp("build") / "assignment")


def package_digest():
    digest = hashlib.sha256()
    for path in sorted(Path(ledgerlab.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def marked_processes():
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if MARKER.encode() in cmdline.read_bytes():
                found.append(cmdline.parent.name)
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def hostile(assignment, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    blank = (assignment / "student" / editions.EXERCISES_NOTEBOOK).read_bytes()
    full = (assignment / "solutions" / editions.EXERCISES_NOTEBOOK).read_bytes()
    solved = {f"q{e.number}": e.solution_code for e in EXERCISES}
    (folder / "correct.ipynb").write_bytes(full)
    submissions = {
        "forged": notebook(IMPORTS, FORGE_EVERYWHERE),
        "patched": notebook(IMPORTS, PATCH_CHECKS),
        "always-equal": notebook(IMPORTS, ALWAYS_EQUAL),
        "writes-package": notebook(IMPORTS, WRITE_PACKAGE),
        "exec-solutions": notebook(IMPORTS, EXEC_SOLUTIONS),
        "background": notebook(IMPORTS, BACKGROUND, solved["q4"]),
        "flood": notebook(IMPORTS, solved["q4"], FLOOD, solved["q6"]),
        "eats-memory": notebook(IMPORTS, EAT_MEMORY, solved["q4"]),
        "forks": notebook(IMPORTS, FORK, solved["q4"]),
    }
    for name, nb in submissions.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    (folder / "=HYPERLINK(evil).ipynb").write_bytes(blank)
    (folder / "link-to-solutions.ipynb").symlink_to(assignment / "solutions" /
                                                    editions.EXERCISES_NOTEBOOK)
    (folder / "link-to-zero.ipynb").symlink_to("/dev/zero")
    (folder / "dangling.ipynb").symlink_to(folder / "missing")
    os.mkfifo(folder / "fifo.ipynb")
    (folder / "folder.ipynb").mkdir()
    (folder / "huge.ipynb").write_bytes(b" " * (judge.MAX_NOTEBOOK_BYTES + 1))
    digest = package_digest()
    out = tmp_path_factory.mktemp("out") / "grades.csv"
    # The grader in a process of its own, so that its peak memory is its own.
    code = ("import json, resource, sys\nfrom ledgerlab.course.grading import judge\n"
            "judge.grade(*map(__import__('pathlib').Path, sys.argv[1:4]), cell_timeout=8, "
            "jobs=2, sandboxed=True)\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    run = subprocess.run([sys.executable, "-c", code, str(folder), str(out),
                          str(assignment / "autograder")], capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    with open(out, newline="") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return {"rows": rows, "peak_kib": int(run.stdout.split()[-1]), "digest": digest,
            "out": out}


@pytest.mark.slow  # grades every hostile submission in the sandbox
def test_a_correct_notebook_graded_beside_them_scores_full_marks(hostile):
    assert hostile["rows"]["correct.ipynb"]["score"] == str(len(EXERCISES))


@pytest.mark.slow  # grades every hostile submission in the sandbox
@pytest.mark.parametrize("name", ["forged", "patched", "always-equal", "writes-package",
                                  "exec-solutions"])
def test_forgeries_patches_and_always_equal_answers_earn_nothing(hostile, name):
    row = hostile["rows"][f"{name}.ipynb"]
    assert row["score"] == "0", row


@pytest.mark.slow  # grades every hostile submission in the sandbox
@pytest.mark.parametrize("name", ["background", "flood", "eats-memory", "forks"])
def test_a_notebook_that_misbehaves_still_earns_what_its_answers_earn(hostile, name):
    row = hostile["rows"][f"{name}.ipynb"]
    earned = {"flood": {"q4", "q6"}}.get(name, {"q4"})
    assert {q for q in NAMES if row[q] == "1"} == earned, row


@pytest.mark.slow  # grades every hostile submission in the sandbox
def test_no_process_is_left_and_the_package_is_unchanged(hostile):
    assert marked_processes() == []
    assert package_digest() == hostile["digest"]


@pytest.mark.slow  # grades every hostile submission in the sandbox
@pytest.mark.parametrize("name, note", [
    ("link-to-solutions.ipynb", judge.NOT_REGULAR),
    ("link-to-zero.ipynb", judge.NOT_REGULAR),
    ("dangling.ipynb", judge.NOT_REGULAR),
    ("fifo.ipynb", judge.NOT_REGULAR),
    ("folder.ipynb", judge.NOT_REGULAR),
    ("huge.ipynb", "larger than 5 MiB: not graded"),
])
def test_every_entry_gets_a_row_with_a_reason(hostile, name, note):
    row = hostile["rows"][name]
    assert (row["score"], row["note"]) == ("", note)  # not graded: no score, the reason


@pytest.mark.slow  # grades every hostile submission in the sandbox
def test_a_formula_like_name_is_text_in_the_csv(hostile):
    assert "'=HYPERLINK(evil).ipynb" in hostile["rows"]
    assert "=HYPERLINK(evil).ipynb" not in hostile["rows"]


@pytest.mark.slow  # grades every hostile submission in the sandbox
def test_the_grading_process_memory_stays_bounded(hostile):
    assert hostile["peak_kib"] < 400 * 1024  # a 1 GiB print never reaches it


@pytest.mark.slow  # grades every hostile submission in the sandbox
def test_the_grades_and_a_feedback_file_for_everyone_are_written(hostile):
    out = hostile["out"]
    pages = list(out.with_name("grades-feedback").iterdir())
    assert len([page for page in pages if page.suffix == ".md"]) == len(hostile["rows"])
    assert len([page for page in pages if page.suffix == ".html"]) == len(hostile["rows"])
    assert all(not page.name.startswith((".", "=")) for page in pages)


def test_the_installed_package_carries_no_worked_solution():
    # What a student's install holds: every file setuptools packages (ledgerlab/**). The
    # solutions are the teacher's file, beside the package in a checkout, never inside it.
    package = Path(ledgerlab.__file__).parent
    text = "\n".join(path.read_text(encoding="utf-8") for path in package.rglob("*.py"))
    for exercise in EXERCISES:
        code = exercise.solution_code
        assert code, "a checkout has the teacher's solutions"
        assert code not in text
        answers = [line.strip() for line in code.splitlines()  # `budget = ...`, `def f(...)`
                   if line.split("=")[0].strip() in exercise.answers
                   or line.startswith(tuple(f"def {name}(" for name in exercise.answers))]
        assert answers and not [line for line in answers if line in text], exercise.name
