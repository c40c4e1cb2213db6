"""Where the OS has no working flock (Pyodide), ledgerlab imports and the journal still works.

The lock is then this process's registry of open journals: a second Journal in
the same process is refused; another process is not stopped (README says so).
Pyodide 0.27 has no ``fcntl.flock``; Pyodide 314 has one that locks nothing, and its
file system answers ``fstat`` by the name a descriptor was opened with: the child
below imitates each.
"""

import json
import subprocess
import sys

import pytest

from ledgerlab import Turn, request_bytes

# Run in a fresh interpreter whose fcntl is a stub, before ledgerlab is imported.
CHILD = r"""
import json, sys, threading, types
import fcntl as real
del sys.modules["fcntl"]
stub = types.ModuleType("fcntl")
if sys.argv[2] == "no-flock":  # everything but flock: portalocker's import fails on it
    stub.__dict__.update({k: v for k, v in vars(real).items() if k != "flock"})
if sys.argv[2] == "noop-flock":  # Pyodide 314: a flock that succeeds and locks nothing
    stub.__dict__.update(vars(real))
    stub.flock = lambda fd, operation: None
    sys.platform = "emscripten"
sys.modules["fcntl"] = stub  # "empty": like Pyodide 0.27, no flock and no LOCK_EX

import os
opened = {}  # Emscripten's fstat resolves a descriptor by the name it was opened with
real_open, real_fstat = os.open, os.fstat
def open_by_name(path, flags, mode=0o777, *, dir_fd=None):
    fd = real_open(path, flags, mode, dir_fd=dir_fd)
    opened[fd] = os.fspath(path)
    return fd
os.open = open_by_name
os.fstat = lambda fd: os.stat(opened[fd]) if fd in opened else real_fstat(fd)

import ledgerlab
from ledgerlab import Journal, JournalLocked, Turn, select
from ledgerlab.journal import files
from ledgerlab.course.scenario import run_projection_scenario

def refused(action):
    try:
        action()
    except JournalLocked:
        return True
    return False

log = sys.argv[1]
result = {"portalocker": files.portalocker is not None,
          "report": run_projection_scenario(log),
          "select_bytes": select("s", [Turn("q", "a")], "c", 1000).size}
with Journal(log) as journal:
    result["same_process_refused"] = refused(lambda: Journal(log))
    seen = []
    thread = threading.Thread(target=lambda: seen.append(refused(lambda: Journal(log))))
    thread.start(); thread.join()
    result["other_thread_refused"] = seen == [True]
    journal.commit("four", "q4", "a4")
    journal.forget("one")
    result["refused_after_a_rewrite"] = refused(lambda: Journal(log))
    journal.forget("two")  # a second rewrite on the same open Journal
    journal.retain(last=1)
    result["refused_after_three_rewrites"] = refused(lambda: Journal(log))
with Journal(log) as journal:
    result["reopened_turns"] = len(journal)
print(json.dumps(result))
"""


@pytest.mark.parametrize("stub", ["empty", "no-flock", "noop-flock"])
def test_without_flock_the_scenario_runs_and_one_process_has_one_writer(tmp_path, stub):
    result = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "c.log"), stub],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["portalocker"] is False  # the fallback really ran
    assert found["report"] == {
        "narrow_request_bytes": 264, "narrow_kept_turns": 1, "old_fact_in_narrow_request": False,
        "projection_preserved_file_bytes": True, "reopened_turns": 3, "wide_request_bytes": 480,
        "old_fact_in_wide_request": True, "rejected_request_preserved_file_bytes": True}
    assert found["select_bytes"] == len(request_bytes("s", [Turn("q", "a")], "c"))
    assert found["same_process_refused"] and found["other_thread_refused"]
    assert found["refused_after_a_rewrite"] and found["refused_after_three_rewrites"]
    assert found["reopened_turns"] == 1
