"""True deletion: forget and retain remove text from disk and keep the rest byte-identical."""

import base64
import os
import subprocess
import sys

import pytest

from ledgerlab import Journal, JournalError, JournalLocked, Turn
from ledgerlab.journal import files
from ledgerlab.cli import main as cli_main
from ledgerlab.journal import TurnNotFound, encode_record

from histories import SECRET, commit_three_turns


@pytest.fixture
def log(log):
    return commit_three_turns(log)


def lines_of(path):
    return path.read_bytes().splitlines(keepends=True)


def directory_bytes(path):
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())


def test_forget_removes_the_text_raw_and_base64_and_keeps_the_rest_byte_identical(log):
    before = lines_of(log)
    secret_line = encode_record("secret", SECRET, SECRET + " answer")
    assert secret_line in before
    with Journal(log) as journal:
        journal.forget("secret")
        assert journal.find("secret") is None
        assert journal.history() == [Turn("first question", "first answer"),
                                     Turn("third question", "third answer")]
    assert lines_of(log) == [before[0], before[2]]
    everything = directory_bytes(log)
    assert SECRET.encode() not in everything
    assert secret_line.split(b" ")[0] not in everything  # the base64 payload
    assert base64.b64encode(SECRET.encode()) not in everything
    assert sorted(p.name for p in log.parent.iterdir()) == ["conversation.log"]


def test_the_old_bytes_are_overwritten_not_just_unlinked(log):
    with open(log, "rb") as old_inode:  # a reader holding the old file
        with Journal(log) as journal:
            journal.forget("secret")
        old = old_inode.read()
    assert old == b"\0" * len(old) and len(old) > 0


def test_forgetting_an_unknown_id_is_a_clear_error_that_changes_nothing(log):
    before = log.read_bytes()
    inode = os.stat(log).st_ino
    with Journal(log) as journal:
        with pytest.raises(TurnNotFound) as caught:
            journal.forget("missing")
        assert isinstance(caught.value, KeyError)
        assert "missing" not in str(caught.value) and "nothing changed" in str(caught.value)
        assert len(journal) == 3
    assert log.read_bytes() == before and os.stat(log).st_ino == inode


def test_retain_keeps_the_newest_turns(log):
    before = lines_of(log)
    with Journal(log) as journal:
        assert journal.retain(last=1) == 2
        assert journal.history() == [Turn("third question", "third answer")]
    assert lines_of(log) == before[2:]
    assert SECRET.encode() not in directory_bytes(log)


def test_retain_of_more_than_stored_writes_nothing(log):
    inode = os.stat(log).st_ino
    with Journal(log) as journal:
        assert journal.retain(last=3) == 0
        assert journal.retain(last=50) == 0
    assert os.stat(log).st_ino == inode


def test_retain_zero_empties_the_journal(log):
    with Journal(log) as journal:
        assert journal.retain(last=0) == 3
        assert journal.history() == [] and journal.size == 0
    assert log.read_bytes() == b""


@pytest.mark.parametrize("last", [-1, True, 1.0, "2", None])
def test_retain_refuses_bad_counts(log, last):
    before = log.read_bytes()
    with Journal(log) as journal:
        with pytest.raises((TypeError, ValueError)):
            journal.retain(last=last)
    assert log.read_bytes() == before


def test_the_lock_still_guards_the_path_after_a_rewrite(log):
    code = ("import sys\nfrom ledgerlab import Journal, JournalLocked\n"
            "try:\n    Journal(sys.argv[1])\nexcept JournalLocked:\n    sys.exit(3)\n")
    with Journal(log) as journal:
        journal.forget("secret")
        with pytest.raises(JournalLocked):
            Journal(log)
        assert subprocess.run([sys.executable, "-c", code, str(log)]).returncode == 3
        journal.commit("four", "fourth question", "fourth answer")  # appends to the new file
    with Journal(log) as journal:
        assert [t.question for t in journal.history()] == [
            "first question", "third question", "fourth question"]


def test_a_stale_rewrite_file_is_removed_on_open_and_a_foreign_one_kept(log):
    stale = log.with_name(os.path.basename(files.rewrite_path(str(log))))
    lines = lines_of(log)
    stale.write_bytes(lines[0] + lines[2][:25])  # what a killed rewrite leaves: kept lines
    with Journal(log) as journal:
        assert len(journal) == 3
    assert not stale.exists()
    stale.write_bytes(b"not written by a rewrite of this journal")
    Journal(log).close()
    assert stale.read_bytes() == b"not written by a rewrite of this journal"


def test_cli_forget_and_retain_print_counts_never_text(log, capsys):
    assert cli_main(["forget", str(log), "secret"]) == 0
    assert cli_main(["forget", str(log), "secret"]) == 2
    assert cli_main(["retain", str(log), "--last", "1"]) == 0
    with pytest.raises(SystemExit) as caught:  # argparse refuses it before opening anything
        cli_main(["retain", str(log), "--last", "-2"])
    assert caught.value.code == 2
    out, err = capsys.readouterr()
    assert "PRIVATE" not in out + err and "secret" not in out + err
    assert "3 -> 2 turns" in out and "deleted 1 of 2 turns" in out
    assert "TurnNotFound" in err
    with Journal(log) as journal:
        assert journal.history() == [Turn("third question", "third answer")]


def test_cli_forget_and_retain_never_create_a_missing_journal(tmp_path, capsys):
    missing = tmp_path / "missing.log"
    assert cli_main(["forget", str(missing), "one"]) == 2
    assert cli_main(["retain", str(missing), "--last", "5"]) == 2
    assert not missing.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "no journal at" in err


def test_forget_through_a_symlink_rewrites_the_target_and_keeps_the_link(log):
    link = log.with_name("link.log")
    link.symlink_to(log.name)
    with Journal(link) as journal:
        journal.forget("secret")
    assert link.is_symlink()
    assert SECRET.encode() not in log.read_bytes()
    with Journal(log) as journal:
        assert len(journal) == 2


def test_forget_refuses_a_journal_with_a_second_hard_link(log):
    copy = log.with_name("backup.log")
    os.link(log, copy)
    before = log.read_bytes()
    with Journal(log) as journal:
        with pytest.raises(JournalError, match="2 names"):
            journal.forget("secret")
        assert len(journal) == 3
    assert log.read_bytes() == before == copy.read_bytes()


def test_forget_after_a_chdir_still_rewrites_the_journal_it_opened(log, monkeypatch, tmp_path):
    monkeypatch.chdir(log.parent)
    with Journal(log.name) as journal:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        monkeypatch.chdir(elsewhere)
        journal.forget("secret")
    assert list(elsewhere.iterdir()) == []
    with Journal(log) as journal:
        assert len(journal) == 2


@pytest.mark.parametrize("before_zeros", ["kept lines", "nothing"])
def test_a_rewrite_leftover_padded_with_zeros_is_still_ours(log, before_zeros):
    # A power loss mid-rewrite can leave zeros after the kept lines, or zeros alone.
    stale = log.with_name(os.path.basename(files.rewrite_path(str(log))))
    lines = lines_of(log)
    kept = lines[0] + lines[2][:10] if before_zeros == "kept lines" else b""
    stale.write_bytes(kept + b"\0" * 30)
    with Journal(log) as journal:
        assert not stale.exists()
        journal.forget("one")
        assert len(journal) == 2


# --- issue 35.11: everything that can refuse is checked before anything changes ------------

def with_facts(log):
    with Journal(log) as journal:
        journal.pin("code", SECRET, origin="secret")
        journal.pin("tone", "brief", origin="one")
    return {path.name: path.read_bytes() for path in log.parent.iterdir()}


@pytest.mark.parametrize("linked", ["conversation.log", "conversation.log.facts"])
@pytest.mark.parametrize("how", ["forget", "retain"])
def test_a_second_hard_link_to_either_file_refuses_before_anything_changes(log, linked, how):
    """Before: with the turn file linked, forget deleted the turn's facts, kept the turn,
    and said nothing changed."""
    before = with_facts(log)
    os.link(log.parent / linked, log.parent / "backup")
    with Journal(log) as journal:
        with pytest.raises(JournalError, match="2 names.*nothing changed"):
            journal.forget("secret") if how == "forget" else journal.retain(last=1)
        assert len(journal) == 3 and [fact.id for fact in journal.facts()] == ["code", "tone"]
    after = {path.name: path.read_bytes() for path in log.parent.iterdir()}
    assert after == {**before, "backup": before[linked]}


def test_an_error_after_the_facts_went_says_they_went(log, monkeypatch):
    """The turn file's rewrite fails once the facts file's is done: the error says so."""
    with_facts(log)
    real, calls = files.replace, []

    def second_fails(*args):
        calls.append(args)
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        return real(*args)

    monkeypatch.setattr("ledgerlab.journal.store.replace", second_fails)
    with Journal(log) as journal:
        with pytest.raises(JournalError) as error:
            journal.forget("secret")
    message = str(error.value)
    assert "1 fact derived from the 1 turn deleted" in message
    assert "the journal is unchanged" in message
    assert "nothing changed" not in message and SECRET not in message
    with Journal(log) as journal:
        assert journal.find("secret") is not None
        assert [fact.id for fact in journal.facts()] == ["tone"]
