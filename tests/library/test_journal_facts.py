"""Pinned facts on disk: <path>.facts keeps the journal's guarantees, and deletion follows origins."""

import base64
import os
import subprocess
import sys

import pytest

from ledgerlab import (FactConflict, FactNotFound, Journal, JournalCorrupt, JournalError,
                       JournalFull, JournalLocked, OriginNotFound, Turn, TurnNotFound)
from ledgerlab.journal import files
from ledgerlab.cli import main as cli_main
from ledgerlab.journal import FACTS, TURNS, encode_fact, encode_record, examine, id_tag
from ledgerlab import Fact
from sentences import saying

SECRET = "PRIVATE-MARKER pinned 接🙂"
FACTS_OF = {"one": ["f1", "f2"], "two": ["f3"], "three": []}


@pytest.fixture
def log(log):
    path = log
    with Journal(path) as journal:
        for turn_id in FACTS_OF:
            journal.commit(turn_id, f"{turn_id} question", f"{turn_id} answer")
        for turn_id, fact_ids in FACTS_OF.items():
            for fact_id in fact_ids:
                journal.pin(fact_id, secret(fact_id), origin=turn_id)
    return path


def secret(fact_id):
    return f"{SECRET} {fact_id}"


def facts_path(log):
    return log.with_name(log.name + ".facts")


def directory_bytes(path):
    return b"".join(p.read_bytes() for p in path.parent.iterdir() if p.is_file())


def assert_no_trace(log, fact_id):
    """The fact's text is in no file of the directory, raw or in its base64 line."""
    everything = directory_bytes(log)
    text = secret(fact_id).encode()
    assert text not in everything
    origin = next(turn for turn, ids in FACTS_OF.items() if fact_id in ids)
    line = encode_fact(Fact(fact_id, secret(fact_id), origin))
    assert line.split(b" ")[0][:40] not in everything


# --- The API ------------------------------------------------------------------------

def test_facts_come_back_in_pin_order_after_a_reopen(log):
    with Journal(log) as journal:
        assert [(f.id, f.origin) for f in journal.facts()] == [("f1", "one"), ("f2", "one"),
                                                                ("f3", "two")]
        assert journal.facts()[0] == Fact("f1", secret("f1"), "one")


def test_the_turn_file_holds_only_turn_records_and_the_facts_file_only_facts(log):
    assert all(line.record is not None for line in examine(log.read_bytes(), TURNS))
    facts = examine(facts_path(log).read_bytes(), FACTS)
    assert [line.record.fact.id for line in facts] == ["f1", "f2", "f3"]
    # The documented payload: gson JSON, keys id, text, origin in that order.
    payload = base64.b64decode(facts_path(log).read_bytes().split(b" ")[0])
    assert payload == ('{"id":"f1","text":"' + secret("f1") + '","origin":"one"}').encode()
    assert facts_path(log).read_bytes().startswith(encode_fact(Fact("f1", secret("f1"), "one")))


def test_no_facts_file_until_the_first_pin(tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        assert journal.facts() == [] and os.listdir(tmp_path) == ["conversation.log"]
        journal.pin("f", "t", origin="one")
    assert sorted(os.listdir(tmp_path)) == ["conversation.log", "conversation.log.facts"]
    assert oct(facts_path(log).stat().st_mode & 0o777) == "0o600"


def test_pin_is_idempotent_by_id_and_a_different_text_or_origin_is_a_conflict(log):
    before = facts_path(log).read_bytes()
    with Journal(log) as journal:
        assert journal.pin("f1", secret("f1"), origin="one") == Fact("f1", secret("f1"), "one")
        with pytest.raises(FactConflict, match="another text"):
            journal.pin("f1", secret("f1") + "!", origin="one")
        with pytest.raises(FactConflict, match="another origin"):
            journal.pin("f1", secret("f1"), origin="two")
    assert facts_path(log).read_bytes() == before


def test_the_origin_must_be_a_stored_turn(log):
    before = facts_path(log).read_bytes()
    with Journal(log) as journal:
        with pytest.raises(OriginNotFound) as caught:
            journal.pin("f9", "t", origin="nowhere")
        assert isinstance(caught.value, TurnNotFound) and id_tag("nowhere") in str(caught.value)
    assert facts_path(log).read_bytes() == before


def test_a_pin_is_fsynced_before_it_returns(log, monkeypatch):
    synced = []
    with Journal(log) as journal:
        monkeypatch.setattr(os, "fsync", synced.append)
        journal.pin("f9", "t", origin="three")
        assert synced == [journal._fact_store.file.fileno()]


def test_a_failed_fsync_of_a_pin_is_not_acknowledged_and_closes_the_journal(log, monkeypatch):
    journal = Journal(log)

    def failing(fd):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(JournalError, match="pin not acknowledged"):
        journal.pin("f9", "t", origin="three")
    with pytest.raises(JournalError, match="closed"):
        journal.facts()


def test_unpin_deletes_the_fact_truly_and_keeps_the_others_byte_identical(log):
    lines = facts_path(log).read_bytes().splitlines(keepends=True)
    with Journal(log) as journal:
        journal.unpin("f2")
        with pytest.raises(FactNotFound):
            journal.unpin("f2")
        assert [f.id for f in journal.facts()] == ["f1", "f3"]
    assert facts_path(log).read_bytes() == lines[0] + lines[2]
    assert_no_trace(log, "f2")


def test_the_old_bytes_of_the_facts_file_are_overwritten(log):
    with Journal(log) as journal:
        old = os.open(facts_path(log), os.O_RDONLY)  # the old inode, still readable
        try:
            journal.unpin("f1")
            os.lseek(old, 0, os.SEEK_SET)
            assert os.read(old, 1 << 16).strip(b"\0") == b""
        finally:
            os.close(old)


# --- Deletion follows origins ---------------------------------------------------------

def test_forget_deletes_every_fact_whose_origin_is_that_turn(log):
    with Journal(log) as journal:
        journal.forget("one")
        assert [f.id for f in journal.facts()] == ["f3"]
    for fact_id in FACTS_OF["one"]:
        assert_no_trace(log, fact_id)
    with Journal(log) as journal:
        assert [f.id for f in journal.facts()] == ["f3"] and journal.find("one") is None


def test_retain_deletes_every_fact_whose_origin_it_drops(log):
    with Journal(log) as journal:
        assert journal.retain(last=1) == 2
        assert journal.facts() == []
    for fact_id in ("f1", "f2", "f3"):
        assert_no_trace(log, fact_id)
    assert facts_path(log).read_bytes() == b""


def test_a_turn_forgotten_after_its_facts_were_deleted_completes(log):
    # What a kill between the two rewrites leaves: the turn, none of its facts.
    with Journal(log) as journal:
        journal.unpin("f1")
        journal.unpin("f2")
    with Journal(log) as journal:
        assert journal.find("one") is not None
        journal.forget("one")
        assert journal.find("one") is None and [f.id for f in journal.facts()] == ["f3"]


def test_on_open_a_fact_whose_origin_is_gone_is_deleted(log):
    # The turn file replaced under its facts (here: turn "one" dropped by hand).
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[1:]))
    with Journal(log) as journal:
        assert [f.id for f in journal.facts()] == ["f3"]
    for fact_id in FACTS_OF["one"]:
        assert_no_trace(log, fact_id)


def test_forget_rewrites_the_facts_before_the_turns(log, monkeypatch):
    replaced = []
    real = os.replace
    monkeypatch.setattr(os, "replace",
                        lambda src, dst: replaced.append(os.path.basename(dst)) or real(src, dst))
    with Journal(log) as journal:
        journal.forget("one")
        journal.forget("three")  # no facts: the facts file is not rewritten
    assert replaced == ["conversation.log.facts", "conversation.log", "conversation.log"]


# --- Durability and corruption, like the journal's ---------------------------------

@pytest.mark.parametrize("cut", [1, 40, 100])
def test_a_torn_tail_of_the_facts_file_is_cut_and_the_cut_synced(log, cut):
    whole = facts_path(log).read_bytes()
    torn = encode_fact(Fact("f9", "t", "three"))[:cut]
    facts_path(log).write_bytes(whole + torn + b"\0" * 3)
    with Journal(log) as journal:
        assert len(journal.facts()) == 3
    assert facts_path(log).read_bytes() == whole


@pytest.mark.parametrize("position", [0, 10, 60, -30, -1])
def test_a_changed_byte_in_the_facts_file_refuses_to_open_and_changes_nothing(log, position):
    data = bytearray(facts_path(log).read_bytes())
    data[position] ^= 0x01 if data[position] != ord("\n") - 1 else 0x02
    facts_path(log).write_bytes(bytes(data))
    turns = log.read_bytes()
    with pytest.raises(JournalCorrupt, match="the facts file's line"):
        Journal(log)
    assert facts_path(log).read_bytes() == bytes(data) and log.read_bytes() == turns


def test_a_turn_record_in_the_facts_file_is_corruption(log):
    facts_path(log).write_bytes(encode_record("x", "q", "a"))
    with pytest.raises(JournalCorrupt, match=saying("id", "text", "origin")):
        Journal(log)


def test_a_duplicated_fact_line_is_refused(log):
    data = facts_path(log).read_bytes()
    facts_path(log).write_bytes(data + data.splitlines(keepends=True)[0])
    with pytest.raises(JournalCorrupt, match="duplicate id"):
        Journal(log)


def test_the_facts_file_respects_the_cap(log):
    with Journal(log, max_bytes=600) as journal:
        size = facts_path(log).stat().st_size
        with pytest.raises(JournalFull, match="facts file"):
            journal.pin("big", "x" * 600, origin="three")
    assert facts_path(log).stat().st_size == size


def test_one_writer_for_both_files(log):
    code = ("import sys\nfrom ledgerlab import Journal, JournalLocked\n"
            "try:\n    Journal(sys.argv[1])\nexcept JournalLocked:\n    sys.exit(3)\n")
    with Journal(log):
        with pytest.raises(JournalLocked):
            Journal(log)
        # The facts file itself is locked too: it cannot be opened as another journal.
        with pytest.raises(JournalLocked):
            Journal(facts_path(log))
        for path in (log, facts_path(log)):
            assert subprocess.run([sys.executable, "-c", code, str(path)]).returncode == 3


def test_the_lock_still_guards_the_facts_file_after_a_rewrite(log):
    with Journal(log) as journal:
        journal.unpin("f1")
        with pytest.raises(JournalLocked):
            Journal(facts_path(log))


def test_the_facts_rewrite_has_its_own_temp_name_and_its_leftover_is_removed(log):
    temp = log.with_name(".conversation.log.ledgerlab-facts-rewrite")
    assert files.rewrite_path(str(log), files.FACTS_REWRITE_SUFFIX) == \
        str(temp)
    # Not the turn rewrite's name of a journal called "conversation.log.facts".
    assert files.rewrite_path(str(facts_path(log))) != str(temp)
    lines = facts_path(log).read_bytes().splitlines(keepends=True)
    temp.write_bytes(lines[0] + lines[2][:20])  # what a killed unpin left
    with Journal(log) as journal:
        assert len(journal.facts()) == 3
    assert not temp.exists()
    temp.write_bytes(b"someone else's file")
    with Journal(log) as journal:
        journal.unpin("f1")  # at a fresh name of its own (issue 27): that one is not needed
        assert len(journal.facts()) == 2
    assert temp.read_bytes() == b"someone else's file"


@pytest.mark.parametrize("kind", ["symlink", "directory"])
def test_a_facts_file_that_is_a_symlink_or_directory_is_refused(log, tmp_path, kind):
    target = tmp_path / "elsewhere"
    target.write_bytes(facts_path(log).read_bytes())
    facts_path(log).unlink()
    if kind == "symlink":
        facts_path(log).symlink_to(target)
    else:
        facts_path(log).mkdir()
    with pytest.raises(JournalError, match="cannot open journal|not a regular file"):
        Journal(log)
    assert target.read_bytes().count(b"\n") == 3


# --- Privacy: messages, reprs and the CLI show tags, sizes and counts -----------------

def test_errors_reprs_and_cli_output_never_show_fact_text_or_ids(log, capsys):
    messages = []
    with Journal(log) as journal:
        for action, error in [(lambda: journal.pin("f1", "other", origin="one"), FactConflict),
                              (lambda: journal.pin(SECRET, SECRET, origin=SECRET),
                               OriginNotFound),
                              (lambda: journal.unpin(SECRET), FactNotFound)]:
            with pytest.raises(error) as caught:
                action()
            messages += [str(caught.value), repr(caught.value)]
        messages += [repr(journal), repr(journal.facts())]
    assert cli_main(["inspect", str(log)]) == 0
    assert cli_main(["forget", str(log), "one"]) == 0
    assert cli_main(["retain", str(log), "--last", "0"]) == 0
    out, err = capsys.readouterr()
    messages += [out, err]
    assert all("PRIVATE" not in message for message in messages)
    assert f"{id_tag('one')}" in out and "3 facts from 2 turns" in out
    assert "2 of 3 facts deleted" in out and "1 of 1 facts deleted" in out


def test_inspect_names_a_corrupt_facts_file(log, capsys):
    data = bytearray(facts_path(log).read_bytes())
    data[5] ^= 1
    facts_path(log).write_bytes(bytes(data))
    assert cli_main(["inspect", str(log)]) == 1
    out, err = capsys.readouterr()
    assert "1 corrupt lines" in out and "corrupt" in err and "PRIVATE" not in out + err


def test_the_java_reference_format_is_kept(log):
    # Only turn records in the turn file: each line decodes as {id, question, answer}.
    with Journal(log) as journal:
        expected = b"".join(encode_record(t, f"{t} question", f"{t} answer") for t in FACTS_OF)
        assert log.read_bytes() == expected and journal.history()[0] == Turn("one question",
                                                                              "one answer")
