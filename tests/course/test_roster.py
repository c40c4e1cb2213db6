"""A class's roster file: lines end at a line feed (or CRLF) and nothing else, a leading BOM
is skipped, a name whose folder name would not fit a file name is refused by line number,
and a build that fails leaves the previous build, each student's key in it, as it was."""

import json
import os

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


# Run in a child with a time limit and a memory cap: on a reader that waits on a FIFO or
# reads /dev/zero to its end, the test fails, and neither this process nor the machine
# waits or fills.
READ_EACH = r"""
import json, sys
from ledgerlab.course.grading import cli, roster
found = {}
for kind, path in json.loads(sys.argv[1]).items():
    for reader in ("read_roster", "read_secret"):
        try:
            getattr(roster, reader)(path)
            found[f"{reader} {kind}"] = "read"
        except roster.RosterError as error:
            found[f"{reader} {kind}"] = str(error)
print(json.dumps(found))
"""


def in_a_child(script, *argv):
    import resource
    import subprocess
    import sys

    def capped():
        resource.setrlimit(resource.RLIMIT_AS, (4 * 1024**3, 4 * 1024**3))

    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True,
                          text=True, timeout=120, preexec_fn=capped)
    return done


@pytest.mark.slow  # a child Python that imports the grader
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs and /dev/zero")
def test_a_fifo_or_a_link_to_a_device_is_refused_as_the_roster_or_the_secret(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "folder").mkdir()
    paths = {kind: str(tmp_path / kind) for kind in ("fifo", "zero", "folder")}
    done = in_a_child(READ_EACH, json.dumps(paths))
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert len(found) == 6
    for key, said in found.items():
        what = "the roster" if key.startswith("read_roster") else "the secret file"
        assert said.startswith(f"{what} is not a regular file"), key


@pytest.mark.slow  # a child Python that imports the grader
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_assignment_with_a_fifo_as_the_roster_says_so_and_makes_nothing(tmp_path):
    os.mkfifo(tmp_path / "names")
    out, secret = tmp_path / "assignment", tmp_path / "secret"
    done = in_a_child("import sys; from ledgerlab.course.grading import cli; "
                      "sys.exit(cli.main(sys.argv[1:]))", "assignment", str(out),
                      "--roster", str(tmp_path / "names"), "--secret-file", str(secret))
    assert done.returncode == 2
    assert "assignment: the roster is not a regular file" in done.stderr
    assert not out.exists() and not secret.exists()


def test_a_roster_or_a_secret_over_its_size_is_refused_unread(tmp_path):
    path = tmp_path / "names.txt"
    path.write_bytes(b"Ada Lovelace\n" * (roster.MAX_ROSTER_BYTES // 13 + 1))
    with pytest.raises(roster.RosterError, match=f"larger than {roster.MAX_ROSTER_BYTES:,} bytes"):
        roster.read_roster(path)
    secret = tmp_path / "secret"
    secret.write_bytes(b"0" * (roster.MAX_SECRET_BYTES + 1))
    with pytest.raises(roster.RosterError, match=f"larger than {roster.MAX_SECRET_BYTES:,} bytes"):
        roster.read_secret(secret)


def test_a_folder_as_the_roster_the_secret_or_roster_json_is_said_to_be_one(tmp_path):
    (tmp_path / "folder").mkdir()
    with pytest.raises(roster.RosterError, match="^the roster is not a regular file"):
        roster.read_roster(tmp_path / "folder")
    with pytest.raises(roster.RosterError, match="^the secret file is not a regular file"):
        roster.read_secret(tmp_path / "folder", create=True)
    (tmp_path / "autograder" / roster.ROSTER_FILE).mkdir(parents=True)
    with pytest.raises(roster.RosterError, match=f"^{roster.ROSTER_FILE} is not a regular file"):
        roster.read_students(tmp_path / "autograder")


def test_a_secret_that_cannot_be_made_is_a_roster_error_and_nothing_is_made(tmp_path):
    (tmp_path / "secret").symlink_to(tmp_path / "nowhere")  # a link to nothing: not there
    with pytest.raises(roster.RosterError, match="^cannot make the secret file"):
        roster.read_secret(tmp_path / "secret", create=True)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("call, argument", [
    (lambda: roster.read_roster(b"names.txt"), "path"), (lambda: roster.read_roster([1]), "path"),
    (lambda: roster.read_secret(None), "path"), (lambda: roster.read_secret("s", create=1), "create"),
    (lambda: roster.read_students(b"autograder"), "autograder"),
])
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, argument):
    with pytest.raises(TypeError, match=f"^{argument} must be "):
        call()


@pytest.mark.slow  # 5,000 names
def test_the_largest_roster_allowed_is_read(tmp_path):
    # 5,000 names of 100 characters, 95 of them four-byte letters (U+1D41A, a bold a, whose
    # folder name is "aaa..."), each after a comment line: under the cap.
    names = ["\U0001d41a" * 95 + f" {number:04d}" for number in range(roster.MAX_STUDENTS)]
    text = "\n".join(f"# student {number}\n{name}" for number, name in enumerate(names))
    assert len(text.encode("utf-8")) <= roster.MAX_ROSTER_BYTES
    assert read(tmp_path, text) == names
