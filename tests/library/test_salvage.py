"""``salvage``: a refused journal's way forward. Every record that verifies is copied, in
order, into a new journal; what is lost is named by line, offset and id tag, never text."""

import hashlib
import os

import pytest

from ledgerlab import Journal, JournalCorrupt, JournalError, Turn
from ledgerlab.cli import main
from ledgerlab.journal import encode_record, id_tag, salvage

SECRET = "my password is hunter2"
LINES = [encode_record("one", "q1", "a1"), encode_record("two", SECRET, "a2"),
         encode_record("three", "q3", "a3")]


def damaged(line: bytes) -> bytes:
    """``line`` with one checksum digit changed."""
    return line[:-2] + (b"0" if line[-2:-1] != b"0" else b"1") + b"\n"


@pytest.fixture
def paths(tmp_path):
    return tmp_path / "broken.log", tmp_path / "saved.log"


def test_a_refused_journal_is_salvaged_and_the_copy_opens(paths, capsys):
    broken, saved = paths
    data = LINES[0] + damaged(LINES[1]) + LINES[2] + LINES[0]  # a bad line, a repeated id
    broken.write_bytes(data)
    with pytest.raises(JournalCorrupt):
        Journal(broken)
    code = main(["salvage", str(broken), "--out", str(saved)])
    out, err = capsys.readouterr()
    assert code == 1  # something was lost
    assert broken.read_bytes() == data  # never written
    with Journal(saved) as journal:
        assert journal.history() == [Turn("q1", "a1"), Turn("q3", "a3")]
    assert saved.read_bytes() == LINES[0] + LINES[2]
    second, fourth = len(LINES[0]), len(LINES[0]) + len(LINES[1]) + len(LINES[2])
    assert out.splitlines() == [
        f"lost line 2 at byte offset {second} ({len(LINES[1])} bytes, {id_tag('two')}): "
        "checksum mismatch",
        f"lost line 4 at byte offset {fourth} ({len(LINES[0])} bytes, {id_tag('one')}): "
        "duplicate id",
        f"salvaged 2 records ({len(LINES[0] + LINES[2])} bytes) into {saved}; lost 2 lines; "
        f"{broken} is unchanged",
    ]
    assert SECRET not in out + err and "two" not in out.replace(id_tag("two"), "")


def test_nothing_lost_exits_0(paths, capsys):
    broken, saved = paths
    broken.write_bytes(b"".join(LINES) + b"\0" * 10)  # NULs after the last newline lose nothing
    assert main(["salvage", str(broken), "--out", str(saved)]) == 0
    assert saved.read_bytes() == b"".join(LINES)


def test_a_verified_record_whose_newline_was_overwritten_is_kept(paths):
    broken, saved = paths
    broken.write_bytes(LINES[0] + LINES[1][:-1] + b"x")
    result = salvage(broken, saved)
    assert (result.kept, [line.problem for line in result.lost]) == (
        2, ["a verified record whose newline was overwritten"])
    with Journal(saved) as journal:
        assert [turn.answer for turn in journal.history()] == ["a1", "a2"]


@pytest.mark.parametrize("tail", [b"x", LINES[1][:50], LINES[1][:-1] + b"\0\0"])
def test_a_tail_is_kept_only_as_far_as_it_verifies(paths, tail):
    broken, saved = paths
    broken.write_bytes(LINES[0] + tail)
    result = salvage(broken, saved)
    whole = tail.startswith(LINES[1][:-1])
    assert result.kept == 1 + whole and len(result.lost) == (not whole)


def test_salvage_never_writes_over_a_file(paths):
    broken, saved = paths
    broken.write_bytes(b"".join(LINES))
    saved.write_bytes(b"mine")
    with pytest.raises(JournalError, match="exists"):
        salvage(broken, saved)
    with pytest.raises(JournalError, match="exists"):
        salvage(broken, broken)
    assert saved.read_bytes() == b"mine" and broken.read_bytes() == b"".join(LINES)


def test_a_failed_write_leaves_no_file_behind(paths, monkeypatch):
    broken, saved = paths
    broken.write_bytes(b"".join(LINES))

    def failing(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(JournalError, match="nothing written"):
        salvage(broken, saved)
    assert sorted(os.listdir(saved.parent)) == [broken.name]


def test_without_os_link_as_in_pyodide(paths, monkeypatch):
    """Pyodide has no os.link: the copy still appears whole, never over a file that took
    the name meanwhile, and a failed rename leaves nothing behind."""
    broken, saved = paths
    broken.write_bytes(LINES[0] + damaged(LINES[1]) + LINES[2])
    monkeypatch.delattr(os, "link")
    assert salvage(broken, saved).kept == 2
    assert saved.read_bytes() == LINES[0] + LINES[2]

    saved.unlink()
    real_lexists = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda path: False)  # taken after the check
    saved.write_bytes(b"mine")
    with pytest.raises(JournalError, match="nothing written"):
        salvage(broken, saved)
    assert saved.read_bytes() == b"mine"

    saved.unlink()
    monkeypatch.setattr(os.path, "lexists", real_lexists)

    def failing(source, destination):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(JournalError, match="nothing written"):
        salvage(broken, saved)
    assert sorted(os.listdir(saved.parent)) == [broken.name]


def test_salvage_reads_a_journal_that_is_open_and_locked(paths):
    broken, saved = paths
    with Journal(broken) as journal:
        journal.commit("one", "q1", "a1")
        assert salvage(broken, saved).kept == 1


def test_a_missing_source_or_a_directory_is_a_one_line_error(paths, capsys):
    broken, saved = paths
    assert main(["salvage", str(broken), "--out", str(saved)]) == 2
    assert capsys.readouterr().err.startswith("ledgerlab salvage: JournalError: cannot read")
    assert main(["salvage", str(saved.parent), "--out", str(saved)]) == 2
    assert not saved.exists()


def test_an_empty_path_is_named_empty_not_the_current_folder(paths, capsys, monkeypatch):
    broken, saved = paths
    broken.write_bytes(LINES[0])
    monkeypatch.chdir(broken.parent)
    before = sorted(os.listdir(broken.parent))
    with pytest.raises(SystemExit):
        main(["salvage", str(broken), "--out", ""])
    assert "argument --out: an empty path" in capsys.readouterr().err
    for call, named in ((lambda: salvage(broken, ""), "destination"),
                        (lambda: salvage("", saved), "source"),
                        (lambda: Journal(""), "path")):
        with pytest.raises(ValueError, match=f"^{named} is empty"):
            call()
    assert sorted(os.listdir(broken.parent)) == before


def test_a_symlinked_facts_file_is_refused_as_a_symlink(paths, capsys):
    broken, saved = paths
    with Journal(broken) as journal:
        journal.commit("one", "q1", "a1")
        journal.pin("code", SECRET, origin="one")
    facts = broken.parent / "broken.log.facts"
    real = broken.parent / "elsewhere.facts"
    facts.rename(real)
    facts.symlink_to(real)
    for call in (lambda: Journal(broken), lambda: salvage(broken, saved)):
        with pytest.raises(JournalError, match="is a symbolic link") as caught:
            call()
        assert "Too many levels" not in str(caught.value) and SECRET not in str(caught.value)
    for command in (["inspect", str(broken)], ["forget", str(broken), "one"]):
        assert main(command) == 2
        assert "is a symbolic link" in capsys.readouterr().err
    assert not saved.exists() and real.read_text().count("\n") == 1


def test_the_copy_is_byte_for_byte_the_verified_lines(paths):
    broken, saved = paths
    broken.write_bytes(LINES[0] + b"garbage line\n" + LINES[2])
    salvage(broken, saved)
    assert hashlib.sha256(saved.read_bytes()).digest() == hashlib.sha256(
        LINES[0] + LINES[2]).digest()


def test_the_facts_file_is_salvaged_with_the_turns_its_facts_came_from(paths, capsys):
    broken, saved = paths
    with Journal(broken) as journal:
        for turn_id in ("one", "two", "three"):
            journal.commit(turn_id, f"q {turn_id}", f"a {turn_id}")
        journal.pin("code", SECRET, origin="one")
        journal.pin("java", "Java 8", origin="two")
        journal.pin("tone", "brief", origin="three")
    turns, facts = broken.read_bytes(), (broken.parent / "broken.log.facts").read_bytes()
    first, second, third = turns.splitlines(keepends=True)
    broken.write_bytes(first + damaged(second) + third)  # turn two is lost...
    fact_lines = facts.splitlines(keepends=True)
    (broken.parent / "broken.log.facts").write_bytes(  # ...and the third fact's line is damaged
        fact_lines[0] + fact_lines[1] + damaged(fact_lines[2]))
    with pytest.raises(JournalCorrupt):
        Journal(broken)

    code = main(["salvage", str(broken), "--out", str(saved)])
    out, err = capsys.readouterr()
    assert code == 1
    with Journal(saved) as journal:
        assert [fact.id for fact in journal.facts()] == ["code"]  # java's origin is lost
        assert journal.facts()[0].text == SECRET
    assert (saved.parent / "saved.log.facts").read_bytes() == fact_lines[0]
    lost = [line for line in out.splitlines() if line.startswith("lost facts file line")]
    assert [line.split(":")[-1].strip() for line in lost] == [
        "its origin turn was not salvaged", "checksum mismatch"]
    assert id_tag("java") in lost[0] and id_tag("tone") in lost[1]
    assert out.splitlines()[-1] == (f"salvaged 1 facts into {saved}.facts; lost 2 lines of the "
                                    f"facts file, which is unchanged")
    assert SECRET not in out + err


def test_salvage_refuses_when_the_new_facts_file_exists_and_writes_nothing(paths):
    broken, saved = paths
    with Journal(broken) as journal:
        journal.commit("one", "q", "a")
        journal.pin("code", "text", origin="one")
    (saved.parent / "saved.log.facts").write_bytes(b"mine")
    with pytest.raises(JournalError, match="exists"):
        salvage(broken, saved)
    assert not saved.exists() and (saved.parent / "saved.log.facts").read_bytes() == b"mine"


def test_a_journal_without_a_facts_file_salvages_none(paths):
    broken, saved = paths
    broken.write_bytes(b"".join(LINES))
    result = salvage(broken, saved)
    assert (result.kept, result.facts_kept, result.facts_lost) == (3, 0, ())
    assert not (saved.parent / "saved.log.facts").exists()
