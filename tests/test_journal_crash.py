"""kill -9 at any moment: nothing acknowledged is lost.

A child process commits turns and prints each id after ``commit`` returns; the
parent kills it with SIGKILL at a random moment, reopens the journal and checks
that every acknowledged turn is there with its exact answer. The same journal
goes through every trial, so each trial also recovers the previous one's tail.
``make stress`` sets LEDGERLAB_KILL_TRIALS=1000; ``make test`` runs 50.
"""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ledgerlab import Journal

sys.path.insert(0, str(Path(__file__).parent))
from crash_child import answer_for  # noqa: E402

CHILD = Path(__file__).with_name("crash_child.py")
TRIALS = int(os.environ.get("LEDGERLAB_KILL_TRIALS", "50"))


@pytest.mark.skipif(os.name == "nt", reason="SIGKILL is POSIX")
def test_kill_9_never_loses_an_acknowledged_turn(tmp_path):
    rng = random.Random(20261129)
    log = tmp_path / "conversation.log"
    acknowledged: set[int] = set()
    next_id = 0
    started = time.monotonic()
    for trial in range(TRIALS):
        if trial % 100 == 0 and log.exists():
            log.unlink()  # stay far below the 4 MiB cap
            acknowledged.clear()
        child = subprocess.Popen([sys.executable, str(CHILD), str(log), str(next_id)],
                                 stdout=subprocess.PIPE, text=True)
        # Wait for a first ack (so the kill lands while committing), then a random moment.
        first = child.stdout.readline()
        assert first, f"trial {trial}: the child died before committing"
        time.sleep(rng.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate()
        acks = [int(line) for line in (first + rest).split()]
        acknowledged.update(acks)
        next_id = acks[-1] + 2  # the id after the last ack may be on disk, unacknowledged

        with Journal(log) as journal:  # must always open
            for number in acknowledged:
                turn = journal.find(f"t{number}")
                assert turn is not None, f"trial {trial}: acknowledged t{number} lost"
                assert turn.answer == answer_for(number)
    elapsed = time.monotonic() - started
    print(f"\n{TRIALS} kill -9 trials, {len(acknowledged)} acknowledged turns checked "
          f"in the last journal, {elapsed:.1f} s")
