"""The grader's isolation: nothing of the grader's environment is
readable in the sandbox, what feedback echoes is bounded, every file name is written safely
and never as HTML, a link or a formula, the outputs are checked before grading, the grader's
own work per answer is bounded, and a kernel that kills or stops itself is named and keeps
the answers it computed before."""

import csv
import json
import os
import re
import secrets
import unicodedata

import nbformat
import pytest
from markdown_it import MarkdownIt

from ledgerlab.course.exercises import EXERCISES, q3
from ledgerlab.course.grading import answers, cli, judge, reports, sandbox
from ledgerlab.course.lessons import the_boundary_table

from sandbox_required import sandbox_or_skip

NAMES = [f"q{e.number}" for e in EXERCISES]
SOLVED = {f"q{e.number}": e.solution_code for e in EXERCISES}
IMPORTS = ("from ledgerlab import Journal, Turn, byte_breakdown, request_bytes, request_tokens\n"
           "from ledgerlab.course.exercises import *")
SECRET_NAME = "LEDGERLAB_TRUST_SECRET"
# What a hostile notebook does with the grader's environment: read every environ it can,
# keep all of it as an answer, and carry the secret out as a type name, which feedback prints.
READ_ENVIRON = f"""
import glob, os
history = []
secret = b''
for path in ['/proc/self/environ', '/proc/1/environ', *sorted(glob.glob('/proc/[0-9]*/environ'))]:
    try:
        data = open(path, 'rb').read()
    except OSError as error:
        history.append(path + ': ' + type(error).__name__)
        continue
    history.append(path + ': ' + data.decode('utf-8', 'replace'))
    for entry in data.split(b'\\0'):
        if entry.startswith(b'{SECRET_NAME}='):
            secret = entry.split(b'=', 1)[1]
history.append('os.environ: ' + repr(dict(os.environ)))
n = type('LEAK' + secret.hex()[:50], (), {{}})()
"""
HUGE = "java_budget = 10**4299\njava_length = lambda text: -10**4000\nn = 5 * 10**7"
KILL_SELF = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"
STOP_SELF = "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)"
HOSTILE_NAMES = ["<img src=x onerror=alert(1)>.ipynb", "[click](javascript:alert(1)).ipynb",
                 "<https:evil.example>.ipynb", "a`b``c.ipynb", "\u202egnp.ipynb",
                 "zero\u200bwidth.ipynb", " =1+2.ipynb", "\uff1dSUM(A1).ipynb", "@cmd.ipynb",
                 "\u3000+1.ipynb", "\ufe66x.ipynb"]


def notebook(*sources):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])


def rows(out):
    with open(out, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def feedback_folder(out):
    return out.with_name(out.stem + "-feedback")


def summary_path(out):
    return out.with_name(out.stem + "-summary.md")


def folder_state(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


# --- Without a kernel: names, outputs, the grader's own work ------------------------------

def test_a_name_that_is_not_utf8_is_written_visibly_and_every_row_kept(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "alice.ipynb").write_text("{not a notebook")
    os.close(os.open(os.path.join(os.fsencode(submissions), b"Ren\xe9e.ipynb"),
                     os.O_CREAT | os.O_WRONLY))  # what unzip gives for a legacy Windows zip
    out = tmp_path / "out" / "grades.csv"
    judge.grade(submissions, out)
    assert [row["submission"] for row in rows(out)] == ["Ren\\xe9e.ipynb", "alice.ipynb"]
    summary = summary_path(out).read_text(encoding="utf-8")
    assert "Ren\\xe9e.ipynb" in summary
    assert len(list(feedback_folder(out).glob("*.md"))) == 2
    assert not [p for p in (tmp_path / "out").rglob("*") if p.name.endswith(".tmp")]


def test_a_failed_write_leaves_no_temp_file_and_the_old_grades(tmp_path, monkeypatch):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "a.ipynb").write_text("{not a notebook")
    out = tmp_path / "grades.csv"
    out.write_text("the old grades\n")

    def full_disk(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(reports.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        judge.grade(submissions, out)
    assert out.read_text() == "the old grades\n"
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


@pytest.mark.parametrize("where", ["a folder", "under a file", "a folder as the summary"])
def test_unusable_outputs_are_refused_before_grading_and_nothing_written(tmp_path, monkeypatch,
                                                                         capsys, where):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / "a.ipynb").write_text("{not a notebook")
    (tmp_path / "notes.txt").write_text("the teacher's")
    out = {"a folder": tmp_path / "submissions", "under a file": tmp_path / "notes.txt" / "g.csv",
           "a folder as the summary": tmp_path / "g.csv"}[where]
    if where == "a folder as the summary":
        (tmp_path / "g-summary.md").mkdir()

    def never(*_, **__):
        raise AssertionError("graded although the grades could not be written")

    monkeypatch.setattr(judge, "grade_submission", never)
    before = folder_state(tmp_path)
    code = cli.main(["grade", str(submissions), "--out", str(out), "--unsafe-no-sandbox"])
    assert code == 2
    err = capsys.readouterr().err
    assert "nothing was graded or written" in err and "Traceback" not in err
    assert folder_state(tmp_path) == before


def test_the_graders_work_per_answer_is_bounded(monkeypatch):
    built = []

    def grown_question(count, v):  # exercise 2's check builds the variant's QUESTION + 🙂 * count
        built.append(count)
        assert count <= 10**6, f"a question of {count} smileys"  # answers.MAX_INT
        return v.question + the_boundary_table.SMILE * count

    monkeypatch.setattr(the_boundary_table, "grown_question", grown_question)
    verdict = judge.judge("q2", {"n": {"int": 5 * 10**7}})
    assert verdict.status == "incorrect"
    assert "an int of 8 digits, beyond the 1,000,000 the grader checks" in verdict.message
    assert built == []  # refused before the check
    assert judge.judge("q2", {"n": {"int": 10**6}}).status == "incorrect"  # checked, in bounds
    assert max(built) == 10**6 == answers.MAX_INT


@pytest.mark.parametrize("variable, tagged", [
    ("java_budget", {"int": 10**4299}),  # 4,300 digits: as many as JSON carries
    ("java_length", {"function": [{"int": -10**4000}] * len(q3.inputs)}),
])
def test_feedback_never_echoes_a_huge_answer(variable, tagged):
    name = "q4" if variable == "java_budget" else "q3"
    verdict = judge.judge(name, {variable: tagged})
    assert verdict.status == "incorrect"
    assert len(verdict.message) < 200 and not re.search(r"\d{8}", verdict.message)
    assert "digits" in verdict.message


def test_names_are_never_html_links_bidi_or_formulas(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for name in HOSTILE_NAMES:
        (submissions / name).write_text("{not a notebook")
    out = tmp_path / "grades.csv"
    judge.grade(submissions, out)
    table = rows(out)
    assert len(table) == len(HOSTILE_NAMES)
    for row in table:
        for field in row.values():
            assert not [c for c in field if unicodedata.category(c) in ("Cc", "Cf")], row
        name = row["submission"]
        if unicodedata.normalize("NFKC", name).lstrip()[:1] in ("=", "+", "-", "@"):
            raise AssertionError(f"a formula in the csv: {name!r}")
    guarded = {row["submission"] for row in table if row["submission"].startswith("'")}
    assert guarded == {"' =1+2.ipynb", "'\uff1dSUM(A1).ipynb", "'@cmd.ipynb", "'\ufe66x.ipynb"}
    assert "\\u3000+1.ipynb" in {row["submission"] for row in table}  # escaped: text
    assert "\\u202egnp.ipynb" in {row["submission"] for row in table}
    render = MarkdownIt("commonmark", {"html": True}).render
    pages = [*feedback_folder(out).glob("*.md"), summary_path(out)]
    assert len(pages) == len(HOSTILE_NAMES) + 1
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "\u202e" not in text and "\u200b" not in text
        html = render(text)
        assert "<img" not in html and "<a " not in html, (page.name, html)
    for page in feedback_folder(out).glob("*.html"):  # the page to paste: escaped as it is
        text = page.read_text(encoding="utf-8")
        assert "\u202e" not in text and "\u200b" not in text
        assert "<img" not in text and "<a " not in text and "<https" not in text, page.name
    page = next(p for p in feedback_folder(out).glob("*.md") if p.name.startswith("a_b"))
    assert "a`b``c.ipynb" in render(page.read_text(encoding="utf-8"))  # shown whole


# --- In the sandbox: a hostile notebook reads the environment, a kernel dies or stops -------

@pytest.fixture(scope="module")
def trust(tmp_path_factory):
    sandbox_or_skip()
    folder = tmp_path_factory.mktemp("trust")
    submissions = {
        "reads-environ": notebook(IMPORTS, READ_ENVIRON),
        "huge-answers": notebook(IMPORTS, HUGE),
        "kills-itself": notebook(IMPORTS, SOLVED["q4"], KILL_SELF, SOLVED["q6"]),
        "stops-itself": notebook(IMPORTS, SOLVED["q4"], STOP_SELF, SOLVED["q6"]),
    }
    for name, nb in submissions.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    out = tmp_path_factory.mktemp("out") / "grades.csv"
    secret = secrets.token_hex(16)
    outcomes = []
    run = sandbox.run

    def recorded(*args, **kwargs):
        outcome = run(*args, **kwargs)
        outcomes.append(outcome)
        return outcome

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SECRET_NAME, secret)  # in the grader's environment, as a hub's token is
        patch.setattr(sandbox, "run", recorded)
        # 20 s a cell: the imports have room on a loaded machine; only the stopped kernel waits.
        results = judge.grade(folder, out, cell_timeout=20, jobs=2, sandboxed=True)
    texts = {page.name: page.read_text(encoding="utf-8")
             for page in feedback_folder(out).glob("*.md")}
    return {"rows": {row["submission"]: row for row in rows(out)},
            "results": {result.submission: result for result in results},
            "pages": texts, "summary": summary_path(out).read_text(encoding="utf-8"),
            "csv": out.read_text(encoding="utf-8"), "outcomes": outcomes, "secret": secret}


def page_of(trust, stem):
    return next(text for name, text in trust["pages"].items() if name.startswith(stem + "-"))


@pytest.mark.slow  # runs kernels in the sandbox
def test_nothing_of_the_graders_environment_is_readable_in_the_sandbox(trust):
    secret = trust["secret"]
    read = [outcome.answers["q1"]["history"] for outcome in trust["outcomes"]
            if "history" in outcome.answers.get("q1", {})
            and outcome.answers["q1"]["history"].get("list")]
    assert len(read) == 1
    entries = [item["str"] for item in read[0]["list"]]
    pid1 = next(entry for entry in entries if entry.startswith("/proc/1/environ: "))
    assert "PATH=" in pid1  # bwrap's own environ was read: the probe saw what it could
    everything = json.dumps([outcome.answers for outcome in trust["outcomes"]])
    assert secret not in everything and secret.encode().hex() not in everything
    shown = "\n".join([trust["csv"], trust["summary"], *trust["pages"].values()])
    assert secret not in shown and secret.encode().hex()[:20] not in shown


@pytest.mark.slow  # runs kernels in the sandbox
def test_huge_answers_are_refused_by_size_and_never_echoed(trust):
    page = page_of(trust, "huge-answers")
    assert not re.search(r"\d{12}", page)
    assert page.count("beyond the 1,000,000 the grader checks") == 3  # q2, q3 and q4
    assert "an int of 4300 digits" in page and "an int of 4001 digits" in page


@pytest.mark.slow  # runs kernels in the sandbox
def test_a_kernel_that_kills_itself_is_named_and_keeps_its_earlier_answers(trust):
    row = trust["rows"]["kills-itself.ipynb"]
    assert (row["q4"], row["q6"]) == ("1", "0")  # computed before it died; never computed
    assert row["note"] == ("stopped: the kernel died in cell 3 of 4 (killed by SIGKILL); the "
                           "answers read before count")
    assert f"- ` kills-itself.ipynb `: {row['note']}" in trust["summary"]
    assert "## Submissions that did not run to the end" in trust["summary"]


@pytest.mark.slow  # runs kernels in the sandbox
def test_a_kernel_that_stops_itself_hits_the_time_limit_and_says_so(trust):
    row = trust["rows"]["stops-itself.ipynb"]
    assert (row["q4"], row["q6"]) == ("1", "0")
    assert row["note"].startswith("stopped: the kernel was stopped by a signal (SIGSTOP) in "
                                  "cell 3 of 4 and did not answer within the cell's time limit")
    assert "` stops-itself.ipynb `" in trust["summary"]


# --- The sandbox runs the package the grader runs -----------------------------------------

PROBE = """
import pathlib, subprocess, sys
from ledgerlab.course.grading import sandbox
work = pathlib.Path(sys.argv[1])
inside = subprocess.run([*sandbox._bwrap(work), sandbox.PYTHON, "-c",
                         "import ledgerlab; print(ledgerlab.__file__)"],
                        capture_output=True, text=True, env=sandbox.BWRAP_ENV)
import ledgerlab
print(ledgerlab.__file__)
print((inside.stdout.strip() or inside.stderr.strip()[-200:]).replace("\\n", " | "))
"""


@pytest.mark.slow  # two interpreters and a sandbox
def test_the_sandbox_imports_the_package_the_grader_runs(tmp_path):
    """Before, the sandbox imported whatever the venv's path found: a grader run from one
    checkout with the venv installed (editable) from another bound this checkout's package
    but imported the other's, which it had not bound, so bwrap "could not run" (and with a
    wheel installed, it would have run another version)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import ledgerlab

    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    checkout = tmp_path / "another-checkout"
    shutil.copytree(Path(ledgerlab.__file__).parent, checkout / "ledgerlab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "work"
    work.mkdir()
    run = subprocess.run([sys.executable, "-c", PROBE, str(work)], cwd=checkout,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-500:]
    grader, inside = run.stdout.splitlines()[-2:]
    assert grader == str(checkout / "ledgerlab" / "__init__.py")
    assert inside == grader
