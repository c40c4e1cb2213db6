"""Handing out: an archive per student with the install command including the course extra;
the same bytes for the same build; a folder of the teacher's never overwritten."""

import zipfile

import pytest

from ledgerlab.course.grading import editions, handout

SECRET = b"a teacher's secret, kept off the class's machines"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return editions.build_assignment(tmp_path_factory.mktemp("build") / "assignment",
                                     names=["Ada Lovelace", "李小龙"], secret=SECRET)


def test_without_a_wheel_the_archive_installs_the_course_extra_from_the_index(build, tmp_path):
    archives = handout.hand_out(build, tmp_path / "handout")
    assert [path.name for path in archives] == ["ada-lovelace.zip", "李小龙.zip"]
    with zipfile.ZipFile(archives[1]) as archive:
        readme = archive.read("李小龙/README.txt").decode("utf-8")
    assert 'python -m pip install "ledgerlab[course]"' in readme and "jupyter lab" in readme


def test_the_same_build_makes_the_same_archives(build, tmp_path):
    first = [path.read_bytes() for path in handout.hand_out(build, tmp_path / "handout")]
    again = [path.read_bytes() for path in handout.hand_out(build, tmp_path / "handout")]
    assert first == again


def test_a_folder_of_the_teachers_is_refused_and_left_as_it_was(build, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("the teacher's")
    with pytest.raises(handout.HandoutError, match="not an earlier hand-out"):
        handout.hand_out(build, tmp_path / "mine")
    with pytest.raises(handout.HandoutError, match="not a wheel"):
        handout.hand_out(build, tmp_path / "new", wheel=tmp_path / "mine" / "notes.txt")
    assert [path.name for path in (tmp_path / "mine").iterdir()] == ["notes.txt"]
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("make, said", [
    (lambda path: None, "does not exist"),
    (lambda path: path.write_text("a file"), "is not a folder:"),
    (lambda path: path.mkdir(), f"is not a folder make assignment built (it has no {editions.BUILD_MARK})"),
])
def test_a_build_that_is_not_one_is_said_to_be_what_it_is(tmp_path, make, said):
    make(tmp_path / "build")
    with pytest.raises(handout.HandoutError) as refused:
        handout.hand_out(tmp_path / "build", tmp_path / "handout")
    assert said in str(refused.value)
    assert "student folders" not in str(refused.value)
    assert not (tmp_path / "handout").exists()


def test_the_command_says_a_missing_build_does_not_exist(tmp_path, capsys):
    from ledgerlab.course.grading import cli

    assert cli.main(["handout", str(tmp_path / "nonexistent"), "--out", str(tmp_path / "h")]) == 2
    assert f"handout: {tmp_path / 'nonexistent'} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "h").exists()


@pytest.mark.parametrize("call, argument", [
    (lambda build, tmp: handout.hand_out(bytes(build), tmp / "h"), "build"),
    (lambda build, tmp: handout.hand_out(build, [1]), "out"),
    (lambda build, tmp: handout.hand_out(build, tmp / "h", wheel=1), "wheel"),
    (lambda build, tmp: handout.install_command(b"x.whl"), "wheel"),
])
def test_a_wrong_type_is_a_type_error_naming_the_argument(build, tmp_path, call, argument):
    with pytest.raises(TypeError, match=f"^{argument} must be a path"):
        call(build, tmp_path)
    assert not (tmp_path / "h").exists()


def test_a_str_path_is_taken_as_a_path(build, tmp_path):
    archives = handout.hand_out(str(build), str(tmp_path / "handout"))
    assert [path.name for path in archives] == ["ada-lovelace.zip", "李小龙.zip"]
    assert handout.install_command(str(tmp_path / "ledgerlab-0.1-py3-none-any.whl")) == \
        'python -m pip install "ledgerlab-0.1-py3-none-any.whl[course]"'
