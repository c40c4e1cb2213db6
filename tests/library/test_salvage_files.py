"""Salvage's files: all new files or none (8; NEW, NEW.facts and NEW.summaries), no copy
left by a killed salvage (9), a symlinked LOG followed as Journal follows it (13), a FIFO refused at once
(14); and id tags that cannot be checked against guessed ids offline (19)."""

import base64
import errno
import hashlib
import importlib
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from ledgerlab import Journal, JournalError
from ledgerlab.journal import encode_record, id_tag, salvage

# The module: ``ledgerlab.journal.salvage`` as an attribute is the function.
salvage_module = importlib.import_module("ledgerlab.journal.salvage")
SECRET = "my password is hunter2"


def damaged(line: bytes) -> bytes:
    """``line`` with one checksum digit changed."""
    return line[:-2] + (b"0" if line[-2:-1] != b"0" else b"1") + b"\n"


def make_journal(path):
    """Three turns, two facts and a summary; the second turn's line damaged, so it refuses
    to open."""
    with Journal(path) as journal:
        for turn_id in ("one", "two", "three"):
            journal.commit(turn_id, f"{SECRET} {turn_id}", f"a {turn_id}")
        journal.pin("code", SECRET, origin="one")
        journal.pin("tone", "brief", origin="three")
        journal.add_summary("recap", SECRET, covers=["one", "three"])
    first, second, third = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + damaged(second) + third)


def unnamed_files_work(folder) -> bool:
    try:
        os.close(os.open(folder, getattr(os, "O_TMPFILE", 0) | os.O_WRONLY, 0o600))
    except (OSError, ValueError):
        return False
    return getattr(os, "O_TMPFILE", 0) != 0 and os.path.isdir("/proc/self/fd")


@pytest.fixture(params=["unnamed", "hidden"])
def mode(request, tmp_path, monkeypatch):
    """How salvage writes its new files before they take their names: with no name
    (O_TMPFILE, Linux), or under a hidden name beside them (everywhere else)."""
    if request.param == "unnamed" and not unnamed_files_work(tmp_path):
        pytest.skip("no O_TMPFILE here")
    if request.param == "hidden":
        monkeypatch.setattr(salvage_module, "_TMPFILE", 0)
    return request.param


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "broken.log"
    make_journal(path)
    return path


def files_in(folder):
    return {path.name: path.read_bytes() for path in folder.iterdir()}


NEW = {"saved.log", "saved.log.facts", "saved.log.summaries"}  # what a salvage publishes
# How many links a salvage makes before the turn file's, which publishes them all: each
# derived file's name (with O_TMPFILE, its hidden name is a marker, created, not linked).
BEFORE_NEW = {"unnamed": 2, "hidden": 2}
HIDDEN = {".saved.log.ledgerlab-salvage", ".saved.log.ledgerlab-facts-salvage",
          ".saved.log.ledgerlab-summaries-salvage"}


def holding_text(folder) -> set[str]:
    """The files of ``folder`` that hold a copy of the journal's text (as its lines do)."""
    marker = base64.b64encode(SECRET.encode())[:20]  # how every line holding it starts
    return {name for name, data in files_in(folder).items()
            if SECRET.encode() in data or marker in data or b'{"id":' in data}


def check_the_copy(saved):
    with Journal(saved) as journal:
        assert [turn.answer for turn in journal.history()] == ["a one", "a three"]
        assert [fact.id for fact in journal.facts()] == ["code", "tone"]
        assert [summary.id for summary in journal.summaries()] == ["recap"]


# --- 8: NEW and NEW.facts, both or neither -------------------------------------------------

def test_a_failure_at_any_step_leaves_nothing_and_a_rerun_succeeds(broken, mode, monkeypatch):
    """ENOSPC at each open, write, fsync and link in turn, until salvage gets through."""
    folder, saved = broken.parent, broken.parent / "saved.log"
    before = files_in(folder)
    for fail_at in range(100):
        calls = []
        with monkeypatch.context() as patch:
            for name in ("open", "write", "fsync", "link"):
                def fault(*args, _real=getattr(os, name), _name=name, **kwargs):
                    calls.append(_name)
                    if len(calls) - 1 == fail_at:
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    return _real(*args, **kwargs)
                patch.setattr(os, name, fault)
            try:
                salvage(broken, saved)
            except JournalError as error:
                assert "No space left on device" in str(error) and SECRET not in str(error)
                assert files_in(folder) == before, f"call {fail_at} ({calls[-1]}) left files"
                continue
        break
    else:
        pytest.fail("salvage never got through")
    # Each call failed once; without O_TMPFILE the derived files are already hidden.
    assert fail_at == len(calls) and calls.count("link") == BEFORE_NEW[mode] + 1
    check_the_copy(saved)


@pytest.mark.parametrize("length", [233, 250])
def test_a_long_new_name_gives_both_files_or_neither(broken, mode, length):
    """233 bytes: NEW's hidden name fits, NEW.facts's did not (NEW was written alone);
    250: NEW fits, NEW.facts does not (no journal can have that name)."""
    saved = broken.parent / ("s" * length)
    before = files_in(broken.parent)
    try:
        salvage(broken, saved)
    except JournalError:
        assert files_in(broken.parent) == before
        assert length == 250
    else:
        check_the_copy(saved)


def test_a_facts_file_takes_its_name_before_the_turn_file(broken, mode, monkeypatch):
    """So a crash between the two leaves a facts file alone, which Journal reads as none
    (its hidden name, which it keeps until then, says so), never a journal that opens
    without its facts."""
    order = []
    link = os.link

    def recording(source, destination, **kwargs):
        order.append(os.path.basename(destination))
        return link(source, destination, **kwargs)

    monkeypatch.setattr(os, "link", recording)
    salvage(broken, broken.parent / "saved.log")
    assert [name for name in order if not name.startswith(".")] == [
        "saved.log.facts", "saved.log.summaries", "saved.log"]


# --- 9: a killed salvage leaves no copy, or one that the next salvage removes ---------------

KILLED_AT_LINK = textwrap.dedent("""
    import importlib, os, signal, sys
    from ledgerlab.journal import salvage
    if sys.argv[3] == "hidden":
        importlib.import_module("ledgerlab.journal.salvage")._TMPFILE = 0
    link, links = os.link, []
    def killed(*args, **kwargs):  # every new file is written and synced: stop at link n
        links.append(args)
        if len(links) == int(sys.argv[4]):
            os.kill(os.getpid(), signal.SIGKILL)
        return link(*args, **kwargs)
    os.link = killed
    salvage(sys.argv[1], sys.argv[2])
""")


def killed_salvage(broken, saved, mode, at_link):
    child = subprocess.run([sys.executable, "-c", KILLED_AT_LINK, str(broken), str(saved), mode,
                            str(at_link)], timeout=120)
    assert child.returncode == -signal.SIGKILL


def test_a_salvage_killed_before_its_files_take_their_names(broken, mode):
    folder, saved = broken.parent, broken.parent / "saved.log"
    before = files_in(folder)
    killed_salvage(broken, saved, mode, at_link=1)
    left = set(files_in(folder)) - set(before)
    if mode == "unnamed":
        # Only the facts file's marker: its device and inode numbers, no copy of any text.
        assert left == {".saved.log.ledgerlab-facts-salvage"}
        assert not holding_text(folder) - set(before)
    else:
        assert left == HIDDEN
    salvage(broken, saved)  # the next salvage to the same place removes the leftovers
    assert set(files_in(folder)) - set(before) == NEW
    check_the_copy(saved)


def test_a_salvage_killed_between_the_two_names_published_neither(broken, mode):
    """The facts file named, the turn file not: that facts file was never published, so
    Journal reads it as no file (a new journal, with no facts) and removes it."""
    folder, saved = broken.parent, broken.parent / "saved.log"
    before = files_in(folder)
    killed_salvage(broken, saved, mode, at_link=BEFORE_NEW[mode] + 1)
    assert not saved.exists() and (folder / "saved.log.facts").exists()
    assert (folder / "saved.log.summaries").exists()
    with Journal(saved) as journal:
        assert (len(journal), journal.facts()) == (0, [])
    # Opening it removed every leftover, the turn file's hidden copy too (without O_TMPFILE).
    assert set(files_in(folder)) - set(before) == {"saved.log"}
    saved.unlink()
    salvage(broken, saved)
    assert set(files_in(folder)) - set(before) == NEW
    check_the_copy(saved)


def test_a_facts_file_a_killed_salvage_left_never_blocks_the_next_salvage(broken, mode):
    """Whatever the next salvage writes (here, from a journal whose facts file has changed):
    the leftover is provably unpublished, not someone's file."""
    folder, saved = broken.parent, broken.parent / "saved.log"
    killed_salvage(broken, saved, mode, at_link=BEFORE_NEW[mode] + 1)
    facts = folder / "broken.log.facts"
    facts.write_bytes(facts.read_bytes().splitlines(keepends=True)[0])  # one fact, not two
    result = salvage(broken, saved)
    assert (result.kept, result.facts_kept) == (2, 1)
    with Journal(saved) as journal:
        assert [fact.id for fact in journal.facts()] == ["code"]


def test_a_facts_file_alone_that_no_salvage_left_is_still_damage(broken, mode):
    """A facts file whose journal was removed (no hidden name of a salvage beside it)."""
    folder, saved = broken.parent, broken.parent / "saved.log"
    salvage(broken, saved)
    saved.unlink()
    with pytest.raises(JournalError, match="facts file without its turn file"):
        Journal(saved)
    with pytest.raises(JournalError, match="exists"):
        salvage(broken, saved)
    assert not saved.exists() and (folder / "saved.log.facts").exists()


KILLED_AT_STEP = textwrap.dedent("""
    import importlib, os, signal, sys
    from ledgerlab.journal import salvage
    if sys.argv[3] == "hidden":
        importlib.import_module("ledgerlab.journal.salvage")._TMPFILE = 0
    steps, at = [], int(sys.argv[4])
    for name in ("open", "write", "fsync", "link", "unlink"):
        def step(*args, _real=getattr(os, name), **kwargs):
            steps.append(1)
            if len(steps) == at:
                os.kill(os.getpid(), signal.SIGKILL)
            return _real(*args, **kwargs)
        setattr(os, name, step)
    salvage(sys.argv[1], sys.argv[2])
    print(len(steps))
""")


@pytest.mark.slow  # a SIGKILL trial at every step: kill -9 trials are make test's
def test_a_salvage_killed_at_any_step_leaves_all_its_files_or_none(broken, mode):
    """SIGKILL before each open, write, fsync, link and unlink of a salvage in turn: NEW is
    whole with its facts and summaries, or there is no NEW and Journal(NEW) finds none (a
    derived file named before NEW is unpublished, and removed); the next salvage always
    gets through."""
    folder, saved = broken.parent, broken.parent / "saved.log"
    before = files_in(folder)

    def run(at):
        return subprocess.run([sys.executable, "-c", KILLED_AT_STEP, str(broken), str(saved),
                               mode, str(at)], capture_output=True, text=True, timeout=120)

    steps = int(run(0).stdout)
    check_the_copy(saved)
    published = 0
    for at in range(1, steps + 1):
        for name in NEW:
            (folder / name).unlink()
        assert run(at).returncode == -signal.SIGKILL, f"step {at} of {steps}"
        if mode == "unnamed":  # no copy under a hidden name, at any step
            assert not holding_text(folder) & HIDDEN, f"step {at}"
        if saved.exists():  # published: both whole
            published += 1
            check_the_copy(saved)
        else:
            with Journal(saved) as journal:
                assert (len(journal), journal.facts()) == (0, []), f"step {at}"
            assert not (folder / "saved.log.facts").exists(), f"step {at}"
            assert not (folder / "saved.log.summaries").exists(), f"step {at}"
            saved.unlink()
            salvage(broken, saved)
        check_the_copy(saved)
        hidden = set(files_in(folder)) - set(before) - NEW
        assert not hidden or not published, f"step {at} left {hidden} after publishing"
    assert 0 < published < steps


KILLED_AT_CALL = textwrap.dedent("""
    import importlib, os, signal, sys
    from ledgerlab.journal import salvage
    if sys.argv[3] == "hidden":
        importlib.import_module("ledgerlab.journal.salvage")._TMPFILE = 0
    name, at, calls = sys.argv[4], int(sys.argv[5]), []
    def step(*args, _real=getattr(os, name), **kwargs):
        calls.append(1)
        if len(calls) == at:
            os.kill(os.getpid(), signal.SIGKILL)
        return _real(*args, **kwargs)
    setattr(os, name, step)
    salvage(sys.argv[1], sys.argv[2])
""")


@pytest.mark.parametrize("call, at", [("write", 1), ("write", 2), ("write", 3), ("link", 1),
                                      ("link", 2), ("link", 3), ("unlink", 1)])
def test_a_killed_salvage_leaves_no_hidden_copy_and_never_blocks_the_next(broken, mode, call,
                                                                           at):
    """Issue 45: killed at its first bytes or names, 4 of 12 salvages left the facts' text
    under a hidden name, which then refused every later salvage to the same place whose
    source had changed. Now a salvage written with no name (O_TMPFILE) leaves no copy under
    a hidden name at any point, and whatever a killed salvage left, the next one (here
    from a source whose facts changed) or opening the copy removes it."""
    folder, saved = broken.parent, broken.parent / "saved.log"
    before = files_in(folder)
    child = subprocess.run([sys.executable, "-c", KILLED_AT_CALL, str(broken), str(saved), mode,
                            call, str(at)], timeout=120)
    assert child.returncode == -signal.SIGKILL
    if mode == "unnamed":
        assert not (holding_text(folder) - set(before)) & HIDDEN
    facts = folder / "broken.log.facts"
    facts.write_bytes(facts.read_bytes().splitlines(keepends=True)[0])  # one fact, not two
    if saved.exists():  # killed once published: the copy is whole, and opening it tidies
        check_the_copy(saved)
    else:
        assert salvage(broken, saved).facts_kept == 1
        with Journal(saved) as journal:
            assert [fact.id for fact in journal.facts()] == ["code"]
    assert set(files_in(folder)) - set(before) == NEW


@pytest.mark.parametrize("left", [b"", b"ledgerlab salv", b"ledgerlab salvage, not yet published: 2",
                                  b"ledgerlab salvage, not yet published: 2 9\n",
                                  b"ledgerlab salvage, not yet pub\0\0\0\0"])
def test_a_marker_a_killed_salvage_left_whole_or_cut_short_is_removed(broken, left):
    folder, saved = broken.parent, broken.parent / "saved.log"
    for name in HIDDEN - {".saved.log.ledgerlab-salvage"}:
        (folder / name).write_bytes(left)
    salvage(broken, saved)
    assert not HIDDEN & set(files_in(folder))
    check_the_copy(saved)


def test_a_leftover_cut_short_is_removed_and_a_foreign_file_is_kept(broken, mode):
    folder, saved = broken.parent, broken.parent / "saved.log"
    salvage(broken, saved)
    copy = saved.read_bytes()
    saved.unlink()
    (folder / "saved.log.facts").unlink()
    (folder / "saved.log.summaries").unlink()
    leftover, foreign = folder / ".saved.log.ledgerlab-salvage", b"someone's notes\n"
    leftover.write_bytes(copy[:len(copy) // 2])  # killed mid-write
    (folder / ".saved.log.ledgerlab-facts-salvage").write_bytes(foreign)
    before = files_in(folder)
    # The foreign file holds the name this salvage needs (either way: the facts file keeps
    # it until the turn file is named): refused, and the leftover removed.
    with pytest.raises(JournalError, match="not provably"):
        salvage(broken, saved)
    assert files_in(folder) == {name: data for name, data in before.items()
                                if name != leftover.name}
    assert (folder / ".saved.log.ledgerlab-facts-salvage").read_bytes() == foreign


# --- 13: a symlinked LOG is followed, and its facts are the real file's ----------------------

def test_a_symlinked_log_is_salvaged_with_the_facts_journal_reads(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    make_journal(real / "journal.log")
    link = tmp_path / "link.log"
    link.symlink_to(real / "journal.log")
    (tmp_path / "link.log.facts").write_bytes(b"not the facts Journal(link) reads\n")
    saved = tmp_path / "saved.log"
    result = salvage(link, saved)
    assert (result.kept, result.facts_kept) == (2, 2)
    assert result.facts_file == str(real / "journal.log.facts")
    check_the_copy(saved)


# --- 14: a FIFO, as LOG or as LOG.facts, is refused at once --------------------------------

SALVAGE_CHILD = textwrap.dedent("""
    import sys
    from ledgerlab.journal import JournalError, salvage
    try:
        salvage(sys.argv[1], sys.argv[2])
    except JournalError as error:
        print(error)
        sys.exit(3)
""")


@pytest.mark.parametrize("fifo", ["broken.log", "broken.log.facts"])
def test_a_fifo_is_refused_not_waited_on(tmp_path, fifo):
    if fifo != "broken.log":
        (tmp_path / "broken.log").write_bytes(encode_record("one", "q", "a"))
    os.mkfifo(tmp_path / fifo)
    saved = tmp_path / "saved.log"
    try:  # the timeout only keeps a hang from hanging the test run
        child = subprocess.run([sys.executable, "-c", SALVAGE_CHILD, str(tmp_path / "broken.log"),
                                str(saved)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"salvage waited on the FIFO {fifo}")
    assert child.returncode == 3 and "not a regular file" in child.stdout, child.stderr
    assert not saved.exists() and not (tmp_path / "saved.log.facts").exists()


# --- a run of junk lines is one LostLine, so what salvage holds does not grow with it -------

def test_consecutive_junk_lines_are_one_lost_entry(tmp_path):
    line = encode_record("one", "q", "a")
    (tmp_path / "broken.log").write_bytes(b"\n" * 1000 + line + b"junk\n" * 3 + damaged(line))
    result = salvage(tmp_path / "broken.log", tmp_path / "saved.log")
    assert result.kept == 1
    assert [(lost.number, lost.offset, lost.length, lost.lines, lost.id_tag is None)
            for lost in result.lost] == [(1, 0, 1000, 1000, True),
                                         (1002, 1000 + len(line), 15, 3, True),
                                         (1005, 1015 + len(line), len(line), 1, False)]


# --- 19: id tags are keyed per process ------------------------------------------------------

def test_an_id_tag_is_stable_within_a_process_and_not_across_processes():
    show = "from ledgerlab.journal import id_tag; print(id_tag('t17'), id_tag('2024-05-17'))"
    runs = [subprocess.run([sys.executable, "-c", show], capture_output=True, text=True,
                           check=True, timeout=60).stdout.split() for _ in range(2)]
    assert runs[0] != runs[1] and runs[0][0] != runs[1][0]
    assert id_tag("t17") == id_tag("t17") and id_tag("t17") != id_tag("t18")
    for tags in runs:  # the unkeyed hash that enumeration reversed
        assert tags[0] != "id#" + hashlib.sha256(b"t17").hexdigest()[:12]
        assert len(tags[0]) == len("id#") + 12
