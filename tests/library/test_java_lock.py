"""Issue 27, defect 22: the Java reference's lock and ours exclude each other.

The reference locks the journal with ``FileChannel.lock()``: a POSIX fcntl lock, which
flock never sees on Linux. ledgerlab takes an open-file-description fcntl lock beside its
flock, so a real JVM holding ``FileChannel.lock()`` makes ``Journal(path)`` raise
JournalLocked, and a JVM's ``tryLock()`` on a journal ledgerlab holds gets null.

``java/LockProbe.java`` is compiled into the test's folder with javac. Without a JDK the
tests skip, except where CI=true or LEDGERLAB_REQUIRE_JAVA=1: there they fail.
Processes are synchronised by pipes (a line on stdout, a line on stdin), never by time.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ledgerlab import Journal, JournalLocked
from ledgerlab.journal import files

PROBE = Path(__file__).with_name("java") / "LockProbe.java"
REQUIRED = os.environ.get("CI") == "true" or os.environ.get("LEDGERLAB_REQUIRE_JAVA") == "1"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="open-file-description locks are Linux's")


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The command that runs LockProbe, compiled once for this module."""
    java, javac = shutil.which("java"), shutil.which("javac")
    if java is None or javac is None:
        message = "no JDK (java and javac): apt-get install default-jdk-headless"
        if REQUIRED:
            pytest.fail(message + " (required: CI=true or LEDGERLAB_REQUIRE_JAVA=1)")
        pytest.skip(message)
    classes = tmp_path_factory.mktemp("java")
    subprocess.run([javac, "-d", str(classes), str(PROBE)], check=True)
    return [java, "-cp", str(classes), "LockProbe"]


def test_the_lock_is_flock_and_an_open_file_description_lock():
    assert files.OFD_SETLK is not None  # on Linux, with flock: both locks are taken


@pytest.mark.slow  # compiles and starts JVMs
def test_a_journal_is_refused_while_java_holds_its_lock(probe, tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
    before = log.read_bytes()
    holder = subprocess.Popen(probe + ["hold", str(log)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        with pytest.raises(JournalLocked):
            Journal(log)
        assert log.read_bytes() == before
        holder.stdin.write("release\n")
        holder.stdin.flush()
        assert holder.wait() == 0
    finally:
        holder.kill()
        holder.wait()
    with Journal(log) as journal:  # Java let go: ours again, nothing lost
        journal.commit("two", "q2", "a2")
        assert journal.ids() == ("one", "two")


@pytest.mark.slow  # compiles and starts JVMs
def test_java_cannot_lock_a_journal_ledgerlab_holds(probe, tmp_path):
    log = tmp_path / "conversation.log"
    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        tried = subprocess.run(probe + ["try", str(log)], capture_output=True, text=True)
        assert (tried.returncode, tried.stdout) == (0, "refused\n"), tried.stderr
        journal.forget("one")  # the rewritten file is locked the same way
        tried = subprocess.run(probe + ["try", str(log)], capture_output=True, text=True)
        assert (tried.returncode, tried.stdout) == (0, "refused\n"), tried.stderr
    tried = subprocess.run(probe + ["try", str(log)], capture_output=True, text=True)
    assert (tried.returncode, tried.stdout) == (0, "locked\n"), tried.stderr  # closed: free
