"""Issue 11: the torn-tail rule, hostile payloads, rewrite leftovers, typed OS errors."""

import base64
import errno
import hashlib
import os
import subprocess
import sys

import pytest

from ledgerlab import Journal, JournalCorrupt, JournalError, Turn
from ledgerlab import journal as journal_module
from ledgerlab.journal import encode_record, examine


def line_for(payload: bytes) -> bytes:
    """A journal line with a valid checksum around any payload."""
    return base64.b64encode(payload) + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n"


# Two journals; the second's lines end their base64 with each padding: none, one or two '='.
JOURNALS = [
    [encode_record("one", "q", "a"), encode_record("two", "第二问", "第二答")],
    [encode_record(f"id{n}", "接🙂", "a" * n) for n in range(3)],
]


@pytest.fixture
def log(tmp_path):
    return tmp_path / "conversation.log"


# --- 1. The torn-tail rule ------------------------------------------------------------------------
@pytest.mark.parametrize("zeros", [0, 1, 8, 100])
@pytest.mark.parametrize("lines", JOURNALS, ids=["two", "padding"])
def test_every_prefix_opens_to_the_lines_before_its_last_newline(log, lines, zeros, monkeypatch):
    # That the cut is synced is tested in test_journal_faults; here only what is cut.
    synced = []
    monkeypatch.setattr(journal_module.os, "fsync", synced.append)
    data = b"".join(lines)
    for cut in range(len(data) + 1):
        log.write_bytes(data[:cut] + b"\0" * zeros)
        whole = data[:data.rfind(b"\n", 0, cut) + 1]
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


def tampered_tails():
    """Bytes after the last newline that no cut-short append can write."""
    line = encode_record("two", "第二问", "第二答")
    encoded, digest = line[:-1].split(b" ")
    wrong_digest = digest[:-1] + (b"0" if digest[-1:] != b"0" else b"1")
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    sibling = alphabet[alphabet.index(encoded[-2]) ^ 1:][:1]  # same value but padding bits
    loose_bits = encoded[:-2] + sibling + b"="
    return {
        "newline replaced by x": line[:-1] + b"x",
        "newline replaced by a space": line[:-1] + b" ",
        "newline replaced by CR, then NULs": line[:-1] + b"\r" + b"\0" * 8,
        "full-length checksum mismatch": encoded + b" " + wrong_digest,
        "checksum mismatch, then NULs": encoded + b" " + wrong_digest + b"\0" * 8,
        "checksum prefix not the payload's": encoded + b" " + wrong_digest[:10].replace(
            digest[:1], b"f" if digest[:1] != b"f" else b"e", 1),
        "padding inside base64": b"eyJpZCI6I==AAAA=",
        "non-canonical padding bits": loose_bits,
        "non-canonical padding bits with digest": loose_bits + b" " + digest,
        "a NUL inside the tail": line[:20] + b"\0" + line[21:40],
        "a line that is not a journal's": b"hello",
        "base64 of a non-record payload": line_for(b'{"id":"a"}')[:-1],
    }


@pytest.mark.parametrize("name", sorted(tampered_tails()))
def test_a_tail_no_append_can_write_is_refused_and_the_file_unchanged(log, name):
    data = encode_record("one", "q", "a") + tampered_tails()[name]
    log.write_bytes(data)
    with pytest.raises(JournalCorrupt, match="line 2 .* not a torn record"):
        Journal(log)
    assert log.read_bytes() == data


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


# --- 3. A file named <path>.rewrite belongs to whoever holds it -------------------------------------
def test_opening_a_journal_leaves_a_live_neighbour_named_rewrite_alone(tmp_path):
    neighbour = Journal(tmp_path / "notes.rewrite")
    neighbour.commit("k", "q", "a")
    with Journal(tmp_path / "notes") as journal:
        journal.commit("mine", "q", "a")
        before = (tmp_path / "notes").read_bytes()
        with pytest.raises(JournalError, match="not a leftover .* nothing changed"):
            journal.forget("mine")  # the rewrite would need the neighbour's name
        assert len(journal) == 1 and (tmp_path / "notes").read_bytes() == before
    neighbour.commit("k2", "q2", "a2")
    neighbour.close()
    with Journal(tmp_path / "notes.rewrite") as reopened:
        assert len(reopened) == 2


def test_a_closed_neighbour_with_other_turns_is_not_taken_for_a_leftover(tmp_path):
    with Journal(tmp_path / "notes.rewrite") as neighbour:
        neighbour.commit("theirs", "q", "a")
    neighbour_bytes = (tmp_path / "notes.rewrite").read_bytes()
    with Journal(tmp_path / "notes") as journal:
        journal.commit("mine", "q", "a")
        with pytest.raises(JournalError, match="not a leftover"):
            journal.forget("mine")
    Journal(tmp_path / "notes").close()
    assert (tmp_path / "notes.rewrite").read_bytes() == neighbour_bytes


def test_a_neighbour_held_by_another_process_is_left_alone(tmp_path):
    code = ("import sys\nfrom ledgerlab import Journal\n"
            "j = Journal(sys.argv[1]); j.commit('k', 'q', 'a'); print('ready', flush=True)\n"
            "sys.stdin.readline(); j.commit('k2', 'q2', 'a2'); j.close()\n")
    neighbour = tmp_path / "notes.rewrite"
    child = subprocess.Popen([sys.executable, "-c", code, str(neighbour)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        neighbour.write_bytes(neighbour.read_bytes())  # its lines are ours too: only the lock tells
        with Journal(tmp_path / "notes") as journal:
            journal.commit("k", "q", "a")
            with pytest.raises(JournalError, match="not a leftover"):
                journal.forget("k")
            assert len(journal) == 1
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
    with Journal(neighbour) as reopened:
        assert len(reopened) == 2


def test_a_leftover_of_a_killed_rewrite_is_removed_on_open(log):
    lines = JOURNALS[1]
    log.write_bytes(b"".join(lines))
    leftover = log.with_name(log.name + ".rewrite")
    leftover.write_bytes(lines[0] + lines[2][:30])  # kept lines, the last cut short
    with Journal(log) as journal:
        assert len(journal) == 3
    assert not leftover.exists()


def test_a_symlink_or_directory_named_rewrite_is_left_alone_and_refuses_the_rewrite(log):
    log.write_bytes(b"".join(JOURNALS[0]))
    before = log.read_bytes()
    leftover = log.with_name(log.name + ".rewrite")
    for make in (lambda: leftover.mkdir(), lambda: leftover.symlink_to(log.name)):
        make()
        with Journal(log) as journal:
            with pytest.raises(JournalError, match="nothing changed"):
                journal.forget("one")
            assert len(journal) == 2
        assert log.read_bytes() == before and os.path.lexists(leftover)
        leftover.rmdir() if leftover.is_dir() and not leftover.is_symlink() else leftover.unlink()


# --- 6. Raw OSErrors become JournalErrors that say what they left ---------------------------------
def test_a_directory_that_cannot_be_synced_is_a_journal_error_that_creates_nothing(
        log, monkeypatch):
    real_open = os.open

    def unreadable_directory(path, flags, *args):
        if os.path.isdir(path):  # what a directory without read permission gives
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(journal_module.os, "open", unreadable_directory)
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
