"""The journal's rewrites and names: a killed forget, foreign temp names, long journal names.

10. A forget killed just after its rename must not leave the forgotten text in the old
    file: the next open overwrites it. The kill is a real SIGKILL, at the rename, in a
    child process; the parent keeps a descriptor on each old file to read what it holds.
11. A file at a rewrite's temp name that is not ours (another journal, a directory,
    anything) must not make forget delete half of what it was asked to: a rewrite's
    names are fresh (O_EXCL, random), so such a file is neither needed nor touched.
12. Every name Journal accepts supports every operation; a name too long for its
    facts file is refused at open, with its length and the limit.
"""

import os
import signal
import subprocess
import sys

import pytest

from ledgerlab import Journal, JournalError
from ledgerlab.cli import main as cli_main
from ledgerlab.journal import encode_fact, encode_record, files
from ledgerlab import Fact

from histories import SECRET, commit_three_turns
from sentences import saying
FACT = "PRIVATE-FACT pinned from it"

pytestmark = pytest.mark.skipif(os.name == "nt", reason="SIGKILL and hard links are POSIX")


@pytest.fixture
def log(log):
    path = commit_three_turns(log)
    with Journal(path) as journal:
        journal.pin("f-secret", FACT, origin="secret")
        journal.pin("f-one", "a fact of the first turn", origin="one")
    return path


def facts_of(log):
    return log.with_name(log.name + files.FACTS_SUFFIX)


def directory_bytes(folder):
    return b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())


def secret_bytes():
    """The forgotten turn's and fact's lines, and their text: none may stay on disk."""
    return [encode_record("secret", SECRET, SECRET + " answer"),
            encode_fact(Fact("f-secret", FACT, "secret")), SECRET.encode(), FACT.encode()]


# A child that forgets "secret" and is SIGKILLed at its n-th os.replace: before the
# rename takes effect ("before") or just after it ("after"). forget renames the facts
# file first (1), then the turn file (2).
KILLED_FORGET = r"""
import os, signal, sys
from ledgerlab import Journal
when, nth = sys.argv[2], int(sys.argv[3])
real_replace, calls = os.replace, []
def replace(source, destination):
    calls.append(destination)
    if len(calls) == nth and when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(source, destination)
    if len(calls) == nth:
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
Journal(sys.argv[1]).forget("secret")
"""


def kill_forget(log, when, nth):
    result = subprocess.run([sys.executable, "-c", KILLED_FORGET, str(log), when, str(nth)],
                            capture_output=True, text=True)
    assert result.returncode == -signal.SIGKILL, result.stderr


@pytest.mark.parametrize("nth", [1, 2], ids=["facts-rename", "turns-rename"])
def test_a_forget_killed_just_after_its_rename_leaves_no_forgotten_text(log, nth):
    with open(log, "rb") as old_turns, open(facts_of(log), "rb") as old_facts:
        kill_forget(log, "after", nth)
        with Journal(log) as journal:  # the open finishes the job
            assert [fact.id for fact in journal.facts()] == ["f-one"]
            if nth == 1:  # killed between the two rewrites: forgetting again completes it
                assert journal.find("secret") is not None
                journal.forget("secret")
            assert journal.ids() == ("one", "three")
        held = old_turns.read() + old_facts.read()
    for text in secret_bytes():
        assert text not in held, "an old file still holds the forgotten text"
        assert text not in directory_bytes(log.parent)
    assert sorted(p.name for p in log.parent.iterdir()) == [log.name, facts_of(log).name]


@pytest.mark.parametrize("nth", [1, 2], ids=["facts-rename", "turns-rename"])
def test_a_forget_killed_just_before_its_rename_changes_that_file_not_at_all(log, nth):
    kill_forget(log, "before", nth)
    with Journal(log) as journal:  # the old file's second name is gone, so forget works
        assert len(journal) == 3
        assert len(journal.facts()) == (1 if nth == 2 else 2)
        assert os.stat(log).st_nlink == 1 and os.stat(facts_of(log)).st_nlink == 1
        journal.forget("secret")
    assert sorted(p.name for p in log.parent.iterdir()) == [log.name, facts_of(log).name]
    for text in secret_bytes():
        assert text not in directory_bytes(log.parent)


def old_name(log, suffix=files.REWRITE_SUFFIX):
    """Where a rewrite keeps the replaced file until it is zeros (16 hex digits of ours)."""
    return log.with_name(os.path.basename(files.rewrite_path(str(log), suffix))
                         + ".0123456789abcdef.old")


@pytest.mark.parametrize("zeros", [0, 10, None], ids=["untouched", "cut-inside-a-line", "all"])
def test_an_old_file_left_by_a_killed_rewrite_is_zeroed_then_removed_on_open(log, zeros):
    # What a kill leaves after the rename: the old file, perhaps partly zeroed already.
    old = old_name(log)
    data = encode_record("gone", SECRET, "a") + encode_record("kept", "q", "a")
    zeros = len(data) if zeros is None else zeros
    data = b"\0" * zeros + data[zeros:]
    old.write_bytes(data)
    with open(old, "rb") as held:
        with Journal(log) as journal:
            assert len(journal) == 3
        assert not old.exists()
        assert held.read() == b"\0" * len(data)


def test_a_foreign_file_at_an_old_file_name_is_left_alone(log):
    old = old_name(log)
    old.write_bytes(b"someone's notes, not journal lines\n")
    with Journal(log) as journal:
        journal.forget("secret")
    assert old.read_bytes() == b"someone's notes, not journal lines\n"


# --- 11. Foreign files at the temp names -------------------------------------------------

def temp_name(log, suffix):
    return log.with_name(os.path.basename(files.rewrite_path(str(log), suffix)))


FOREIGN = {
    "another journal": lambda path: Journal(path).close() or path.write_bytes(
        encode_record("theirs", "q", "a")),
    "someone's file": lambda path: path.write_bytes(b"not written by a rewrite"),
    "a directory": lambda path: path.mkdir(),
}


@pytest.mark.parametrize("which", [files.REWRITE_SUFFIX, files.FACTS_REWRITE_SUFFIX],
                         ids=["turns-temp", "facts-temp"])
@pytest.mark.parametrize("foreign", sorted(FOREIGN))
def test_a_foreign_file_at_a_temp_name_neither_stops_forget_nor_is_touched(log, which, foreign):
    taken = temp_name(log, which)
    FOREIGN[foreign](taken)
    before = sorted(os.listdir(taken)) if taken.is_dir() else taken.read_bytes()
    with Journal(log) as journal:
        journal.forget("secret")  # the whole forget: the turn and its fact
        assert journal.ids() == ("one", "three")
        assert [fact.id for fact in journal.facts()] == ["f-one"]
    with Journal(log) as journal:
        assert journal.ids() == ("one", "three") and len(journal.facts()) == 1
    assert (sorted(os.listdir(taken)) if taken.is_dir() else taken.read_bytes()) == before
    for text in secret_bytes():
        assert text not in directory_bytes(log.parent)


def test_a_leftover_at_a_fresh_temp_name_is_still_removed_on_open(log):
    lines = log.read_bytes().splitlines(keepends=True)
    leftover = log.with_name(temp_name(log, files.REWRITE_SUFFIX).name + ".00ff00ff00ff00ff")
    leftover.write_bytes(lines[0] + lines[2][:20])  # kept lines, the last cut short
    foreign = log.with_name(leftover.name + "0")  # not a name a rewrite makes
    foreign.write_bytes(lines[0])
    with Journal(log) as journal:
        assert len(journal) == 3
    assert not leftover.exists() and foreign.read_bytes() == lines[0]


# --- 12. Long names ----------------------------------------------------------------------

def name_of(length, char="n"):
    """A journal name of ``length`` bytes (UTF-8), ending in ".log"."""
    width = len(char.encode())
    name = char * ((length - 4) // width) + "x" * ((length - 4) % width) + ".log"
    assert len(name.encode()) == length
    return name


NAME_MAX = 255  # bytes in a file name on ext4, XFS, btrfs, tmpfs
LIMIT = NAME_MAX - len(".summaries")  # the longest journal name whose files beside it fit


@pytest.fixture
def folder(tmp_path):
    if os.pathconf(tmp_path, "PC_NAME_MAX") != NAME_MAX:
        pytest.skip(f"the temp folder's file system does not take {NAME_MAX}-byte names")
    return tmp_path


@pytest.mark.parametrize("length,char", [(LIMIT, "n"), (232, "n"), (LIMIT, "é"), (240, "🙂")])
def test_every_operation_works_on_the_longest_names_journal_accepts(folder, capsys, length,
                                                                    char):
    log = folder / name_of(length, char)
    with Journal(log) as journal:
        for n in range(4):
            journal.commit(f"t{n}", f"question {n}", f"answer {n}")
        journal.pin("f1", "fact one", origin="t1")
        journal.pin("f2", "fact two", origin="t2")
        journal.add_summary("s1", "summary one", covers=["t1", "t2"])
        journal.add_summary("s2", "summary two", covers=["t2"])
        journal.add_summary("s3", "summary three", covers=["t3"])
        journal.forget("t1")
        journal.unpin("f2")
        journal.drop_summary("s3")
        assert journal.retain(last=2) == 1
        assert journal.ids() == ("t2", "t3") and journal.facts() == []
        assert [summary.id for summary in journal.summaries()] == ["s2"]
    assert cli_main(["inspect", str(log)]) == 0
    assert cli_main(["forget", str(log), "t2"]) == 0
    assert cli_main(["retain", str(log), "--last", "0"]) == 0
    capsys.readouterr()
    with Journal(log) as journal:
        assert len(journal) == 0
    assert sorted(os.listdir(folder)) == sorted([log.name, log.name + files.FACTS_SUFFIX,
                                                 log.name + files.SUMMARIES_SUFFIX])


@pytest.mark.parametrize("length", [LIMIT + 1, 255])
def test_a_name_too_long_for_its_files_is_refused_at_open(folder, length):
    log = folder / name_of(length)
    with pytest.raises(JournalError, match=saying("name", f"{length} bytes", LIMIT, "nothing",
                                                  "opened")):
        Journal(log)
    assert os.listdir(folder) == []
    log.write_bytes(encode_record("one", "q", "a"))  # made by an older version: kept as is
    with pytest.raises(JournalError, match=f"{length} bytes"):
        Journal(log)
    assert log.read_bytes() == encode_record("one", "q", "a")
