"""A class's roster file: lines end at a line feed (or CRLF) and nothing else, a leading BOM
is skipped, a name whose folder name would not fit a file name is refused by line number,
and a build that fails leaves the previous build, each student's key in it, as it was."""

import json

import pytest

from ledgerlab.course.grading import cli, editions, roster

SECRET = b"a teacher's secret, kept off the class's machines"
CLASS = ["Ada Lovelace", "Grace Hopper"]
# Accepted by the 100-character limit; each makes a folder name over 255 bytes.
LONG_NAMES = {"86 CJK characters": "李" * 86, "64 four-byte letters": "\U00010330" * 64,
              "100 ligatures, 300 letters in NFKC": "\ufb03" * 100}


def read(tmp_path, text):
    path = tmp_path / "names.txt"
    path.write_bytes(text.encode("utf-8"))
    return roster.read_roster(path)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e",
                                       "\x0b", "\x0c", "\r"])
def test_a_separator_other_than_a_line_feed_is_refused_by_line_number(tmp_path, separator):
    with pytest.raises(roster.RosterError) as refused:
        read(tmp_path, f"Ada Lovelace\nGrace{separator}Hopper\n")
    assert str(refused.value).startswith("line 2: a name with a line or record separator")
    assert "Grace" not in str(refused.value)


def test_crlf_lines_and_a_leading_bom_are_read_as_excel_writes_them(tmp_path):
    assert read(tmp_path, "\ufeffAda Lovelace\r\nGrace Hopper\r\n") == CLASS
    assert read(tmp_path, "\ufeff# the class\nAda Lovelace\nGrace Hopper") == CLASS


@pytest.mark.parametrize("name", LONG_NAMES.values(), ids=LONG_NAMES)
def test_a_name_whose_folder_name_is_over_255_bytes_is_refused_by_line_number(tmp_path, name):
    assert len(name) <= roster.MAX_NAME
    with pytest.raises(roster.RosterError) as refused:
        read(tmp_path, f"Ada Lovelace\n{name}\n")
    assert str(refused.value).startswith("line 2: a name whose folder name would be longer")
    assert name[0] not in str(refused.value)


def test_the_longest_name_accepted_makes_a_folder_and_a_submission_name(tmp_path):
    name = "\U00010330" * (roster.MAX_FILE_BYTES // 4)  # 62 letters: 248 bytes, 254 with .ipynb
    assert read(tmp_path, name + "\n") == [name]
    folder = tmp_path / roster.file_name(name)
    folder.mkdir()
    (folder / f"{roster.file_name(name)}.ipynb").write_text("{}")


def build_state(out):
    return {str(path.relative_to(out)): path.read_bytes() if path.is_file() else None
            for path in sorted(out.rglob("*"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A class's build, made by the command a teacher runs, and its files as they were."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "names.txt").write_text("\n".join(CLASS) + "\n")
    out, secret = folder / "assignment", folder / "secret"
    secret.write_bytes(SECRET)
    secret.chmod(0o600)
    command = ["assignment", str(out), "--roster", str(folder / "names.txt"),
               "--secret-file", str(secret)]
    assert cli.main(command) == 0
    return folder, out, command, build_state(out)


def test_a_long_name_added_to_the_roster_is_refused_and_the_build_kept(built, capsys):
    folder, out, command, before = built
    capsys.readouterr()
    (folder / "names.txt").write_text("\n".join([*CLASS, LONG_NAMES["86 CJK characters"]]) + "\n")
    try:
        assert cli.main(command) == 2
    finally:
        (folder / "names.txt").write_text("\n".join(CLASS) + "\n")
    said = capsys.readouterr()
    assert said.err == ("assignment: line 3: a name whose folder name would be longer than 249 "
                        "bytes in UTF-8 (a file name has at most 255, with .ipynb): shorten it\n")
    assert build_state(out) == before


def test_a_build_that_fails_midway_leaves_the_previous_build_whole(built, monkeypatch):
    folder, out, _, before = built
    write_student, written = editions._write_student, []

    def disk_full_at_the_second_student(student_folder, *args):
        written.append(student_folder)
        if len(written) == 2:
            raise OSError(28, "No space left on device", str(student_folder))
        return write_student(student_folder, *args)

    monkeypatch.setattr(editions, "_write_student", disk_full_at_the_second_student)
    with pytest.raises(editions.AssignmentError) as refused:
        editions.build_assignment(out, names=[*CLASS, "Alan Turing"], secret=SECRET)
    assert "No space left on device" in str(refused.value)
    assert "grace" not in str(refused.value).lower()  # the path's name is not said
    assert build_state(out) == before  # roster.json (each key) and assignment.json kept
    assert json.loads((out / "autograder" / roster.ROSTER_FILE).read_text()).keys() == {
        "ada-lovelace", "grace-hopper"}
    assert sorted(path.name for path in folder.iterdir()) == ["assignment", "names.txt", "secret"]


def test_a_rebuild_replaces_the_previous_build_whole(built, tmp_path):
    folder, out, _, before = built
    copy = tmp_path / "assignment"
    editions.build_assignment(copy, names=CLASS, secret=SECRET)
    stale = copy / "students" / "someone-removed"
    stale.mkdir()
    editions.build_assignment(copy, names=CLASS, secret=SECRET)
    assert not stale.exists()
    assert build_state(copy) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["assignment"]
