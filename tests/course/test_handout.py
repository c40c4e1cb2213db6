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
