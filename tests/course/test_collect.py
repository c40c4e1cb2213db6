"""Submissions as Canvas and Moodle download them, matched to the roster by name: the files
that match no student, or two, are listed for the teacher, never guessed."""

import csv
import json
import os
import shutil
import subprocess
import zipfile

import nbformat
import pytest

from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import collect, judge, roster, sandbox

from sentences import says

SECRET = b"a teacher's secret, kept off the class's machines"
CLASS = ["Ada Lovelace", "Grace Hopper", "Zoë Ní Bhriain", "李小龙", "Mary O'Brien"]


@pytest.fixture(scope="module")
def students():
    return roster.assign(CLASS, SECRET, set())


@pytest.mark.parametrize("name, file", [
    # Canvas: the sortable name, lowercased, all but letters, digits and _ removed.
    ("lovelaceada_101_9001_10-exercises.ipynb", "ada-lovelace"),
    ("hoppergrace_LATE_102_9002_10-exercises-1.ipynb", "grace-hopper"),
    ("bhriainzoëní_103_9003_x.ipynb", "zoe-ni-bhriain"),
    ("李小龙_104_9004_10-exercises.ipynb", "李小龙"),
    ("obrienmary_105_9005_10-exercises.ipynb", "mary-o-brien"),
    # Canvas before 2020: spaces and punctuation as dashes, " LATE" kept in the name.
    ("lovelace--ada-late_101_9001_10-exercises.ipynb", "ada-lovelace"),
    # Moodle: the full name, the participant id, the plugin; flat, or a folder a student.
    ("Zoë Ní Bhriain_555_assignsubmission_file_10-exercises.ipynb", "zoe-ni-bhriain"),
    ("Grace Hopper_556_assignsubmission_file/13-exercises.ipynb", "grace-hopper"),
    # As the roster files it, or as a course site renames it.
    ("ada-lovelace.ipynb", "ada-lovelace"), ("Zoe Ni Bhriain.ipynb", "zoe-ni-bhriain"),
])
def test_a_platforms_file_name_is_matched_to_its_student(students, name, file):
    found = collect.source(name)
    assert collect.match(found.name, students) == (file, "")


@pytest.mark.parametrize("name, why", [
    ("smithbob_777_9007_10-exercises.ipynb", "its name matches no student on the roster"),
    ("anon_x7f3k_9009_10-exercises.ipynb", "its name matches no student on the roster"),
    ("Participant_557_assignsubmission_file_10-exercises.ipynb",  # Moodle's blind marking
     "its name matches no student on the roster"),
])
def test_a_name_that_is_no_student_is_not_guessed(students, name, why):
    assert collect.match(collect.source(name).name, students) == (None, why)


def test_a_name_two_students_could_have_is_not_guessed():
    files = {roster.file_name(name): {} for name in ("Ada Lovelace", "Lovelace Ada")}
    assert collect.match("lovelaceada", files) == (None, "its name matches 2 students: not guessed")


def notebook_bytes(mark):
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(mark)])).encode()


def test_collect_copies_each_match_keeps_the_latest_upload_and_lists_the_rest(students, tmp_path):
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("lovelaceada_101_9001_first.ipynb", notebook_bytes("first"))
        archive.writestr("lovelaceada_101_9100_second.ipynb", notebook_bytes("second"))
        archive.writestr("Grace Hopper_556_assignsubmission_file/sub/13-exercises.ipynb",
                         notebook_bytes("grace"))
        archive.writestr("hoppergrace_102_9002_report.pdf", b"%PDF")
    out = tmp_path / "submissions"
    collected = collect.collect(export, students, out)
    assert sorted(collected.files) == ["ada-lovelace", "grace-hopper"]
    assert b"second" in (out / "ada-lovelace.ipynb").read_bytes()
    assert b"grace" in (out / "grace-hopper.ipynb").read_bytes()
    saved = json.loads((out / collect.COLLECTED_FILE).read_text(encoding="utf-8"))
    assert saved["students"]["grace-hopper"] == {
        "source": "Grace Hopper_556_assignsubmission_file/sub/13-exercises.ipynb",
        "platform": "moodle", "id": "556", "late": None}
    assert {entry["source"]: entry["why"] for entry in saved["unmatched"]} == {
        "lovelaceada_101_9001_first.ipynb": "another file of ada-lovelace's, an earlier one: not used",
        "hoppergrace_102_9002_report.pdf": "not a notebook (.ipynb)"}
    assert collect.read_collected(out) == saved
    collect.collect(export, students, out)  # an earlier collection is replaced whole
    assert sorted(path.name for path in tmp_path.iterdir()) == ["export.zip", "submissions"]


def test_collect_refuses_a_folder_of_the_teachers_and_changes_nothing(students, tmp_path):
    (tmp_path / "export").mkdir()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("the teacher's")
    with pytest.raises(collect.CollectError, match="not an earlier collection"):
        collect.collect(tmp_path / "export", students, tmp_path / "mine")
    assert [path.name for path in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_grading_a_platforms_download_files_each_under_its_student(students, tmp_path, monkeypatch):
    """Before, a file not named exactly <file name>.ipynb was a stranger, and its student was
    marked as having handed nothing in."""
    autograder = tmp_path / "autograder"
    autograder.mkdir()
    roster.write_roster(autograder, students)
    (autograder / "assignment.json").write_text(json.dumps(
        {"exercises": [{"name": name, "points": 1} for name in GRADED]}))
    folder = tmp_path / "download"
    folder.mkdir()
    (folder / "lovelaceada_101_9001_10-exercises.ipynb").write_bytes(notebook_bytes("x = 1"))
    (folder / "Zoë Ní Bhriain_555_assignsubmission_file_10-exercises.ipynb").write_bytes(
        notebook_bytes("x = 1"))
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome({}, "", 0.0))
    results = judge.grade(folder, tmp_path / "out" / "grades.csv", autograder, sandboxed=False)
    notes = {result.submission: result.note for result in results}
    assert notes["lovelaceada_101_9001_10-exercises.ipynb"] == ""
    assert notes["Zoë Ní Bhriain_555_assignsubmission_file_10-exercises.ipynb"] == ""
    assert notes["grace-hopper.ipynb"] == judge.NOTHING_HANDED_IN
    assert "ada-lovelace.ipynb" not in notes and "zoe-ni-bhriain.ipynb" not in notes


# --- Damaged, oversized and platform-encoded exports (issue 45) ---------------------------

def entry_data_offset(export, name):
    """Where an entry's stored bytes start in the zip file ``export``."""
    with zipfile.ZipFile(export) as archive:
        info = archive.getinfo(name)
    header = export.read_bytes()[info.header_offset:info.header_offset + 30]
    name_length, extra_length = int.from_bytes(header[26:28], "little"), \
        int.from_bytes(header[28:30], "little")
    return info.header_offset + 30 + name_length + extra_length


def flip_byte(export, name, at=10):
    data = bytearray(export.read_bytes())
    data[entry_data_offset(export, name) + at] ^= 0xFF
    export.write_bytes(bytes(data))


def understate_size(export, name):
    """The size the central directory gives ``name`` made 10 bytes smaller than its data."""
    with zipfile.ZipFile(export) as archive:
        info = archive.getinfo(name)
    data = bytearray(export.read_bytes())
    central = data.index(b"PK\x01\x02")
    while True:  # each central directory record: its name is at 46, its sizes at 20 and 24
        length = int.from_bytes(data[central + 28:central + 30], "little")
        if data[central + 46:central + 46 + length] == name.encode():
            break
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 24:central + 28] = (info.file_size - 10).to_bytes(4, "little")
    export.write_bytes(bytes(data))


def test_a_damaged_entry_is_listed_by_name_and_costs_no_one_else(students, tmp_path, run_main):
    """Before, a flipped byte (zlib.error) or an understated size (Bad CRC-32) was a
    traceback, exit 1, and nothing written for anyone."""
    from ledgerlab.course.grading import cli

    export = tmp_path / "export.zip"
    names = {"ada": "lovelaceada_101_9001_first.ipynb", "ada later": "lovelaceada_101_9100_second.ipynb",
             "grace": "hoppergrace_102_9002_13-exercises.ipynb",
             "zoe": "bhriainzoëní_103_9003_13-exercises.ipynb",
             "mary": "obrienmary_105_9005_13-exercises.ipynb",
             "bruce": "李小龙_104_9004_13-exercises.ipynb"}
    with zipfile.ZipFile(export, "w") as archive:
        for who, name in names.items():
            method = zipfile.ZIP_STORED if who in ("ada later", "mary") else zipfile.ZIP_DEFLATED
            archive.writestr(name, notebook_bytes(who * 40), compress_type=method)
    flip_byte(export, names["grace"])  # deflated: zlib.error or Bad CRC-32
    flip_byte(export, names["ada later"])  # stored: Bad CRC-32
    understate_size(export, names["mary"])
    out = tmp_path / "submissions"
    autograder = tmp_path / "autograder"
    autograder.mkdir()
    roster.write_roster(autograder, students)
    code, printed, errors = run_main(cli.main, "collect", export, "--autograder", autograder,
                                     "--out", out)
    assert (code, errors) == (0, "")
    assert sorted(path.name for path in out.glob("*.ipynb")) == [
        "ada-lovelace.ipynb", "zoe-ni-bhriain.ipynb", "李小龙.ipynb"]
    assert b"ada" in (out / "ada-lovelace.ipynb").read_bytes()  # the earlier upload, readable
    saved = collect.read_collected(out)
    whys = {entry["source"]: entry["why"] for entry in saved["unmatched"]}
    assert sorted(whys) == sorted([names["grace"], names["ada later"], names["mary"]])
    assert all(why.startswith("damaged in the zip file (") for why in whys.values())
    assert sorted(saved["unreadable"]) == ["grace-hopper", "mary-o-brien"]
    assert f"not collected: {names['mary']}: damaged in the zip file" in printed
    assert "2 students' files cannot be read" in printed and "handed nothing in" not in printed
    assert "collected 3 of 5" in printed


def test_an_unreadable_file_in_a_folder_is_listed_and_the_rest_collected(students, tmp_path,
                                                                        monkeypatch):
    folder = tmp_path / "download"
    folder.mkdir()
    (folder / "lovelaceada_101_9001_x.ipynb").write_bytes(notebook_bytes("ada"))
    locked = folder / "hoppergrace_102_9002_x.ipynb"
    locked.write_bytes(notebook_bytes("grace"))
    locked.chmod(0)
    if os.access(locked, os.R_OK):  # root reads every file: refuse this one as a user is refused
        opened = os.open

        def refusing(path, *args, **kwargs):
            if os.fspath(path) == str(locked):
                raise PermissionError(13, "Permission denied")
            return opened(path, *args, **kwargs)
        monkeypatch.setattr(collect.os, "open", refusing)
    collected = collect.collect(folder, students, tmp_path / "out")
    assert sorted(collected.files) == ["ada-lovelace"]
    assert collected.unmatched == [("hoppergrace_102_9002_x.ipynb",
                                    "cannot be read (Permission denied)")]


@pytest.mark.parametrize("kind", ["zip", "folder"])
def test_an_export_over_the_cap_is_refused_whole_with_its_number(students, tmp_path, monkeypatch,
                                                                 kind):
    """Before, the entries after the 20,000th were dropped without a word: a student whose
    notebook came after them was reported as having handed nothing in."""
    monkeypatch.setattr(collect, "MAX_FILES", 5)
    names = [f"other-{number}.txt" for number in range(5)] + ["ada-lovelace.ipynb"]
    if kind == "zip":
        export = tmp_path / "export.zip"
        with zipfile.ZipFile(export, "w") as archive:
            for name in names:
                archive.writestr(name, notebook_bytes("x"))
    else:
        export = tmp_path / "export"
        export.mkdir()
        for name in names:
            (export / name).write_bytes(notebook_bytes("x"))
    with pytest.raises(collect.CollectError, match="more than the 5 collect reads") as raised:
        collect.collect(export, students, tmp_path / "out")
    assert ("holds 6 entries" if kind == "zip" else "holds more entries") in str(raised.value)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["export" + (".zip" if kind == "zip" else "")]


def without_utf8_flag(export):
    """Clear bit 11 (the name is UTF-8) in every header of ``export``, as Info-ZIP's zip and
    rubyzip write a UTF-8 name: its bytes, with no flag."""
    data = bytearray(export.read_bytes())
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.find(signature)
        while start >= 0:
            flags = int.from_bytes(data[start + at:start + at + 2], "little") & ~0x800
            data[start + at:start + at + 2] = flags.to_bytes(2, "little")
            start = data.find(signature, start + 4)
    export.write_bytes(bytes(data))


def test_a_utf8_name_without_the_flag_is_read_as_utf8(students, tmp_path):
    """Before, zipfile read such a name as cp437: níbhriainzoë became n├¡bhriainzo├½, and
    matched no student."""
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("bhriainzoëní_103_9003_x.ipynb", notebook_bytes("zoe"))
        archive.writestr("李小龙_104_9004_x.ipynb", notebook_bytes("bruce"))
        archive.writestr("lovelaceada_101_9001_x.ipynb", notebook_bytes("ada"))
    without_utf8_flag(export)
    with zipfile.ZipFile(export) as archive:
        assert not any(info.flag_bits & 0x800 for info in archive.infolist())
        assert "bhriainzo├½n├¡_103_9003_x.ipynb" in archive.namelist()
    collected = collect.collect(export, students, tmp_path / "out")
    assert sorted(collected.files) == ["ada-lovelace", "zoe-ni-bhriain", "李小龙"]
    assert collected.files["zoe-ni-bhriain"].path == "bhriainzoëní_103_9003_x.ipynb"


def test_a_cp437_name_stays_cp437():
    info = zipfile.ZipInfo("Zo\u00eb.ipynb")  # as zipfile reads cp437's byte 0x89: ë
    info.flag_bits = 0
    assert collect.zip_name(info) == "Zoë.ipynb"  # b"Zo\x89" is not UTF-8


def test_a_student_whose_file_cannot_be_read_is_not_graded_as_having_handed_nothing_in(
        students, tmp_path, monkeypatch):
    autograder = tmp_path / "autograder"
    autograder.mkdir()
    roster.write_roster(autograder, students)
    (autograder / "assignment.json").write_text(json.dumps(
        {"exercises": [{"name": name, "points": 1} for name in GRADED]}))
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("lovelaceada_101_9001_x.ipynb", notebook_bytes("x = 1"))
        archive.writestr("hoppergrace_102_9002_x.ipynb", notebook_bytes("x = 2" * 40))
    flip_byte(export, "hoppergrace_102_9002_x.ipynb")
    collect.collect(export, students, tmp_path / "submissions")
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome({}, "", 0.0))
    results = judge.grade(tmp_path / "submissions", tmp_path / "out" / "grades.csv", autograder,
                          sandboxed=False)
    notes = {result.submission: result.note for result in results}
    assert notes["grace-hopper.ipynb"].startswith(
        "the file handed in could not be read from the platform's download (damaged in the zip file")
    assert notes["grace-hopper.ipynb"].endswith("not graded")
    assert notes["zoe-ni-bhriain.ipynb"] == judge.NOTHING_HANDED_IN


# --- What the platform's names say: lateness, and the student's id (issue 48) -------------

def autograder_for(students, tmp_path):
    autograder = tmp_path / "autograder"
    autograder.mkdir()
    roster.write_roster(autograder, students)
    (autograder / "assignment.json").write_text(json.dumps(
        {"exercises": [{"name": name, "points": 1} for name in GRADED]}))
    return autograder


def grades_rows(out):
    with open(out, newline="", encoding="utf-8") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}


@pytest.mark.parametrize("name, late", [
    ("hoppergrace_LATE_102_9002_13-exercises.ipynb", True),
    ("lovelace--ada-late_101_9001_13-exercises.ipynb", True),  # Canvas before 2020
    ("lovelaceada_101_9001_13-exercises.ipynb", False),
    ("Grace Hopper_556_assignsubmission_file_13-exercises.ipynb", None),  # Moodle never says
    ("Grace Hopper_556_assignsubmission_file/13-exercises.ipynb", None),
    ("grace-hopper.ipynb", None),
])
def test_a_platforms_name_says_whether_the_file_was_late(name, late):
    assert collect.source(name).late is late


def test_lateness_is_kept_in_collected_json_grades_csv_and_the_summary(students, tmp_path,
                                                                       monkeypatch, run_main):
    """Before, Canvas's LATE marker was read past and dropped: nothing a teacher imports said
    which files were late."""
    from ledgerlab.course.grading import cli, reports

    autograder = autograder_for(students, tmp_path)
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("hoppergrace_LATE_102_9002_13-exercises.ipynb", notebook_bytes("x = 1"))
        archive.writestr("lovelaceada_101_9001_13-exercises.ipynb", notebook_bytes("x = 1"))
        archive.writestr("Zoë Ní Bhriain_555_assignsubmission_file_13-exercises.ipynb",
                         notebook_bytes("x = 1"))
    submissions = tmp_path / "submissions"
    code, printed, _ = run_main(cli.main, "collect", export, "--autograder", autograder,
                                "--out", submissions)
    assert code == 0
    assert "1 handed in late" in printed and "grace-hopper" in printed
    saved = json.loads((submissions / collect.COLLECTED_FILE).read_text(encoding="utf-8"))
    assert {file: entry["late"] for file, entry in saved["students"].items()} == {
        "grace-hopper": True, "ada-lovelace": False, "zoe-ni-bhriain": None}
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome({}, "", 0.0))
    out = tmp_path / "out" / "grades.csv"
    judge.grade(submissions, out, autograder, sandboxed=False)
    rows = grades_rows(out)
    assert {name: row["late"] for name, row in rows.items()} == {
        "grace-hopper.ipynb": "yes", "ada-lovelace.ipynb": "no", "zoe-ni-bhriain.ipynb": "",
        "mary-o-brien.ipynb": "", "李小龙.ipynb": ""}
    summary = reports.summary_path(out).read_text(encoding="utf-8")
    late = summary.split("## Handed in late")[1].split("##")[0]
    says(late, 1, 2, "LATE", 3, in_order=True)  # 1 of the 2 whose names say; 3 do not
    assert "` grace-hopper.ipynb `" in late and "ada-lovelace" not in late


def test_a_collection_made_before_lateness_was_kept_reads_as_not_said(tmp_path):
    (tmp_path / collect.COLLECTED_FILE).write_text(json.dumps({"students": {
        "ada-lovelace": {"source": "lovelaceada_101_9001_x.ipynb", "platform": "canvas",
                         "id": "101"}}}), encoding="utf-8")
    assert collect.read_collected(tmp_path)["students"]["ada-lovelace"]["late"] is None


def test_a_flat_download_graded_without_collect_keeps_each_students_id_and_lateness(
        students, tmp_path, monkeypatch):
    """Before, the gradebooks took the ids from collected.json alone: Canvas's flat download
    graded as it is left every ID empty, so Canvas matched by name or not at all."""
    from ledgerlab.course.grading import reports

    autograder = autograder_for(students, tmp_path)
    folder = tmp_path / "download"
    folder.mkdir()
    for name in ("lovelaceada_101_9001_13-exercises.ipynb",
                 "hoppergrace_LATE_102_9002_13-exercises.ipynb",
                 "Zoë Ní Bhriain_555_assignsubmission_file_13-exercises.ipynb"):
        (folder / name).write_bytes(notebook_bytes("x = 1"))
    monkeypatch.setattr(judge.sandbox, "run", lambda *a, **k: sandbox.Outcome({}, "", 0.0))
    out = tmp_path / "out" / "grades.csv"
    judge.grade(folder, out, autograder, sandboxed=False)
    with open(reports.teacher_file(out, "canvas"), newline="", encoding="utf-8") as handle:
        canvas = {row[0]: row[1] for row in list(csv.reader(handle))[2:]}
    assert canvas == {"Ada Lovelace": "101", "Grace Hopper": "102", "Mary O'Brien": "",
                      "Zoë Ní Bhriain": "", "李小龙": ""}
    moodle = reports.teacher_file(out, "moodle").read_text(encoding="utf-8")
    assert "Participant 555,Zoë Ní Bhriain," in moodle
    rows = grades_rows(out)
    assert rows["hoppergrace_LATE_102_9002_13-exercises.ipynb"]["late"] == "yes"
    assert rows["lovelaceada_101_9001_13-exercises.ipynb"]["late"] == "no"


WORKSHEET = ("\ufeffIdentifier,Full name,Email address,Status,Grade,Maximum Grade\r\n"
             "Participant 555,Zoë Ní Bhriain,z@x,Submitted for grading - 2 days 3 hours late,,11\r\n"
             "Participant 556,Grace Hopper,g@x,Submitted for grading - Graded,,11\r\n"
             "Participant 557,Ada Lovelace,a@x,Zur Bewertung abgegeben - 2 Tage später,,11\r\n")


def test_moodles_worksheet_says_which_of_its_files_were_late(students, tmp_path, run_main):
    """Moodle's names never say it; its grading worksheet's Status column does."""
    from ledgerlab.course.grading import cli

    autograder = autograder_for(students, tmp_path)
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(WORKSHEET, encoding="utf-8")
    assert collect.moodle_lateness(worksheet) == {"555": True, "556": False, "557": None}
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        for name in ("Zoë Ní Bhriain_555_assignsubmission_file/13-exercises.ipynb",
                     "Grace Hopper_556_assignsubmission_file/13-exercises.ipynb",
                     "Ada Lovelace_557_assignsubmission_file/13-exercises.ipynb"):
            archive.writestr(name, notebook_bytes("x = 1"))
    out = tmp_path / "submissions"
    code, printed, _ = run_main(cli.main, "collect", export, "--autograder", autograder,
                                "--out", out, "--moodle-worksheet", worksheet)
    assert code == 0
    assert {file: entry["late"] for file, entry in collect.read_collected(out)["students"].items()} \
        == {"zoe-ni-bhriain": True, "grace-hopper": False, "ada-lovelace": None}
    says(printed, 1, "late", "zoe-ni-bhriain", in_order=True)
    says(printed, 1, "Moodle", "English", "not known", in_order=True)
    code, printed, _ = run_main(cli.main, "collect", export, "--autograder", autograder,
                                "--out", out)
    assert {entry["late"] for entry in collect.read_collected(out)["students"].values()} == {None}
    says(printed, "Moodle", "do not say", "late", "--moodle-worksheet", in_order=True)


@pytest.mark.parametrize("content, why", [
    (None, "not a regular file"), (b"Name,Grade\r\nAda,1\r\n", "no Identifier and Status"),
    (b"", "no Identifier and Status"), (b"\xff\xfe\x00", "cannot read"),
])
def test_a_file_that_is_not_moodles_worksheet_is_refused_and_nothing_collected(
        students, tmp_path, run_main, content, why):
    from ledgerlab.course.grading import cli

    autograder = autograder_for(students, tmp_path)
    worksheet = tmp_path / "worksheet.csv"
    if content is None:
        worksheet.mkdir()
    else:
        worksheet.write_bytes(content)
    with pytest.raises(collect.CollectError, match=why):
        collect.moodle_lateness(worksheet)
    export = tmp_path / "export"
    export.mkdir()
    (export / "ada-lovelace.ipynb").write_bytes(notebook_bytes("x = 1"))
    code, _, errors = run_main(cli.main, "collect", export, "--autograder", autograder,
                               "--out", tmp_path / "out", "--moodle-worksheet", worksheet)
    assert code == 2 and why in errors and not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("zip") is None, reason="Info-ZIP's zip is not installed")
def test_an_info_zip_export_keeps_lateness_and_a_non_ascii_name(students, tmp_path):
    """The zip as Info-ZIP's zip makes it (UTF-8 names, as rubyzip writes Canvas's): the late
    file, the non-ASCII name and the on-time file each come out right."""
    folder = tmp_path / "download"
    folder.mkdir()
    names = {"bhriainzoëní_LATE_103_9003_13-exercises.ipynb": ("zoe-ni-bhriain", True),
             "李小龙_104_9004_13-exercises.ipynb": ("李小龙", False),
             "lovelaceada_101_9001_13-exercises.ipynb": ("ada-lovelace", False)}
    for name in names:
        (folder / name).write_bytes(notebook_bytes("x = 1"))
    export = tmp_path / "export.zip"
    subprocess.run(["zip", "-q", "-r", str(export), "."], cwd=folder, check=True,
                   env={**os.environ, "LC_ALL": "C.UTF-8"})
    collected = collect.collect(export, students, tmp_path / "out")
    assert {file: found.late for file, found in collected.files.items()} == {
        file: late for file, late in names.values()}
    assert sorted(path.name for path in (tmp_path / "out").glob("*.ipynb")) == sorted(
        f"{file}.ipynb" for file, _ in names.values())
