"""The journal under torn tails, changed bytes, rivals, threads, bad input and failed fsyncs."""

import errno
import logging
import os
import stat
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledgerlab import (
    BudgetError,
    InvalidText,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalLocked,
    Turn,
    TurnConflict,
    TurnNotFound,
    select,
)
from ledgerlab import journal as journal_module
from ledgerlab.cli import main as cli_main
from ledgerlab.journal import encode_record
from sentences import saying
from tiers import examples

MARKER = "PRIVATE-MARKER-7f3a"


def records(count):
    return [encode_record(f"id{i}", f"question {i} \"é\"", f"answer {i}\n接🙂" * (i % 3))
            for i in range(count)]


# --- Torn tails ---------------------------------------------------------------------
@pytest.mark.slow  # opens the journal once per byte offset of 20 records
def test_truncating_20_records_at_every_offset_keeps_the_complete_ones(log):
    lines = records(20)
    data = b"".join(lines)
    ends = [sum(len(line) for line in lines[:i]) for i in range(21)]
    for cut in range(len(data) + 1):
        log.write_bytes(data[:cut])
        # A record counts once its newline is there: without it, it was never acknowledged.
        kept = max(i for i, end in enumerate(ends) if end <= cut)
        with Journal(log) as journal:
            assert len(journal) == kept, cut
        assert log.read_bytes() == data[:ends[kept]], cut


@pytest.mark.parametrize("zeros", [1, 7, 142, 4096])
def test_a_tail_of_nul_bytes_is_a_torn_tail(log, zeros):
    good = b"".join(records(3))
    log.write_bytes(good + b"\0" * zeros)
    with Journal(log) as journal:
        assert len(journal) == 3
    assert log.read_bytes() == good


def test_a_partial_record_padded_with_nuls_is_a_torn_tail(log):
    lines = records(3)
    log.write_bytes(lines[0] + lines[1] + lines[2][:50] + b"\0" * 100)
    with Journal(log) as journal:
        assert len(journal) == 2


def test_the_cut_is_synced_and_a_second_reopen_changes_nothing(log, monkeypatch):
    good = b"".join(records(2))
    log.write_bytes(good + records(3)[2][:40])
    calls = []
    real_ftruncate, real_fsync = os.ftruncate, os.fsync
    monkeypatch.setattr(os, "ftruncate",
                        lambda fd, size: (calls.append(("ftruncate", size)),
                                          real_ftruncate(fd, size))[1])
    monkeypatch.setattr(os, "fsync",
                        lambda fd: (calls.append(("fsync", stat.S_ISREG(os.fstat(fd).st_mode))),
                                    real_fsync(fd))[1])
    Journal(log).close()
    assert calls == [("ftruncate", len(good)), ("fsync", True)]
    calls.clear()
    Journal(log).close()
    assert calls == [] and log.read_bytes() == good


# --- Every changed byte is caught ----------------------------------------------------
def replacements(byte):
    """Values that a bit flip, a case change or a stray separator would leave."""
    candidates = {byte ^ 0x01, byte ^ 0x20, byte ^ 0x80, 0x00, ord("\n"), ord(" "), ord("=")}
    return sorted(candidates - {byte})


@pytest.mark.slow  # opens the journal once per replaced byte of every record
def test_replacing_any_byte_of_any_record_refuses_to_open(log):
    lines = records(3)
    data = b"".join(lines)
    checked = 0
    for offset in range(len(data)):
        for value in replacements(data[offset]):
            if (offset, value) == (len(data) - 1, 0):
                continue  # the final newline zeroed: what a power loss leaves, a torn tail
            changed = bytearray(data)
            changed[offset] = value
            log.write_bytes(bytes(changed))
            with pytest.raises(JournalCorrupt):
                Journal(log).close()
            assert log.read_bytes() == bytes(changed)  # refused without touching the file
            checked += 1
    assert checked > 6 * len(data)


@settings(max_examples=examples(200), deadline=None)
@given(position=st.integers(0, 10_000), value=st.integers(0, 255))
def test_any_single_byte_change_is_refused(tmp_path_factory, position, value):
    data = b"".join(records(3))
    offset = position % len(data)
    if data[offset] == value or (offset, value) == (len(data) - 1, 0):
        return  # unchanged, or the final newline zeroed (a torn tail)
    log = tmp_path_factory.mktemp("j") / "c.log"
    changed = bytearray(data)
    changed[offset] = value
    log.write_bytes(bytes(changed))
    with pytest.raises(JournalCorrupt):
        Journal(log)


def test_base64_padding_bits_and_hex_case_are_caught(log):
    line = encode_record("two", "第二问", "第二答")
    encoded, digest = line.rstrip(b"\n").split(b" ")
    assert encoded.endswith(b"=")
    # The character before '=' carries padding bits that b64decode ignores.
    last = encoded[-2:-1]
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    sibling = alphabet[alphabet.index(last) ^ 1:][:1]
    tampered = encoded[:-2] + sibling + b"=" + b" " + digest + b"\n"
    log.write_bytes(tampered)
    with pytest.raises(JournalCorrupt, match="not canonical"):
        Journal(log)
    log.write_bytes(encoded + b" " + digest.upper() + b"\n")
    with pytest.raises(JournalCorrupt, match="lowercase hex"):
        Journal(log)


def test_a_duplicated_line_is_refused(log):
    lines = records(3)
    log.write_bytes(lines[0] + lines[1] + lines[1] + lines[2])
    with pytest.raises(JournalCorrupt, match="line 3 .* duplicate id"):
        Journal(log)


def test_deleting_a_newline_or_part_of_a_line_is_refused(log):
    data = b"".join(records(3))
    first_newline = data.index(b"\n")
    for start, stop in [(first_newline, first_newline + 1), (10, 11), (10, 60),
                        (first_newline - 5, first_newline + 5), (len(data) - 2, len(data) - 1)]:
        log.write_bytes(data[:start] + data[stop:])
        with pytest.raises(JournalCorrupt):
            Journal(log)


def test_a_changed_final_newline_is_corruption_not_a_torn_tail(log):
    data = b"".join(records(2))
    for value in (b"x", b" ", b"0", b"=", b"\r"):  # a NUL there is a torn tail: see recovery
        log.write_bytes(data[:-1] + value)
        with pytest.raises(JournalCorrupt, match="newline was overwritten"):
            Journal(log)
        assert log.read_bytes() == data[:-1] + value


# --- One writer ------------------------------------------------------------------------
def test_a_second_journal_from_another_thread_is_refused(log):
    errors = []
    with Journal(log):
        thread = threading.Thread(target=lambda: errors.append(_try_open(log)))
        thread.start()
        thread.join()
    assert errors == ["locked"]


def _try_open(path):
    try:
        Journal(path).close()
        return "opened"
    except JournalLocked:
        return "locked"


def test_closing_an_unrelated_descriptor_keeps_the_lock(log):
    with Journal(log) as journal:
        with open(log, "rb") as other:  # lockf would drop the lock here; flock does not
            other.read()
        assert _try_open(log) == "locked"
        code = "import sys; from ledgerlab import Journal; Journal(sys.argv[1])"
        result = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True)
        assert b"JournalLocked" in result.stderr
        journal.commit("still", "mine", "yes")
    assert _try_open(log) == "opened"


# --- Threads --------------------------------------------------------------------------------
def test_concurrent_commits_from_threads_lose_and_interleave_nothing(log):
    threads, per_thread = 8, 40
    with Journal(log) as journal:
        def work(t):
            for i in range(per_thread):
                journal.commit(f"{t}-{i}", f"q{t}-{i}", f"a{t}-{i}" * (i % 5))
        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert len(journal) == threads * per_thread
    with Journal(log) as journal:  # every line parsed back: nothing interleaved
        assert len(journal) == threads * per_thread
        for t in range(threads):
            ids = [i for i in range(per_thread) if journal.find(f"{t}-{i}") is not None]
            assert ids == list(range(per_thread))


# --- Bad input: a typed error, nothing changed on disk ----------------------------------------
@pytest.mark.parametrize("field", [0, 1, 2])
@pytest.mark.parametrize("bad", [None, b"bytes", 7, ["list"], "lone \ud800 surrogate"])
def test_bad_commit_fields_are_refused_and_the_file_is_unchanged(log, field, bad):
    with Journal(log) as journal:
        journal.commit("a", "q", "a")
        before = log.read_bytes()
        args = ["id", "question", "answer"]
        args[field] = bad
        with pytest.raises((TypeError, ValueError)):
            journal.commit(*args)
        assert log.read_bytes() == before and len(journal) == 1


def test_an_empty_id_is_refused(log):
    with Journal(log) as journal:
        with pytest.raises(ValueError, match="empty"):
            journal.commit("", "q", "a")
    assert log.read_bytes() == b""


@pytest.mark.parametrize("budget", [0, -5, True, 2.5, "300"])
def test_bad_budgets_are_refused(budget):
    with pytest.raises((TypeError, ValueError)):
        select("s", [Turn("q", "a")], "c", budget)


@pytest.mark.parametrize("max_bytes", [0, -1, True, 1.5, "4MiB", b"1"])
def test_bad_caps_are_refused_before_touching_the_disk(log, max_bytes):
    with pytest.raises((TypeError, ValueError)):
        Journal(log, max_bytes=max_bytes)
    assert not log.exists()


@pytest.mark.parametrize("content", [b"hello world\n", b"\x89PNG\r\n\x1a\n\0\0",
                                     b'{"id":"x"}\n', "# notes\n".encode()])
def test_a_file_that_is_not_a_journal_is_refused_unchanged(log, content):
    log.write_bytes(content)
    with pytest.raises(JournalCorrupt):
        Journal(log)
    assert log.read_bytes() == content


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(JournalError, match="cannot open journal"):
        Journal(tmp_path)


def test_a_missing_parent_directory_is_refused(tmp_path):
    with pytest.raises(JournalError):
        Journal(tmp_path / "missing" / "c.log")
    assert not (tmp_path / "missing").exists()


def test_a_journal_over_the_cap_is_refused_unchanged(log):
    data = b"".join(records(5))
    log.write_bytes(data)
    with pytest.raises(JournalFull):
        Journal(log, max_bytes=len(data) - 1)
    assert log.read_bytes() == data


# --- Durability details ---------------------------------------------------------------------------
def test_creating_a_journal_fsyncs_its_directory(log, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync",
                        lambda fd: (synced.append(os.fstat(fd).st_mode), real_fsync(fd))[1])
    Journal(log).close()
    assert any(stat.S_ISDIR(mode) for mode in synced)
    synced.clear()
    Journal(log).close()  # an existing journal: nothing to sync
    assert synced == []


def test_a_failed_fsync_is_reported_never_retried_and_not_acknowledged(log, monkeypatch):
    journal = Journal(log)
    journal.commit("a", "q", "a")
    calls = []

    def failing_fsync(fd):
        calls.append(fd)
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(JournalError, match="not acknowledged"):
        journal.commit("b", MARKER, MARKER)
    assert len(calls) == 1  # not retried
    with pytest.raises(JournalError, match="closed"):
        journal.commit("c", "q", "a")  # the journal closed itself
    monkeypatch.undo()
    with Journal(log) as reopened:  # the lock was released; the file re-read
        assert reopened.find("a") == Turn("q", "a")


# --- Privacy --------------------------------------------------------------------------------------
def test_no_error_repr_log_or_cli_output_shows_conversation_text(log, tmp_path, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    messages = []

    def expect(error_type, action):
        with pytest.raises(error_type) as caught:
            action()
        messages.append(str(caught.value))
        messages.append(repr(caught.value))

    journal = Journal(log, max_bytes=400)
    journal.commit("m", MARKER, MARKER)
    expect(TurnConflict, lambda: journal.commit("m", MARKER + "!", MARKER))
    expect(JournalFull, lambda: journal.commit("big", MARKER * 20, MARKER))
    expect(InvalidText, lambda: journal.commit("x", MARKER + "\ud800", MARKER))
    expect(InvalidText, lambda: Turn(MARKER + "\udfff", MARKER))
    expect(BudgetError, lambda: select(MARKER * 5, journal.history(), MARKER, 10))
    messages += [repr(journal), repr(journal.history()), repr(select(MARKER, journal.history(),
                                                                    MARKER, 10_000))]
    expect(JournalLocked, lambda: Journal(log))
    expect(TurnNotFound, lambda: journal.forget(MARKER))
    expect(TypeError, lambda: journal.retain(last=MARKER))
    journal.close()

    data = bytearray(log.read_bytes())
    data[3] ^= 1
    corrupt = tmp_path / "corrupt.log"
    corrupt.write_bytes(bytes(data) + encode_record("z", MARKER, MARKER)[:30])
    expect(JournalCorrupt, lambda: Journal(corrupt))
    cli_main(["inspect", str(log)])
    cli_main(["inspect", str(corrupt)])
    out, err = capsys.readouterr()
    messages += [out, err, caplog.text]
    assert all(MARKER not in message for message in messages)
    with Journal(log) as reopened:  # the marker really was stored
        assert reopened.find("m") == Turn(MARKER, MARKER)


def test_journal_files_are_created_owner_only(log):
    Journal(log).close()
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_a_failed_write_is_reported_and_not_acknowledged(log, monkeypatch):
    journal = Journal(log)
    journal.commit("a", "q", "a")

    def failing_write(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", failing_write)
    with pytest.raises(JournalError, match="not acknowledged: No space left"):
        journal.commit("b", "q", "a")
    monkeypatch.undo()
    with Journal(log) as reopened:
        assert reopened.history() == [Turn("q", "a")]


def test_a_device_or_other_non_regular_file_is_refused():
    with pytest.raises(JournalError, match="not a regular file"):
        Journal("/dev/zero")


def test_create_false_refuses_a_missing_journal(log):
    with pytest.raises(JournalError, match="no journal at"):
        Journal(log, create=False)
    assert not log.exists()


def test_windows_line_endings_are_named_in_the_error(log):
    log.write_bytes(encode_record("a", "q", "a").replace(b"\n", b"\r\n"))
    with pytest.raises(JournalCorrupt, match="Windows line endings"):
        Journal(log)


def test_records_and_line_statuses_do_not_show_ids_or_text():
    line = journal_module.examine(encode_record(MARKER, MARKER, MARKER))[0]
    assert MARKER not in repr(line) and MARKER not in repr(line.record)
    assert journal_module.id_tag(MARKER) in repr(line.record)


def test_a_lock_that_fails_at_run_time_is_a_journal_error_that_creates_nothing(log, monkeypatch):
    # flock failing with ENOLCK, as on NFS mounted nolock: portalocker's LockException.
    import portalocker.portalocker as locker

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(locker, "LOCKER", no_locks)
    with pytest.raises(JournalError, match=saying("lock", "No locks available",
                                                                 "nothing")):
        Journal(log)
    assert not log.exists()
    log.write_bytes(encode_record("one", "q", "a"))
    with pytest.raises(JournalError, match="cannot lock"):
        Journal(log)
    assert log.read_bytes() == encode_record("one", "q", "a")  # an existing journal is kept
