"""Issue 12: where the OS has no flock (Pyodide), ledgerlab imports and the journal still works.

The lock is then this process's registry of open journals: a second Journal in
the same process is refused; another process is not stopped (README says so).
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
sys.modules["fcntl"] = stub  # "empty": like Pyodide, no flock and no LOCK_EX

import ledgerlab
from ledgerlab import Journal, JournalLocked, Turn, select
from ledgerlab import journal as journal_module
from ledgerlab.article import run_projection_scenario

def refused(action):
    try:
        action()
    except JournalLocked:
        return True
    return False

log = sys.argv[1]
result = {"portalocker": journal_module.portalocker is not None,
          "report": run_projection_scenario(log),
          "select_bytes": select("s", [Turn("q", "a")], "c", 1000).size}
with Journal(log) as journal:
    result["same_process_refused"] = refused(lambda: Journal(log))
    seen = []
    thread = threading.Thread(target=lambda: seen.append(refused(lambda: Journal(log))))
    thread.start(); thread.join()
    result["other_thread_refused"] = seen == [True]
    journal.forget("one")
    result["refused_after_a_rewrite"] = refused(lambda: Journal(log))
with Journal(log) as journal:
    result["reopened_turns"] = len(journal)
print(json.dumps(result))
"""


@pytest.mark.parametrize("stub", ["empty", "no-flock"])
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
    assert found["refused_after_a_rewrite"] and found["reopened_turns"] == 2
