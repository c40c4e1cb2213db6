"""Opening and using a journal at its edges: a forked child (7), a file of a million bad lines (15), an
append whose first page never landed (16), a commit to a file that lost its name (17), a facts
file without its turn file (18), inspect of a facts path that is not a file (20)."""

import os
import subprocess
import sys

import pytest

from ledgerlab import Journal, JournalCorrupt, JournalForked, JournalLocked
from ledgerlab import JournalMoved, Turn
from ledgerlab.cli import main
from ledgerlab.journal import FACTS, encode_fact, encode_record, examine, records
from ledgerlab.journal.records import PAGE_BYTES
from ledgerlab import Fact
from sentences import saying, says

ONE, TWO = encode_record("one", "q", "a"), encode_record("two", "第二问", "第二答")


def facts_path(log):
    return log.with_name(log.name + ".facts")


LOCKED_CHILD = ("import sys\nfrom ledgerlab import Journal, JournalLocked\n"
                "try:\n    Journal(sys.argv[1])\nexcept JournalLocked:\n    sys.exit(3)\n")


def locked_elsewhere(log) -> bool:
    """Does another process find the journal locked?"""
    return subprocess.run([sys.executable, "-c", LOCKED_CHILD, str(log)]).returncode == 3


# --- 7. A Journal belongs to the process that opened it ------------------------------------------
def child_uses(journal) -> int:
    """In the forked child: try every use; the count of those not refused with JournalForked."""
    uses = [lambda: journal.commit("two", "q2", "a2"), lambda: journal.commit("one", "q", "a"),
            lambda: journal.pin("f2", "fact two", origin="one"), lambda: journal.forget("one"),
            lambda: journal.retain(last=0), lambda: journal.unpin("f1"), journal.history,
            journal.ids, journal.facts, lambda: journal.find("one")]
    allowed = 0
    for use in uses:
        try:
            use()
            allowed += 1
        except JournalForked:
            pass
        except Exception:  # tried, and failed on its own: not refused as a fork
            allowed += 1
    journal.close()  # closes only the child's copies of the descriptors
    return allowed


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_is_refused_every_use_and_changes_nothing(log):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        journal.pin("f1", "fact one", origin="one")
        before = log.read_bytes(), facts_path(log).read_bytes()
        pid = os.fork()
        if pid == 0:  # the child: never return into pytest
            code = 99
            try:
                code = min(child_uses(journal), 98)
            finally:
                os._exit(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0  # every use refused
        assert (log.read_bytes(), facts_path(log).read_bytes()) == before
        # The child's close freed nothing: the flock is the open file description's, and the
        # parent's descriptors still hold it.
        assert locked_elsewhere(log)
        journal.commit("three", "q3", "a3")
        journal.pin("f3", "fact three", origin="three")
    with Journal(log) as journal:
        assert journal.ids() == ("one", "three")
        assert [fact.id for fact in journal.facts()] == ["f1", "f3"]


def test_the_forked_error_is_a_kind_of_locked():
    assert issubclass(JournalForked, JournalLocked)


# --- 15. A file of a million bad lines costs what one costs --------------------------------------
def counting_decodes(monkeypatch) -> list:
    calls = []
    real = records.decode_record
    monkeypatch.setattr(records, "decode_record",
                        lambda line, kind=records.TURNS: (calls.append(1), real(line, kind))[1])
    return calls


@pytest.mark.parametrize("max_bytes", [4 * 1024 * 1024, None], ids=["open", "forget's open"])
def test_opening_a_file_of_newlines_looks_at_the_first_line_only(log, monkeypatch, max_bytes):
    data = ONE + b"\n" * 100_000
    log.write_bytes(data)
    calls = counting_decodes(monkeypatch)
    with pytest.raises(JournalCorrupt, match=saying("line 2", len(ONE), "corrupt")):
        Journal(log, max_bytes=max_bytes)
    assert len(calls) == 2  # the record, then the first empty line: not the 99,999 after it
    assert log.read_bytes() == data


class Discarded:
    """A stdout that keeps only the count of rows, the last one and its last 1,000 characters."""

    encoding = "utf-8"

    def __init__(self):
        self.rows, self.last, self.seen = 0, "", ""

    def write(self, text):
        self.rows += text.count("\n")
        self.last = text if text.strip() else self.last
        self.seen = (self.seen + text)[-1000:]
        return len(text)

    def flush(self):
        pass


def counting_statuses(monkeypatch) -> dict:
    """Count the line statuses alive at once (the most of them) while the patch holds."""
    alive = {"now": 0, "most": 0}

    class Counted(records.LineStatus):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            alive["now"] += 1
            alive["most"] = max(alive["most"], alive["now"])

        def __del__(self):
            alive["now"] -= 1

    monkeypatch.setattr(records, "LineStatus", Counted)
    return alive


def test_inspect_of_a_file_of_newlines_holds_no_status_per_line(log, monkeypatch):
    lines = 30_000
    log.write_bytes(b"\n" * lines)
    stdout = Discarded()
    monkeypatch.setattr(sys, "stdout", stdout)
    alive = counting_statuses(monkeypatch)
    assert main(["inspect", str(log)]) == 1
    assert alive["most"] <= 3  # a few lines' statuses at a time, not one per line
    assert stdout.last.startswith(f"0 turns, {lines} bytes, {lines} corrupt lines")
    # A header, one row for the run of lines with the same problem, the summary.
    assert stdout.rows == 3
    says(stdout.seen, f"next {lines - 1} lines", f"line {lines}", in_order=True)


def test_inspect_shows_each_run_of_one_problem_as_one_row(log, cli):
    bad = b"x\n"
    log.write_bytes(ONE + bad * 3 + TWO + b" \n" + bad + bad[:1])
    code, out, err = cli("inspect", log)
    rows = out.splitlines()
    assert code == 1 and len(rows) == 8
    assert rows[2].split()[:3] == ["2", str(len(ONE)), "2"]
    says(rows[2], "2 fields", "1", "next 2 lines", "line 4", "4 bytes", in_order=True)
    assert rows[3].split()[0] == "5" and rows[3].endswith("ok")
    says(rows[4], "checksum", "64", "hex")  # another problem
    says(rows[5], "2 fields", "1", in_order=True)
    assert "lines" not in rows[5]  # alone: no count
    assert rows[6].split()[0] == "8" and "torn tail" in rows[6]
    assert rows[7].startswith(f"2 turns, {log.stat().st_size} bytes, 5 corrupt lines, "
                              f"1 torn-tail bytes")


def test_examine_is_scan_as_a_list(log):
    data = ONE + b"\n" + TWO[:10]
    assert examine(data) == list(records.scan(data))


# --- 16. The last line's newline landed, its first page did not: a torn append -------------------
def torn_appends():
    """A last line, newline included, as a power loss can leave one append."""
    long = encode_record("long", "q" * 6000, "a" * 6000)  # a line over four pages
    first_page = PAGE_BYTES - len(ONE)  # the line starts after ONE: its first page ends here
    return {
        "only NUL up to its newline": b"\0" * 4096 + b"\n",
        "its first page NUL": b"\0" * first_page + long[first_page:],
        "its first two pages NUL": b"\0" * (first_page + PAGE_BYTES) + long[first_page + PAGE_BYTES:],
        "a single NUL then its newline": b"\0\n",
    }


@pytest.mark.parametrize("name", sorted(torn_appends()))
def test_a_last_line_that_begins_with_nul_is_a_torn_append_cut_on_open(log, name, cli):
    data = ONE + torn_appends()[name]
    log.write_bytes(data)
    status = examine(data)[-1]
    assert (status.torn, status.problem, status.offset) == (True, "torn tail", len(ONE))
    code, out, err = cli("inspect", log)
    assert code == 0, err
    says(out, "torn tail", "append", f"{len(data) - len(ONE)} bytes", "newline", in_order=True)
    with Journal(log) as journal:
        assert journal.history() == [Turn("q", "a")]
        journal.commit("two", "第二问", "第二答")
    assert log.read_bytes() == ONE + TWO


def test_a_facts_file_whose_last_line_begins_with_nul_is_cut_too(log):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        journal.pin("f1", "fact", origin="one")
    whole = facts_path(log).read_bytes()
    torn = encode_fact(Fact("f2", "other", "one"))
    facts_path(log).write_bytes(whole + b"\0" * (len(torn) - 1) + b"\n")
    assert examine(facts_path(log).read_bytes(), FACTS)[-1].torn
    with Journal(log) as journal:
        assert [fact.id for fact in journal.facts()] == ["f1"]
    assert facts_path(log).read_bytes() == whole


def refused_last_lines():
    """Damage that no single torn append explains: each still refuses to open."""
    return {
        "a NUL line before the last": ONE + b"\0" * 4096 + b"\n" + TWO,
        "a NUL-led line before a torn tail": ONE + b"\0" * 10 + TWO[10:] + TWO[:20],
        "an empty last line": ONE + b"\n",
        "a NUL inside the last line": ONE + TWO[:30] + b"\0" * 10 + TWO[40:],
        "a changed first byte of the last line": ONE + b"x" + TWO[1:],
        "the first byte of the last line zeroed": ONE + b"\0" + TWO[1:],
        "the first 30 bytes of the last line zeroed, not up to a page": ONE + b"\0" * 30 + TWO[30:],
    }


@pytest.mark.parametrize("name", sorted(refused_last_lines()))
def test_damage_that_is_not_a_torn_append_is_still_refused_unchanged(log, name):
    data = refused_last_lines()[name]
    log.write_bytes(data)
    with pytest.raises(JournalCorrupt, match=saying("line 2", len(ONE), "corrupt")):
        Journal(log)
    assert log.read_bytes() == data


# --- 17. A commit to a file that lost its name would be lost on reopen ---------------------------
def unlink(log, tmp_path):
    log.unlink()


def rename(log, tmp_path):
    log.rename(tmp_path / "moved.log")


def replace(log, tmp_path):
    (tmp_path / "other.log").write_bytes(ONE)
    os.replace(tmp_path / "other.log", log)


@pytest.mark.parametrize("move", [unlink, rename, replace])
def test_commit_to_a_journal_that_lost_its_name_is_refused_and_writes_nothing(log, tmp_path,
                                                                              move):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        handle = os.open(log, os.O_RDONLY)  # the opened file, whatever its name becomes
        try:
            move(log, tmp_path)
            named = log.read_bytes() if log.exists() else None
            with pytest.raises(JournalMoved, match="commit not acknowledged.*nothing written"):
                journal.commit("two", "q2", "a2")
            assert os.fstat(handle).st_size == len(ONE) == journal.size
            assert (log.read_bytes() if log.exists() else None) == named
        finally:
            os.close(handle)
        assert journal.ids() == ("one",)


@pytest.mark.parametrize("which", ["turn file", "facts file"])
def test_pin_when_a_file_lost_its_name_is_refused_and_writes_nothing(log, tmp_path, which):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        journal.pin("f1", "fact", origin="one")
        moved = log if which == "turn file" else facts_path(log)
        moved.rename(tmp_path / "moved")
        with pytest.raises(JournalMoved, match="pin not acknowledged"):
            journal.pin("f2", "fact two", origin="one")
        assert [fact.id for fact in journal.facts()] == ["f1"]
    assert (tmp_path / "moved").read_bytes().count(b"\n") == 1


# --- 18. A facts file without its turn file is damage, not a new journal -------------------------
@pytest.mark.parametrize("create", [True, False])
def test_a_facts_file_without_its_turn_file_refuses_and_creates_nothing(log, create):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        journal.pin("f1", "fact", origin="one")
    facts = facts_path(log).read_bytes()
    log.unlink()
    with pytest.raises(JournalCorrupt, match=saying("facts file", "turn file")):
        Journal(log, create=create)
    assert not log.exists() and facts_path(log).read_bytes() == facts
    assert sorted(os.listdir(log.parent)) == [facts_path(log).name]


# --- 20. inspect refuses what forget and retain refuse -------------------------------------------
@pytest.mark.parametrize("ids", [False, True], ids=["table", "ids"])
def test_inspect_refuses_a_facts_path_that_is_a_directory_as_forget_does(log, cli, ids):
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
    facts_path(log).mkdir()
    forget = cli("forget", log, "one")
    inspect = cli("inspect", log, *(["--ids"] if ids else []))
    assert forget[0] == 2 and forget[1] == ""
    assert inspect == (2, "", forget[2].replace("ledgerlab forget:", "ledgerlab inspect:"))
    assert inspect[2].count("\n") == 1 and "not a regular file" in inspect[2]
    assert log.read_bytes() == ONE
