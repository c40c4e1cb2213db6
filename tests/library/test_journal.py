"""The journal: the reference suite's cases and the article's 142-byte record."""

import base64
import hashlib
import os
import stat
import subprocess
import sys

import pytest

from ledgerlab import Journal, JournalCorrupt, JournalError, JournalFull, JournalLocked, Turn
from ledgerlab import ToolCall, ToolResult, TurnConflict, TurnIdMismatch
from ledgerlab.journal import (decode_record, encode_fact, encode_record, encode_summary,
                               encode_turn, examine, id_tag, salvage, scan)
from sentences import saying

RECORD_TWO = encode_record("two", "第二问", "第二答")


def test_the_record_of_id_two_is_142_bytes_in_the_reference_format():
    assert len(RECORD_TWO) == 142
    encoded, digest = RECORD_TWO.rstrip(b"\n").split(b" ")
    payload = base64.b64decode(encoded, validate=True)
    assert payload == '{"id":"two","question":"第二问","answer":"第二答"}'.encode()
    assert digest.decode() == hashlib.sha256(payload).hexdigest()


def test_commit_writes_one_line_and_restart_keeps_turns(log):
    with Journal(log) as journal:
        assert journal.commit("two", "第二问", "第二答") == "第二答"
        assert journal.size == 142
    assert log.read_bytes() == RECORD_TWO
    with Journal(log) as journal:
        assert journal.history() == [Turn("第二问", "第二答")]
        assert journal.find("two") == Turn("第二问", "第二答")
        assert journal.find("one") is None
        assert len(journal) == 1


def test_commit_is_idempotent_by_id(log):
    with Journal(log) as journal:
        journal.commit("a", "question", "first answer")
        size = log.stat().st_size
        assert journal.commit("a", "question", "another answer") == "first answer"
        assert log.stat().st_size == size
        assert journal.history() == [Turn("question", "first answer")]


def test_same_id_with_another_question_is_a_conflict(log):
    with Journal(log) as journal:
        journal.commit("a", "SECRET-MARKER question", "answer")
        before = log.read_bytes()
        with pytest.raises(TurnConflict) as caught:
            journal.commit("a", "SECRET-MARKER other", "answer")
        assert "SECRET" not in str(caught.value)
        assert log.read_bytes() == before


def test_history_is_a_copy_in_commit_order(log):
    with Journal(log) as journal:
        for i in range(3):
            journal.commit(f"id{i}", f"q{i}", f"a{i}")
        history = journal.history()
        history.clear()
        assert [t.question for t in journal.history()] == ["q0", "q1", "q2"]


def test_a_second_writer_in_this_process_is_refused(log):
    with Journal(log):
        with pytest.raises(JournalLocked):
            Journal(log)
    Journal(log).close()  # released on close


def test_a_second_writer_in_another_process_is_refused(log):
    code = (
        "import sys\n"
        "from ledgerlab import Journal, JournalLocked\n"
        "try:\n    Journal(sys.argv[1])\nexcept JournalLocked:\n    sys.exit(3)\n"
    )
    with Journal(log):
        assert subprocess.run([sys.executable, "-c", code, str(log)]).returncode == 3
    assert subprocess.run([sys.executable, "-c", code, str(log)]).returncode == 0


@pytest.mark.parametrize("cut", range(142))
def test_every_torn_prefix_of_the_142_byte_record_is_cut(log, cut):
    first = encode_record("one", "q", "a")
    log.write_bytes(first + RECORD_TWO[:cut])
    with Journal(log) as journal:
        assert journal.history() == [Turn("q", "a")]
    assert log.read_bytes() == first  # the torn tail was cut off


def test_a_whole_record_missing_only_its_newline_was_never_acknowledged_and_is_cut(log):
    first = encode_record("one", "q", "a")
    log.write_bytes(first + RECORD_TWO[:141])
    with Journal(log) as journal:
        assert journal.history() == [Turn("q", "a")]
        journal.commit("three", "q3", "a3")  # appends where the torn tail was
    assert log.read_bytes() == first + encode_record("three", "q3", "a3")


def test_a_corrupt_first_byte_refuses_to_open_and_changes_nothing(log):
    data = bytearray(RECORD_TWO)
    data[0] = ord("f") if data[0] != ord("f") else ord("g")
    log.write_bytes(bytes(data))
    with pytest.raises(JournalCorrupt, match=saying("line 1", 0, "corrupt")):
        Journal(log)
    assert log.read_bytes() == bytes(data)


def test_the_cap_refuses_a_commit_that_would_cross_it_and_leaves_the_file(log):
    with Journal(log, max_bytes=300) as journal:
        journal.commit("two", "第二问", "第二答")  # 142 bytes
        journal.commit("2", "第二问", "第二答")  # 140 bytes: 282 in all
        before = log.read_bytes()
        with pytest.raises(JournalFull):
            journal.commit("3", "第二问", "第二答")
        assert log.read_bytes() == before
        assert len(journal) == 2


def test_a_file_over_the_cap_is_refused_on_open(log):
    log.write_bytes(RECORD_TWO)
    with pytest.raises(JournalFull):
        Journal(log, max_bytes=141)
    Journal(log, max_bytes=142).close()


def test_the_default_cap_is_4_mib(log):
    with Journal(log) as journal:
        assert journal.max_bytes == 4 * 1024 * 1024


def test_a_new_journal_is_readable_by_its_owner_only(log):
    Journal(log).close()
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600


def test_a_closed_journal_refuses_work_and_closing_twice_is_fine(log):
    journal = Journal(log)
    journal.close()
    journal.close()
    with pytest.raises(JournalError, match="closed"):
        journal.commit("a", "q", "a")
    assert "closed" in repr(journal)


def test_repr_shows_counts_not_text(log):
    with Journal(log) as journal:
        journal.commit("a", "SECRET-MARKER", "SECRET-MARKER")
        assert "SECRET" not in repr(journal)
        assert "turns=1" in repr(journal)


def test_examine_reports_each_line(log):
    data = encode_record("one", "q", "a") + b"garbage\n" + RECORD_TWO[:10]
    lines = examine(data)
    assert [(line.torn, line.problem) for line in lines] == [
        (False, None), (False, "expected 2 fields, found 1"), (True, "torn tail")]


def test_a_journal_without_a_cap_commits(log):
    with Journal(log, max_bytes=None) as journal:
        journal.commit("one", "q", "a")
    with Journal(log) as journal:
        assert len(journal) == 1


# --- Issue 26: the turns' ids, which forget, find and pin(origin=) take -----------------------
def test_ids_are_the_turn_ids_in_commit_order_beside_history(log):
    with Journal(log) as journal:
        assert journal.ids() == ()
        for turn_id in ("b", "a", "c"):
            journal.commit(turn_id, f"q {turn_id}", "x")
        journal.commit("a", "q a", "again")  # idempotent: no new id, no new place
        assert journal.ids() == ("b", "a", "c")
        assert [journal.find(turn_id) for turn_id in journal.ids()] == journal.history()
        journal.forget("a")
        assert journal.ids() == ("b", "c")
        journal.commit("a", "q a", "x")  # committed again: the newest now
        journal.retain(last=2)
        assert journal.ids() == ("c", "a")
    with Journal(log) as journal:
        assert journal.ids() == ("c", "a")  # the file's order, after reopening
        assert [line.record.id for line in examine(log.read_bytes())] == list(journal.ids())


def test_ids_is_a_copy_and_a_closed_journal_refuses_it(log):
    journal = Journal(log)
    journal.commit("one", "q", "a")
    ids = journal.ids()
    assert isinstance(ids, tuple)
    journal.commit("two", "q", "a")
    assert ids == ("one",)
    journal.close()
    with pytest.raises(JournalError, match="closed"):
        journal.ids()


# --- Issue 44: turns carry their id; commit takes a Turn; wrong types name the argument -------
TOOL_STEPS = (ToolCall("c1", "lookup", "{}"), ToolResult("c1", "found"))


def test_turns_read_from_a_journal_carry_their_id(log):
    with Journal(log) as journal:
        journal.commit("one", "q1", "a1")
        journal.commit("two", "q2", "a2", steps=TOOL_STEPS)
        # As committed, and as read back after reopening, from history, find and the lines.
        assert [turn.id for turn in journal.history()] == ["one", "two"]
    with Journal(log) as journal:
        assert [turn.id for turn in journal.history()] == list(journal.ids()) == ["one", "two"]
        assert journal.find("two").id == "two" and journal.find("two").steps == TOOL_STEPS
        journal.forget("one")  # a rewrite reads the kept lines back
        kept = journal.history()
    assert [turn.id for turn in kept] == ["two"]
    assert [line.record.turn.id for line in examine(log.read_bytes())] == ["two"]
    assert kept == [Turn("q2", "a2", TOOL_STEPS)]  # the id is not part of a turn's value


def test_commit_takes_a_turn(log):
    by_hand = Turn("q", "a", TOOL_STEPS)
    with Journal(log) as journal:
        assert journal.commit("one", by_hand) == "a"
        assert journal.find("one").id == "one" and by_hand.id is None  # given its id, a copy
        read = journal.find("one")
        assert journal.commit("one", read) == "a"  # its own id: idempotent, nothing written
        size = journal.size
        assert journal.commit("one", by_hand) == "a" and journal.size == size
        with pytest.raises(TurnConflict):
            journal.commit("one", Turn("other", "a"))
    # The same line as the pieces give: a Turn is only another way to pass them.
    assert log.read_bytes() == encode_record("one", "q", "a", TOOL_STEPS)


def test_a_turn_committed_under_another_id_is_refused(log):
    with Journal(log) as journal:
        journal.commit("SECRET-ID", "q", "a")
        read = journal.find("SECRET-ID")
        before = log.read_bytes()
        with pytest.raises(TurnIdMismatch) as raised:
            journal.commit("copy", read)
        assert isinstance(raised.value, ValueError) and isinstance(raised.value, JournalError)
        assert "SECRET" not in str(raised.value) and id_tag("SECRET-ID") in str(raised.value)
        assert log.read_bytes() == before and journal.ids() == ("SECRET-ID",)


@pytest.mark.parametrize("args, kwargs, named", [
    ((123, "q", "a"), {}, "turn_id"),
    ((["one"], Turn("q", "a")), {}, "turn_id"),
    (("one", [Turn("q", "a")]), {}, "question"),  # a list where a Turn belongs
    (("one", ["q"], "a"), {}, "question"),
    (("one", "q", b"a"), {}, "answer"),
    (("one", "q"), {}, "answer"),
    (("one", Turn("q", "a"), "a"), {}, "not both"),
    (("one", Turn("q", "a")), {"steps": TOOL_STEPS}, "not both"),
])
def test_a_wrong_type_in_commit_is_a_type_error_naming_the_argument(log, args, kwargs, named):
    with Journal(log) as journal:
        with pytest.raises(TypeError, match=named):
            journal.commit(*args, **kwargs)
        assert len(journal) == 0
    assert log.read_bytes() == b""


@pytest.mark.parametrize("call, named", [
    (lambda journal: journal.forget(7), "turn_id"),
    (lambda journal: journal.find(None), "turn_id"),
    (lambda journal: journal.derived_from(b"one"), "turn_id"),
    (lambda journal: journal.pin(1, "text", origin="one"), "fact_id"),
    (lambda journal: journal.pin("f", None, origin="one"), "text"),
    (lambda journal: journal.pin("f", "text", origin=["one"]), "origin"),
    (lambda journal: journal.unpin(1.5), "fact_id"),
    (lambda journal: journal.add_summary(("s",), "text", covers=["one"]), "summary_id"),
    (lambda journal: journal.add_summary("s", 3, covers=["one"]), "text"),
    (lambda journal: journal.add_summary("s", "text", covers="one"), "covers"),
    (lambda journal: journal.drop_summary(None), "summary_id"),
    (lambda journal: journal.retain(last="1"), "last"),
])
def test_a_wrong_type_in_a_journal_method_is_a_type_error_naming_it(log, call, named):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        before = log.read_bytes()
        with pytest.raises(TypeError, match=f"^{named} must be"):
            call(journal)
        assert journal.history() == [Turn("q", "a")] and log.read_bytes() == before


@pytest.mark.parametrize("call, named", [
    (lambda log: Journal(3), "path"),
    (lambda log: Journal(os.fsencode(log)), "path"),
    (lambda log: Journal(log, create="no"), "create"),
    (lambda log: salvage(None, log), "source"),
    (lambda log: salvage(log, 5), "destination"),
    (lambda log: examine("text"), "data"),
    (lambda log: scan(b"", "turns"), "kind"),
    (lambda log: decode_record("line"), "line"),
    (lambda log: encode_record(1, "q", "a"), "turn_id"),
    (lambda log: encode_record("one", "q", None), "answer"),
    (lambda log: encode_turn("one", ("q", "a")), "turn"),
    (lambda log: encode_fact("fact"), "fact"),
    (lambda log: encode_summary(["s"]), "summary"),
])
def test_a_wrong_type_in_a_journal_function_is_a_type_error_naming_it(log, call, named):
    with pytest.raises(TypeError, match=f"^{named} must be"):
        call(log)
    assert not log.exists()
