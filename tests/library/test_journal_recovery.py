"""The recovery rule (issue 23), hostile payloads, rewrite leftovers, typed OS errors."""

import base64
import errno
import hashlib
import os
import subprocess
import sys

import pytest

from ledgerlab import Journal, JournalCorrupt, JournalError, Turn
from ledgerlab.journal import files
from ledgerlab.journal import encode_record, examine
from sentences import saying


def line_for(payload: bytes) -> bytes:
    """A journal line with a valid checksum around any payload."""
    return base64.b64encode(payload) + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n"


# Two journals; the second's lines end their base64 with each padding: none, one or two '='.
JOURNALS = [
    [encode_record("one", "q", "a"), encode_record("two", "第二问", "第二答")],
    [encode_record(f"id{n}", "接🙂", "a" * n) for n in range(3)],
]


# --- 1. The recovery rule -------------------------------------------------------------------------
# A commit is acknowledged once its newline is synced, so nothing after the last newline ever
# was: it is cut on open, whatever it holds, except a verified record followed by a byte that is
# not NUL where its newline belongs (an acknowledged record whose newline was overwritten).

def punched(tail: bytes) -> bytes:
    """``tail`` with NULs punched into its middle, as when one append's pages land out of order."""
    if len(tail) < 3:
        return tail
    middle = len(tail) // 2
    return tail[:middle - 1] + b"\0\0" + tail[middle + 1:]


@pytest.mark.slow  # opens the journal once per byte offset of both journals, 16 ways
@pytest.mark.parametrize("punch", [False, True], ids=["bare", "punched"])
@pytest.mark.parametrize("zeros", [0, 1, 8, 100])
@pytest.mark.parametrize("lines", JOURNALS, ids=["two", "padding"])
def test_every_prefix_opens_to_the_lines_before_its_last_newline(log, lines, zeros, punch,
                                                                 monkeypatch):
    # That the cut is synced is tested in test_journal_faults; here only what is cut.
    synced = []
    monkeypatch.setattr(os, "fsync", synced.append)
    data = b"".join(lines)
    for cut in range(len(data) + 1):
        whole = data[:data.rfind(b"\n", 0, cut) + 1]
        tail = data[len(whole):cut]
        log.write_bytes(whole + (punched(tail) if punch else tail) + b"\0" * zeros)
        with Journal(log) as journal:
            assert len(journal) == whole.count(b"\n"), cut
        assert log.read_bytes() == whole, cut
    assert len(synced) == len(data) + 1 - (zeros == 0) * (len(lines) + 1)  # one per cut


def test_the_journals_cover_every_base64_padding():
    assert sorted(line.split(b" ")[0].count(b"=") for line in JOURNALS[1]) == [0, 1, 2]


@pytest.mark.parametrize("zeros", [0, 1, 8])
def test_a_whole_record_without_its_newline_is_cut_bare_or_followed_by_nuls(log, zeros):
    first, second = JOURNALS[0]
    log.write_bytes(first + second[:-1] + b"\0" * zeros)
    status = examine(log.read_bytes())[-1]
    assert (status.torn, status.unterminated, status.problem) == (True, True, "torn tail")
    with Journal(log) as journal:
        assert journal.history() == [Turn("q", "a")]
    assert log.read_bytes() == first


SECOND = encode_record("two", "第二问", "第二答")


def cut_tails():
    """Tails that were never acknowledged, whatever they hold: each is cut on open."""
    encoded, digest = SECOND[:-1].split(b" ")
    wrong_digest = digest[:-1] + (b"0" if digest[-1:] != b"0" else b"1")
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    sibling = alphabet[alphabet.index(encoded[-2]) ^ 1:][:1]  # same value but padding bits
    loose_bits = encoded[:-2] + sibling + b"="
    return {
        "a stale byte after an intact newline": b"x",
        "stale text": b"hello world",
        "a whole record with a wrong digest": encoded + b" " + wrong_digest,
        "a whole record with a wrong digest, then NULs": encoded + b" " + wrong_digest + b"\0" * 8,
        "a whole record with a wrong digest, then a byte": encoded + b" " + wrong_digest + b"x",
        "a checksum prefix not the payload's": encoded + b" " + wrong_digest[:10].replace(
            digest[:1], b"f" if digest[:1] != b"f" else b"e", 1),
        "padding inside base64": b"eyJpZCI6I==AAAA=",
        "non-canonical padding bits": loose_bits,
        "non-canonical padding bits with the digest": loose_bits + b" " + digest,
        "non-canonical padding bits with the digest, then a byte": loose_bits + b" " + digest + b"x",
        "a NUL inside a record's prefix": SECOND[:20] + b"\0" + SECOND[21:40],
        "NULs punched into a whole record": SECOND[:30] + b"\0" * 10 + SECOND[40:-1],
        "base64 of a non-record payload": line_for(b'{"id":"a"}')[:-1],
        "a verified record, then a NUL, then a byte": SECOND[:-1] + b"\0x",
        "a verified record with an uppercase digest, then a byte":
            encoded + b" " + digest.upper() + b"x",
    }


def refused_tails():
    """A verified record with a byte that is not NUL where its newline belongs."""
    third = encode_record("three", "q3", "a3")
    return {
        "newline replaced by x": SECOND[:-1] + b"x",
        "newline replaced by a space": SECOND[:-1] + b" ",
        "newline replaced by CR, then NULs": SECOND[:-1] + b"\r" + b"\0" * 8,
        "newline replaced by x, then a whole record": SECOND[:-1] + b"x" + third[:-1],
    }


@pytest.mark.parametrize("name", sorted(cut_tails()))
def test_a_tail_never_acknowledged_is_cut_whatever_it_holds(log, name):
    first = encode_record("one", "q", "a")
    log.write_bytes(first + cut_tails()[name])
    status = examine(log.read_bytes())[-1]
    assert (status.torn, status.problem) == (True, "torn tail")
    with Journal(log) as journal:
        assert journal.history() == [Turn("q", "a")]
    assert log.read_bytes() == first


@pytest.mark.parametrize("name", sorted(refused_tails()))
def test_a_verified_record_whose_newline_was_overwritten_is_refused_unchanged(log, name):
    data = encode_record("one", "q", "a") + refused_tails()[name]
    log.write_bytes(data)
    with pytest.raises(JournalCorrupt, match=saying("line 2", "newline", "overwritten")):
        Journal(log)
    assert log.read_bytes() == data


def test_a_tail_in_a_journal_with_no_newline_at_all_is_cut_too(log):
    log.write_bytes(b"hello")  # e.g. stale bytes exposed by the first append's crash
    with Journal(log) as journal:
        assert len(journal) == 0
    assert log.read_bytes() == b""


def test_a_torn_record_at_the_cap_is_cut_not_completed_so_the_file_opens_again(log):
    first = encode_record("one", "q", "a")
    # A whole record of the right size without its newline: the file is exactly 243 bytes.
    second = next(line for n in range(200)
                  if len(first) + len(line := encode_record("two", "q", "a" * n)) - 1 == 243)
    log.write_bytes(first + second[:-1])
    with Journal(log, max_bytes=243) as journal:
        assert len(journal) == 1 and journal.size == len(first)
    Journal(log, max_bytes=243).close()  # and it opens again
    assert log.read_bytes() == first


# --- 2. Hostile payloads with valid checksums -----------------------------------------------------
HOSTILE = {
    "deeply nested": b'{"id":"a","question":' + b"[" * 5000 + b"]" * 5000 + b',"answer":"b"}',
    "a bare array": b"[0]",
    "pairs as arrays": b'[["id","x"],["question","q"],["answer","a"]]',
    "an object as a value": b'{"id":"a","question":{"q":"x"},"answer":"b"}',
    "a number as the id": b'{"id":7,"question":"q","answer":"b"}',
    "keys out of order": b'{"question":"q","id":"a","answer":"b"}',
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_payload_with_a_valid_checksum_is_corrupt_not_a_crash(log, name):
    data = encode_record("one", "q", "a") + line_for(HOSTILE[name])
    log.write_bytes(data)
    with pytest.raises(JournalCorrupt, match="line 2"):
        Journal(log)
    assert log.read_bytes() == data


# --- 3. Only a rewrite's own hidden file is ever removed -----------------------------------------
def rewrite_file(log):
    """The hidden name a rewrite of ``log`` starts from: its new files add random hex to it,
    and older versions wrote their leftovers at this name itself."""
    return log.with_name(os.path.basename(files.rewrite_path(str(log))))


def test_the_rewrite_file_is_a_hidden_name_that_says_whose_it_is(log):
    assert rewrite_file(log).name == "." + log.name + ".ledgerlab-rewrite"


NEIGHBOURS = {
    "a closed journal holding only turns of ours": lambda log: b"".join(JOURNALS[0][:1]),
    "an empty closed journal": lambda log: b"",
    "a cp backup": lambda log: log.read_bytes(),
    "a closed journal with other turns": lambda log: encode_record("theirs", "q", "a"),
}


@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_a_file_named_path_rewrite_is_never_touched(log, name):
    log.write_bytes(b"".join(JOURNALS[0]))
    neighbour = log.parent / (log.name + ".rewrite")
    neighbour.write_bytes(NEIGHBOURS[name](log))
    before = neighbour.read_bytes()
    with Journal(log) as journal:
        journal.forget("one")  # the rewrite does not need that name
        assert len(journal) == 1
    Journal(log).close()
    assert neighbour.read_bytes() == before


def test_a_live_journal_named_path_rewrite_is_left_alone(tmp_path):
    neighbour = Journal(tmp_path / "notes.rewrite")
    neighbour.commit("k", "q", "a")
    with Journal(tmp_path / "notes") as journal:
        journal.commit("k", "q", "a")
        journal.forget("k")
    neighbour.commit("k2", "q2", "a2")
    neighbour.close()
    with Journal(tmp_path / "notes.rewrite") as reopened:
        assert len(reopened) == 2


def test_a_foreign_file_at_the_rewrite_name_is_kept_and_does_not_stop_the_rewrite(log):
    # Issue 27: a rewrite's new file has a fresh name (O_EXCL), so this one is not needed.
    with Journal(rewrite_file(log)) as other:
        other.commit("theirs", "q", "a")
    other_bytes = rewrite_file(log).read_bytes()
    with Journal(log) as journal:
        journal.commit("mine", "q", "a")
        journal.forget("mine")
        assert len(journal) == 0
    assert rewrite_file(log).read_bytes() == other_bytes


def test_a_rewrite_file_held_by_another_process_is_left_alone(log):
    code = ("import sys\nfrom ledgerlab import Journal\n"
            "j = Journal(sys.argv[1]); j.commit('k', 'q', 'a'); print('ready', flush=True)\n"
            "sys.stdin.readline(); j.commit('k2', 'q2', 'a2'); j.close()\n")
    held = rewrite_file(log)
    child = subprocess.Popen([sys.executable, "-c", code, str(held)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        with Journal(log) as journal:
            journal.commit("k", "q", "a")  # its lines are ours too: only the lock tells
            journal.forget("k")  # at a fresh name of its own (issue 27)
            assert len(journal) == 0
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
    with Journal(held) as reopened:
        assert len(reopened) == 2


def test_a_leftover_of_a_killed_rewrite_is_removed_on_open(log):
    lines = JOURNALS[1]
    log.write_bytes(b"".join(lines))
    leftover = rewrite_file(log)
    leftover.write_bytes(lines[0] + lines[2][:30])  # kept lines, the last cut short
    with Journal(log) as journal:
        assert len(journal) == 3
    assert not leftover.exists()


def test_a_symlink_or_directory_named_rewrite_is_left_alone(log):
    leftover = rewrite_file(log)
    for make in (lambda: leftover.mkdir(), lambda: leftover.symlink_to(log.name)):
        log.write_bytes(b"".join(JOURNALS[0]))
        before = log.read_bytes()
        make()
        with Journal(log) as journal:
            journal.forget("one")  # at a fresh name of its own (issue 27)
            assert len(journal) == 1
        assert log.read_bytes() == before.splitlines(keepends=True)[1]
        assert os.path.lexists(leftover)
        leftover.rmdir() if leftover.is_dir() and not leftover.is_symlink() else leftover.unlink()


# --- 6. Raw OSErrors become JournalErrors that say what they left ---------------------------------
def test_a_directory_that_cannot_be_synced_is_a_journal_error_that_creates_nothing(
        log, monkeypatch):
    real_open = os.open

    def unreadable_directory(path, flags, *args):
        if os.path.isdir(path):  # what a directory without read permission gives
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", unreadable_directory)
    with pytest.raises(JournalError, match="Permission denied.*nothing was created"):
        Journal(log)
    assert not log.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_directory_for_real(tmp_path):
    tmp_path.chmod(0o300)
    try:
        with pytest.raises(JournalError, match="nothing was created"):
            Journal(tmp_path / "c.log")
    finally:
        tmp_path.chmod(0o700)
