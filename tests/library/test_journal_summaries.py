"""Summaries on disk (issue 37): <path>.summaries keeps the journal's guarantees, a summary
is deleted with any turn it covers, and nothing changes on disk on error."""

import base64
import hashlib
import os

import pytest

from ledgerlab import (Evidence, Fact, InvalidText, Journal, JournalCorrupt, JournalError,
                       JournalFull, Summary, SummaryConflict, SummaryNotFound, TurnNotFound)
from ledgerlab.cli import main as cli_main
from ledgerlab.journal import (SUMMARIES, TURNS, encode_record, encode_summary, examine, id_tag,
                               salvage)
from ledgerlab.memory import Derived

SECRET = "PRIVATE-MARKER summary 接🙂"
TURN_IDS = ["one", "two", "three", "four"]
# Nested and overlapping: s12 covers one and two, s123 all three first, s34 the last two.
COVERS = {"s12": ("one", "two"), "s123": ("one", "two", "three"), "s34": ("three", "four")}


def text_of(summary_id):
    return f"{SECRET} {summary_id}"


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "conversation.log"
    with Journal(path) as journal:
        for turn_id in TURN_IDS:
            journal.commit(turn_id, f"{turn_id} question", f"{turn_id} answer")
        for summary_id, covers in COVERS.items():
            journal.add_summary(summary_id, text_of(summary_id), covers=covers)
    return path


def summaries_path(log):
    return log.with_name(log.name + ".summaries")


def files_of(folder):
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def assert_no_trace(log, summary_id):
    """The summary's text is in no file of the directory, raw or as its base64 line."""
    everything = b"".join(files_of(log.parent).values())
    assert text_of(summary_id).encode() not in everything
    line = encode_summary(Summary(summary_id, text_of(summary_id), COVERS[summary_id]))
    assert line.split(b" ")[0][:40] not in everything


def stored(log):
    with Journal(log) as journal:
        return {summary.id: summary.covers for summary in journal.summaries()}


# --- The values ------------------------------------------------------------------------

def test_a_summary_is_frozen_checked_and_its_repr_shows_no_text():
    summary = Summary("s", SECRET, ["one", "two"])
    assert summary.covers == ("one", "two")  # a list becomes a tuple
    with pytest.raises(AttributeError):
        summary.text = "x"
    shown = repr(summary)
    assert SECRET not in shown and "one" not in shown and id_tag("one") in shown
    assert "covers=2 turns" in shown and f"text={len(SECRET.encode())} bytes" in shown
    assert "+2" in repr(Summary("s", "t", ["a", "b", "c", "d", "e"]))


@pytest.mark.parametrize("covers,error", [
    ((), ValueError), ("one", TypeError), (["one", "one"], ValueError), ([1], InvalidText),
    ([""], InvalidText), (None, TypeError), (["\ud800"], InvalidText)])
def test_a_summary_refuses_bad_covers(covers, error):
    with pytest.raises(error) as raised:
        Summary("s", "t", covers)
    assert "\ud800" not in str(raised.value)


@pytest.mark.parametrize("fields", [("", "t", ("a",)), ("s", 3, ("a",)), (1, "t", ("a",))])
def test_a_summary_refuses_a_bad_id_or_text(fields):
    with pytest.raises((InvalidText, TypeError)):
        Summary(*fields)


def test_evidence_is_checked_and_its_repr_shows_neither_text_nor_source():
    evidence = Evidence("e1", SECRET, "https://private.example/doc")
    shown = repr(evidence)
    assert SECRET not in shown and "private" not in shown and "source=27 bytes" in shown
    for fields in [("e", "t", ""), ("", "t", "src"), ("e", None, "src"), ("e", "t", 5)]:
        with pytest.raises((InvalidText, TypeError)):
            Evidence(*fields)


# --- Storage -------------------------------------------------------------------------------

def test_summaries_come_back_after_a_reopen_in_the_order_added(log):
    with Journal(log) as journal:
        assert journal.summaries() == [Summary(sid, text_of(sid), covers)
                                       for sid, covers in COVERS.items()]
        assert "summaries=3" in repr(journal) and SECRET not in repr(journal)


def test_the_summaries_file_holds_the_documented_payload_and_the_turn_file_only_turns(log):
    assert all(line.record is not None for line in examine(log.read_bytes(), TURNS))
    lines = examine(summaries_path(log).read_bytes(), SUMMARIES)
    assert [line.record.summary.id for line in lines] == list(COVERS)
    payload = base64.b64decode(summaries_path(log).read_bytes().split(b" ")[0])
    assert payload == ('{"id":"s12","text":"' + text_of("s12") +
                       '","covers":["one","two"]}').encode()


def test_a_journal_without_summaries_is_byte_identical_and_has_no_summaries_file(tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        journal.pin("f", "t", origin="one")
        assert journal.summaries() == []
    assert log.read_bytes() == encode_record("one", "q", "a")
    assert sorted(os.listdir(tmp_path)) == ["conversation.log", "conversation.log.facts"]


def test_add_summary_is_idempotent_and_a_conflict_changes_nothing(log):
    before = files_of(log.parent)
    with Journal(log) as journal:
        again = journal.add_summary("s12", text_of("s12"), covers=("one", "two"))
        assert again == Summary("s12", text_of("s12"), ("one", "two"))
        for text, covers, field in [("other", ("one", "two"), "text"),
                                    (text_of("s12"), ("one",), "covers")]:
            with pytest.raises(SummaryConflict, match=field) as error:
                journal.add_summary("s12", text, covers=covers)
            assert SECRET not in str(error.value) and "s12" not in str(error.value)
    assert files_of(log.parent) == before


def test_covers_naming_no_stored_turn_is_turn_not_found_and_writes_nothing(tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        with pytest.raises(TurnNotFound, match="covers 1 turn not stored") as error:
            journal.add_summary("s", SECRET, covers=["one", "ghost"])
        assert "ghost" not in str(error.value) and SECRET not in str(error.value)
        with pytest.raises(ValueError):
            journal.add_summary("s", SECRET, covers=[])
        assert journal.summaries() == []
    assert os.listdir(tmp_path) == ["conversation.log"]  # no summaries file either


def test_a_summary_that_would_cross_the_cap_is_refused_with_the_file_unchanged(tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log, max_bytes=400) as journal:
        journal.commit("one", "q", "a")
        journal.add_summary("s", "short", covers=["one"])
        before = summaries_path(log).read_bytes()
        with pytest.raises(JournalFull):
            journal.add_summary("big", "x" * 400, covers=["one"])
    assert summaries_path(log).read_bytes() == before


# --- Deletion follows the turns covered ----------------------------------------------------

def test_drop_summary_deletes_it_for_real_and_keeps_the_rest_byte_identical(log):
    lines = summaries_path(log).read_bytes().splitlines(keepends=True)
    turns = log.read_bytes()
    with Journal(log) as journal:
        journal.drop_summary("s123")
        with pytest.raises(SummaryNotFound, match="not a stored summary") as error:
            journal.drop_summary("s123")
        assert "s123" not in str(error.value)
        assert len(journal) == 4
    assert summaries_path(log).read_bytes() == lines[0] + lines[2]
    assert log.read_bytes() == turns
    assert_no_trace(log, "s123")


@pytest.mark.parametrize("turn_id,gone", [("one", {"s12", "s123"}), ("three", {"s123", "s34"}),
                                          ("four", {"s34"})])
def test_forget_deletes_every_summary_covering_the_turn(log, turn_id, gone):
    with Journal(log) as journal:
        derived = journal.derived_from(turn_id)
        assert {summary.id for summary in derived.summaries} == gone
        journal.forget(turn_id)
    assert set(stored(log)) == set(COVERS) - gone
    for summary_id in gone:
        assert_no_trace(log, summary_id)


def test_retain_deletes_the_summaries_covering_any_dropped_turn(log):
    with Journal(log) as journal:
        assert journal.retain(last=2) == 2
        assert journal.ids() == ("three", "four")
    assert stored(log) == {"s34": ("three", "four")}
    for summary_id in ("s12", "s123"):
        assert_no_trace(log, summary_id)


def test_derived_from_lists_the_facts_and_summaries_forget_would_delete(log):
    with Journal(log) as journal:
        journal.pin("f1", "fact", origin="two")
        journal.pin("f2", "fact", origin="three")
        derived = journal.derived_from("two")
        assert derived == Derived((Fact("f1", "fact", "two"),),
                                  (journal.summaries()[0], journal.summaries()[1]))
        assert derived.facts == (Fact("f1", "fact", "two"),)
        with pytest.raises(TurnNotFound) as error:
            journal.derived_from("ghost")
        assert "ghost" not in str(error.value)
        facts, summaries = journal.facts(), journal.summaries()
        journal.forget("two")
        assert [fact for fact in facts if fact not in journal.facts()] == list(derived.facts)
        assert [item for item in summaries if item not in journal.summaries()] == \
            list(derived.summaries)


def test_a_summary_whose_turn_is_gone_is_deleted_on_open(log):
    """A turn file cut or replaced under its summaries (never forget's order)."""
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[1:]))  # turn "one" gone
    with Journal(log) as journal:
        assert [summary.id for summary in journal.summaries()] == ["s34"]
    assert_no_trace(log, "s12")


def test_a_second_name_of_the_summaries_file_refuses_forget_before_anything_changes(log):
    with Journal(log) as journal:
        journal.pin("f", "fact", origin="one")
    os.link(summaries_path(log), log.parent / "backup")
    before = files_of(log.parent)
    with Journal(log) as journal:
        with pytest.raises(JournalError, match="2 names.*nothing changed"):
            journal.forget("one")
        with pytest.raises(JournalError, match="2 names.*nothing changed"):
            journal.drop_summary("s12")
    assert files_of(log.parent) == before


# --- Recovery and damage --------------------------------------------------------------------

def test_a_torn_tail_of_the_summaries_file_is_cut(log):
    whole = summaries_path(log).read_bytes()
    torn = encode_summary(Summary("s9", SECRET, ("one",)))
    summaries_path(log).write_bytes(whole + torn[:30])
    with Journal(log) as journal:
        assert [summary.id for summary in journal.summaries()] == list(COVERS)
    assert summaries_path(log).read_bytes() == whole


@pytest.mark.parametrize("payload", [
    b'{"id":"s","text":"t","covers":"one"}', b'{"id":"s","text":"t","covers":[]}',
    b'{"id":"s","text":"t","covers":[1]}', b'{"id":"s","text":"t","covers":{"a":"one"}}',
    b'{"id":"s","text":"t","covers":["one","one"]}', b'{"id":"s","text":5,"covers":["one"]}',
    b'{"id":"s","covers":["one"],"text":"t"}', b'{"id":"s","text":"t"}',
    b'{"id":"","text":"t","covers":["one"]}', b'["s","t",["one"]]'])
def test_a_checksummed_but_malformed_summary_refuses_to_open(log, payload):
    line = base64.b64encode(payload) + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n"
    summaries_path(log).write_bytes(summaries_path(log).read_bytes() + line)
    before = files_of(log.parent)
    with pytest.raises(JournalCorrupt, match="summaries file's line 4"):
        Journal(log)
    assert files_of(log.parent) == before


def test_a_summaries_file_without_its_turn_file_is_damage(log):
    log.unlink()
    (log.parent / "conversation.log.facts").unlink(missing_ok=True)
    with pytest.raises(JournalCorrupt, match="summaries file without its turn file"):
        Journal(log)
    assert not log.exists()


def test_errors_and_inspect_never_show_summary_text(log, capsys):
    assert cli_main(["inspect", str(log)]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out and "s12" not in out
    assert f"2 turns: {id_tag('one')}, {id_tag('two')}" in out
    assert "3 summaries covering 4 turns" in out


# --- salvage ---------------------------------------------------------------------------

def test_salvage_keeps_a_summary_only_if_every_turn_it_covers_was_salvaged(log, tmp_path):
    lines = log.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:-2] + (b"0" if lines[2][-2:-1] != b"0" else b"1") + b"\n"  # "three"
    log.write_bytes(b"".join(lines))
    saved = tmp_path / "saved.log"
    result = salvage(log, saved)
    assert result.summaries_kept == 1 and result.summaries_file == str(summaries_path(log))
    assert [(lost.id_tag, lost.problem) for lost in result.summaries_lost] == [
        (id_tag("s123"), "a turn it covers was not salvaged"),
        (id_tag("s34"), "a turn it covers was not salvaged")]
    with Journal(saved) as journal:
        assert journal.ids() == ("one", "two", "four")
        assert [summary.id for summary in journal.summaries()] == ["s12"]


# --- issue 45: a summary of summaries, and deletion that follows the chain ---------------

def base64_forms(secret: bytes) -> list[bytes]:
    """What ``secret`` is in any base64 text that holds it, at each of the three places it
    can start in a group of three bytes: the characters its bytes alone decide."""
    forms = []
    for before in range(3):
        encoded = base64.b64encode(b"\0" * before + secret)
        first, last = (before + 2) // 3, (before + len(secret)) // 3  # whole groups of it
        forms.append(encoded[4 * first:4 * last])
    return forms


def holding(folder, secret: str) -> set[str]:
    """The files of ``folder`` (hidden and leftover files too) that hold ``secret``, raw or
    in base64."""
    forms = [secret.encode(), *base64_forms(secret.encode())]
    return {path.name for path in folder.iterdir()
            if any(form in path.read_bytes() for form in forms)}


def test_a_rolling_summary_names_the_last_one_and_is_deleted_with_any_turn_of_the_chain(
        tmp_path):
    log = tmp_path / "conversation.log"
    early = "EARLY-TURN-SAYS-ORCHID-17"
    with Journal(log) as journal:
        journal.commit("t1", f"{early} question", "noted")
        for turn_id in ("t2", "t3", "t4"):
            journal.commit(turn_id, f"{turn_id} question", f"{turn_id} answer")
        journal.pin("code", f"{early} fact", origin="t1")
        journal.pin("other", "t4 fact", origin="t4")
        first = journal.add_summary("r1", f"{early} in r1", covers=["t1", "t2"])
        # Each rolling summary is written from the last one and the newest turn.
        second = journal.add_summary("r2", f"{early} in r2", covers=["r1", "t3"])
        third = journal.add_summary("r3", f"{early} in r3", covers=["r2", "t4"])
        apart = journal.add_summary("apart", "t4 alone", covers=["t4"])
        assert (first.covers, second.covers, third.covers) == (
            ("t1", "t2"), ("t1", "t2", "t3"), ("t1", "t2", "t3", "t4"))
        assert journal.add_summary("r2", f"{early} in r2", covers=["r1", "t3"]) == second
        assert {summary.id for summary in journal.derived_from("t1").summaries} == {
            "r1", "r2", "r3"}
        assert holding(tmp_path, early) == {log.name, f"{log.name}.facts",
                                            f"{log.name}.summaries"}
        journal.forget("t1")
        assert [summary.id for summary in journal.summaries()] == ["apart"]
        assert [fact.id for fact in journal.facts()] == ["other"]
        assert journal.summaries() == [apart]
    assert holding(tmp_path, early) == set()
    with Journal(log) as journal:  # and nothing came back on open
        assert (len(journal), [s.id for s in journal.summaries()]) == (3, ["apart"])


def test_covers_may_name_a_summary_only_if_it_is_stored(tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log) as journal:
        journal.commit("t1", "q", "a")
        journal.add_summary("r1", SECRET, covers=["t1"])
        journal.drop_summary("r1")
        with pytest.raises(TurnNotFound, match="covers 1 turn not stored") as error:
            journal.add_summary("r2", SECRET, covers=["r1", "t1"])
        assert "r1" not in str(error.value) and SECRET not in str(error.value)
        assert journal.summaries() == []
