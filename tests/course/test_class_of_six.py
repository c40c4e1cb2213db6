"""A class of six, end to end, as docs/grading.md tells a teacher to run it: `assignment` with
a roster, `handout`, the students' work handed in on Canvas and on Moodle, the platforms'
downloads zipped by Info-ZIP's `zip` and by Python's `zipfile` (which flag a non-ASCII name
differently), `collect` (with Moodle's grading worksheet), then `grade`, of the collected
folders and of Canvas's download as it is. Then every file the teacher reads or imports is
opened and checked: lateness, the IDs, the copy, the malformed file (not graded: no score,
never a 0 for answers no one judged) and the non-ASCII names, whole in every file.

The class: Ada's notebook is right; Grace's partly wrong; 李小龙 hands in the notebook as it
was handed out; Karen hands in Ada's notebook; Edsger's file was cut short (not JSON); Zoë Ní
Bhriain's is right but for one exercise, and late.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from ledgerlab.course.exercises import EXERCISES, GRADED
from ledgerlab.course.grading import cli
from ledgerlab.course.grading.editions import EXERCISES_NOTEBOOK
from ledgerlab.course.grading.reports import feedback_name

from sandbox_required import sandbox_or_skip
from sentences import says

pytestmark = pytest.mark.slow  # three graded runs of six notebooks, in the sandbox

ZIP = shutil.which("zip")
# file name -> (name, Canvas's sortable name, Canvas user id, Moodle participant id)
CLASS = {"ada-lovelace": ("Ada Lovelace", "Lovelace, Ada", 101, 501),
         "grace-hopper": ("Grace Hopper", "Hopper, Grace", 102, 502),
         "李小龙": ("李小龙", "李小龙", 103, 503),
         "karen-jones": ("Karen Jones", "Jones, Karen", 104, 504),
         "edsger-dijkstra": ("Edsger Dijkstra", "Dijkstra, Edsger", 105, 505),
         "zoe-ni-bhriain": ("Zoë Ní Bhriain", "Ní Bhriain, Zoë", 106, 506)}
LATE = "zoe-ni-bhriain"
MALFORMED = "edsger-dijkstra"
# Canvas's download graded as it is, without collect: the files whose names say most (late,
# accents, another script, not a notebook), so that the third run costs two kernels, not five.
AS_IT_IS = (LATE, "李小龙", MALFORMED)
# Grace gets these wrong (each answer variable set to 1), Zoë the last one.
WRONG = {"grace-hopper": [e.name for e in EXERCISES][1::3], LATE: [EXERCISES[-1].name]}
WORDS = {"01-3": "Because the ledger keeps every turn while the request is only a projection."}
# What UTF-8 read as cp437 or Latin-1 looks like: "ë" as "├½" or "Ã«".
MOJIBAKE = re.compile("[├┤│Ã]")


def run(*argv) -> tuple[int, str]:
    """`python -m ledgerlab.course.grading ARGV`, in this process: its exit code and output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(part) for part in argv])
    return code, out.getvalue() + err.getvalue()


def answer_cells(notebook) -> dict[str, dict]:
    return {cell["metadata"]["ledgerlab"]["answer"]: cell for cell in notebook["cells"]
            if cell["metadata"].get("ledgerlab", {}).get("answer")}


def the_students_work(build: Path, handout: Path) -> dict[str, str]:
    """Each student's notebook, as they hand it in: from their hand-out archive, with the
    answer cells of the solutions make assignment wrote put in (their own key kept)."""
    solved = answer_cells(json.loads((build / "solutions" / EXERCISES_NOTEBOOK).read_text()))

    def handed_out(file):
        with zipfile.ZipFile(handout / f"{file}.zip") as archive:
            return json.loads(archive.read(f"{file}/{EXERCISES_NOTEBOOK}").decode("utf-8"))

    def worked(file, wrong=(), words=None):
        notebook = handed_out(file)
        for name, cell in answer_cells(notebook).items():
            cell["source"] = solved[name]["source"]
            if name in wrong:
                check = "".join(solved[name]["source"]).strip().splitlines()[-1]
                cell["source"] = "".join(f"{a} = 1\n" for a in GRADED[name].answers) + check
        for cell in notebook["cells"]:
            key = cell["metadata"].get("ledgerlab", {}).get("written")
            if words and key in words:
                cell["source"] = f"*Your answer:* {words[key]}"
        return json.dumps(notebook, indent=1, ensure_ascii=False)

    ada = worked("ada-lovelace", words=WORDS)
    return {"ada-lovelace": ada,
            "grace-hopper": worked("grace-hopper", WRONG["grace-hopper"]),
            "李小龙": json.dumps(handed_out("李小龙"), indent=1, ensure_ascii=False),
            "karen-jones": ada,  # Ada's notebook, her key and her words in it
            MALFORMED: worked(MALFORMED)[:3000],  # cut short: not JSON
            LATE: worked(LATE, WRONG[LATE])}


def canvas_name(file: str) -> str:
    """Canvas's name for a student's file: sortable name, LATE, user id, attachment id, the
    student's own file name (`get_filename` in Canvas's lib/content_zipper.rb)."""
    _, sortable, user, _ = CLASS[file]
    late = "_LATE" if file == LATE else ""
    letters = re.sub(r"[^\w]", "", sortable).lower()  # "Ní Bhriain, Zoë": níbhriainzoë
    return f"{letters}{late}_{user}_{9000 + user}_{file}.ipynb"


def exports(folder: Path, work: dict[str, str]) -> dict[str, Path]:
    """The downloads: Canvas's flat folder and Moodle's folder per student, each zipped by
    Info-ZIP (where it is installed) and by zipfile; and Moodle's grading worksheet."""
    canvas, moodle = folder / "canvas", folder / "moodle"
    for file, text in work.items():
        name, _, _, participant = CLASS[file]
        (canvas / canvas_name(file)).parent.mkdir(parents=True, exist_ok=True)
        (canvas / canvas_name(file)).write_text(text, encoding="utf-8")
        handed = moodle / f"{name}_{participant}_assignsubmission_file" / f"{file}.ipynb"
        handed.parent.mkdir(parents=True)
        handed.write_text(text, encoding="utf-8")
    made = {"canvas folder": canvas}
    for platform, root in (("canvas", canvas), ("moodle", moodle)):
        with zipfile.ZipFile(folder / f"{platform}-zipfile.zip", "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(root.rglob("*")):
                z.write(path, path.relative_to(root).as_posix())
        made[f"{platform} zipfile"] = folder / f"{platform}-zipfile.zip"
        if ZIP:
            subprocess.run([ZIP, "-qr", str(folder / f"{platform}-infozip.zip"), "."], cwd=root,
                           check=True)
            made[f"{platform} infozip"] = folder / f"{platform}-infozip.zip"
    with open(folder / "worksheet.csv", "w", newline="", encoding="utf-8") as handle:
        sheet = csv.writer(handle)
        sheet.writerow(["Identifier", "Full name", "Email address", "Status", "Grade",
                        "Maximum Grade", "Grade can be changed", "Last modified (submission)",
                        "Last modified (grade)", "Feedback comments"])
        for file, (name, _, _, participant) in CLASS.items():
            status = "Submitted for grading - 2 days 3 hours late" if file == LATE else \
                "Submitted for grading"
            sheet.writerow([f"Participant {participant}", name, "", status, "", "", "Yes",
                            "Friday, 4 December 2026, 10:00 AM", "-", ""])
    made["worksheet"] = folder / "worksheet.csv"
    return made


@pytest.fixture(scope="module")
def handed_in(tmp_path_factory):
    """The class built, handed out, worked and downloaded: the teacher's folder, and the
    platforms' downloads."""
    teacher = tmp_path_factory.mktemp("teacher")
    (teacher / "names.txt").write_text("\n".join(name for name, *_ in CLASS.values()) + "\n",
                                       encoding="utf-8")
    code, said = run("assignment", teacher / "build/assignment", "--roster",
                     teacher / "names.txt", "--secret-file", teacher / "secret")
    assert code == 0, said
    code, said = run("handout", teacher / "build/assignment", "--out", teacher / "build/handout")
    assert code == 0, said
    work = the_students_work(teacher / "build/assignment", teacher / "build/handout")
    return teacher, exports(teacher / "Downloads", work)


def collected(teacher: Path, export: Path, out: str) -> tuple[dict, str]:
    code, said = run("collect", export, "--autograder", teacher / "build/assignment/autograder",
                     "--out", teacher / out, "--moodle-worksheet",
                     teacher / "Downloads/worksheet.csv")
    assert code == 0, said
    return json.loads((teacher / out / "collected.json").read_text(encoding="utf-8")), said


@pytest.mark.parametrize("kind", ["canvas infozip", "canvas zipfile", "moodle infozip",
                                  "moodle zipfile"])
def test_collect_reads_every_download_whole_lateness_ids_and_names(handed_in, kind):
    teacher, made = handed_in
    if kind not in made:
        pytest.skip("Info-ZIP's zip is not installed (apt-get install zip): its download is "
                    "not made")
    platform = kind.split()[0]
    found, said = collected(teacher, made[kind], f"collected-{kind.replace(' ', '-')}")
    says(said, "collected", len(CLASS), "of", len(CLASS), in_order=True)
    assert found["unmatched"] == [] and found["unreadable"] == {}
    students = found["students"]
    assert set(students) == set(CLASS)
    for file, (name, _, user, participant) in CLASS.items():
        entry = students[file]
        assert entry["platform"] == platform
        assert entry["id"] == str(user if platform == "canvas" else participant)
        assert entry["late"] is (file == LATE)
        # The platform's own name of the file, whole: "Zoë Ní Bhriain_506_...", never mojibake.
        expected = canvas_name(file) if platform == "canvas" else \
            f"{name}_{participant}_assignsubmission_file/{file}.ipynb"
        assert entry["source"] == expected
    assert (teacher / f"collected-{kind.replace(' ', '-')}" / "李小龙.ipynb").is_file()


@pytest.fixture(scope="module")
def graded(handed_in):
    """The three runs a teacher makes: Canvas's download collected, Moodle's collected with
    its worksheet, and Canvas's download graded as it is, unzipped (``AS_IT_IS``' files)."""
    sandbox_or_skip()
    teacher, made = handed_in
    canvas = made.get("canvas infozip", made["canvas zipfile"])
    moodle = made.get("moodle infozip", made["moodle zipfile"])
    collected(teacher, canvas, "build/canvas-submissions")
    collected(teacher, moodle, "build/moodle-submissions")
    unzipped = teacher / "Downloads/canvas-unzipped"
    unzipped.mkdir()
    for file in AS_IT_IS:
        shutil.copy(made["canvas folder"] / canvas_name(file), unzipped)
    runs = {}
    for kind, submissions, extra in (
            ("canvas", "build/canvas-submissions", ["--canvas-assignment", "1234"]),
            ("moodle", "build/moodle-submissions", []),
            ("canvas as it is", "Downloads/canvas-unzipped", [])):  # never collected
        submissions = teacher / submissions
        out = teacher / kind.replace(" ", "-") / "grades.csv"
        code, said = run("grade", submissions, "--autograder",
                         teacher / "build/assignment/autograder", "--out", out, "--jobs", "2",
                         *extra)
        assert code == 0, said
        runs[kind] = (out, said)
    return runs


def table(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def every_file(out: Path) -> dict[str, str]:
    """Every file a run writes, by its name beside grades.csv."""
    return {str(path.relative_to(out.parent)): path.read_text(encoding="utf-8")
            for path in sorted(out.parent.rglob("*")) if path.is_file()}


def test_grades_csv_scores_each_student_as_their_work_earns(graded):
    out, _ = graded["canvas"]
    rows = {row["submission"]: row for row in table(out)}
    total = str(len(EXERCISES))
    assert set(rows) == {f"{file}.ipynb" for file in CLASS}
    assert rows["ada-lovelace.ipynb"]["score"] == total and rows["ada-lovelace.ipynb"]["note"] == ""
    grace = rows["grace-hopper.ipynb"]
    assert grace["score"] == str(len(EXERCISES) - len(WRONG["grace-hopper"]))
    assert {name for name in WRONG["grace-hopper"] if grace[name] == "0"} == set(WRONG["grace-hopper"])
    assert rows["李小龙.ipynb"]["score"] == "0" and rows["李小龙.ipynb"]["note"] == ""
    assert rows[f"{LATE}.ipynb"]["score"] == str(len(EXERCISES) - 1)
    # The copy: graded on Karen's own variant, less than Ada's, and the note says whose key.
    karen = rows["karen-jones.ipynb"]
    assert int(karen["score"]) < len(EXERCISES)
    says(karen["note"], "ada-lovelace", "variant key", "karen-jones", in_order=True)
    # The malformed file: not graded, no score (not a 0 for its answers), and why.
    edsger = rows[f"{MALFORMED}.ipynb"]
    assert edsger["score"] == "" and all(edsger[name] == "" for name in GRADED)
    says(edsger["note"], "not a notebook", "JSON", "not graded", in_order=True)


@pytest.mark.parametrize("kind", ["canvas", "moodle", "canvas as it is"])
def test_lateness_as_the_platform_marked_it_in_grades_and_summary(graded, kind):
    out, _ = graded[kind]
    late = {row["submission"]: row["late"] for row in table(out)}
    assert {name for name, mark in late.items() if mark == "yes"} == {
        next(name for name in late if LATE in name)}
    # Every file handed in says yes or no; only a student who handed nothing in is blank.
    said = [mark for mark in late.values() if mark]
    assert set(said) == {"yes", "no"}
    assert len(said) == len(AS_IT_IS if kind == "canvas as it is" else CLASS)
    summary = out.with_name("grades-summary.md").read_text(encoding="utf-8")
    section = summary.split("## Handed in late")[1].split("\n## ")[0]
    assert LATE in section and not any(file in section for file in CLASS if file != LATE)


def test_canvas_gradebook_fills_the_assignment_with_each_students_id(graded):
    for kind in ("canvas", "canvas as it is"):
        out, said = graded[kind]
        with open(out.with_name("grades-canvas.csv"), newline="", encoding="utf-8") as handle:
            header, points, *rows = list(csv.reader(handle))
        assert header[-1] == ("LedgerLab exercises (1234)" if kind == "canvas"
                              else "LedgerLab exercises")
        assert points[0] == "Points Possible" and points[-1] == str(len(EXERCISES))
        by_name = {row[0]: row for row in rows}
        assert set(by_name) == {name for name, *_ in CLASS.values()}  # Zoë Ní Bhriain, 李小龙
        handed = AS_IT_IS if kind == "canvas as it is" else CLASS
        for file, (name, _, user, _) in CLASS.items():  # the user id Canvas's names give
            assert by_name[name][1] == (str(user) if file in handed else "")
        assert by_name["Edsger Dijkstra"][-1] == ""  # no grade: Canvas leaves it ungraded
        assert by_name["李小龙"][-1] == "0"
        assert by_name["Zoë Ní Bhriain"][-1] == str(len(EXERCISES) - 1)
    assert "fills assignment 1234" in graded["canvas"][1]


def test_moodle_worksheet_finds_each_student_by_participant_with_a_comment(graded):
    out, _ = graded["moodle"]
    rows = {row["Identifier"]: row for row in table(out.with_name("grades-moodle.csv"))}
    assert set(rows) == {f"Participant {participant}" for *_, participant in CLASS.values()}
    for name, _, _, participant in CLASS.values():
        row = rows[f"Participant {participant}"]
        assert row["Full name"] == name and row["Maximum Grade"] == str(len(EXERCISES))
    edsger = rows["Participant 505"]
    assert edsger["Grade"] == ""  # Moodle skips a blank grade, and takes the comment
    says(edsger["Feedback comments"], "Not graded", "not a notebook", "JSON", in_order=True)
    says(rows["Participant 503"]["Feedback comments"], "Exercises right", "none")
    assert rows["Participant 501"]["Grade"] == str(len(EXERCISES))


def test_each_students_feedback_in_markdown_and_html(graded):
    out, _ = graded["canvas"]
    folder = out.with_name("grades-feedback")
    for file in CLASS:
        for suffix in (".md", ".html"):
            assert (folder / feedback_name(f"{file}.ipynb", suffix)).is_file(), (file, suffix)
    assert any(page.name.startswith("李小龙") for page in folder.iterdir())
    for suffix in (".md", ".html"):
        edsger = (folder / feedback_name(f"{MALFORMED}.ipynb", suffix)).read_text(encoding="utf-8")
        says(edsger, "Not graded", "not a notebook", "JSON", in_order=True)
        assert "Score" not in edsger and "Not answered yet" not in edsger
    html_page = (folder / feedback_name(f"{LATE}.ipynb", ".html")).read_text(encoding="utf-8")
    assert '<meta charset="utf-8">' in html_page and "`" not in html_page
    assert "&amp;lt;" not in html_page and "\\_" not in html_page
    markdown = (folder / feedback_name(f"{LATE}.ipynb")).read_text(encoding="utf-8")
    assert "&lt;" not in markdown and "`` `" not in markdown  # no entity, no doubled code span
    says(markdown, "Score", len(EXERCISES) - 1, len(EXERCISES), in_order=True)


def test_the_summary_names_the_file_not_graded_and_the_copy(graded):
    out, _ = graded["canvas"]
    summary = out.with_name("grades-summary.md").read_text(encoding="utf-8")
    not_graded = summary.split("## Submissions not graded")[1].split("\n## ")[0]
    look_at = summary.split("## Notes for the teacher to look at")[1].split("\n## ")[0]
    assert MALFORMED in not_graded and "李小龙" not in not_graded
    assert "karen-jones" in look_at and "ada-lovelace" in look_at


def test_the_similarity_report_puts_the_copy_first_in_exercise_order(graded):
    out, _ = graded["canvas"]
    page = out.with_name("grades-similarity.md").read_text(encoding="utf-8")
    pairs = page.split("## Pairs whose shared answers weigh most")[1].strip().splitlines()
    assert "ada-lovelace" in pairs[0] and "karen-jones" in pairs[0]
    cells = page.split("## Answer cells")[1].split("## ")[0]
    numbers = [int(n) for n in re.findall(r"^- exercise (\d+):", cells, re.MULTILINE)]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(EXERCISES)
    written = page.split("## Written answers")[1].split("## ")[0]
    assert "ada-lovelace" in written and "karen-jones" in written


@pytest.mark.parametrize("kind", ["canvas", "moodle", "canvas as it is"])
def test_the_non_ascii_names_are_whole_in_every_file_the_teacher_reads(graded, kind):
    out, _ = graded[kind]
    files = every_file(out)
    assert not {name for name, text in files.items() if MOJIBAKE.search(text)}
    shown = "\n".join(files.values())
    assert "李小龙" in files["grades.csv"] and any(name.startswith("grades-feedback/李小龙")
                                                 for name in files)
    gradebook = files["grades-moodle.csv" if kind == "moodle" else "grades-canvas.csv"]
    assert "Zoë Ní Bhriain" in gradebook and "李小龙" in gradebook
    # Graded as it is, Canvas's file keeps Canvas's name: Zoë's letters whole in it.
    assert ("níbhriainzoë" if kind == "canvas as it is" else "zoe-ni-bhriain") in shown
