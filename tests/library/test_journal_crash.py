"""kill -9 at any moment: nothing acknowledged is lost, no acknowledged forget undone.

A child process works on a journal and prints each id after the call returned;
the parent kills it with SIGKILL at a random moment, reopens the journal and
checks it against the acknowledgements. ``make stress`` sets
LEDGERLAB_KILL_TRIALS=1000; ``make test`` runs 50 of each kind (twice that of the
summaries' trials). With pinned facts, forget and retain must also leave every turn with
all its facts or none, and no fact whose origin is gone; with summaries, no summary whose
covered turn is gone, and no text of a forgotten turn in any file.

Each child is forked by one ``crash_child.py serve`` process that has imported
ledgerlab already: a trial costs a fork, not a new interpreter.
"""

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ledgerlab import Journal
from ledgerlab.journal import SUMMARIES, TURNS, encode_fact, encode_record, scan
from ledgerlab import Fact

sys.path.insert(0, str(Path(__file__).parent))
from crash_child import answer_for, facts_for  # noqa: E402

CHILD = Path(__file__).with_name("crash_child.py")
TRIALS = int(os.environ.get("LEDGERLAB_KILL_TRIALS", "50"))

pytestmark = [pytest.mark.skipif(os.name == "nt", reason="SIGKILL and fork are POSIX"),
              pytest.mark.slow]


@pytest.fixture(scope="module")
def server():
    """The process that forks each child (``crash_child.py serve``)."""
    process = subprocess.Popen([sys.executable, str(CHILD), "serve"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    yield process
    process.stdin.close()
    assert process.wait() == 0


@pytest.fixture
def kill_at_random(server):
    def kill_at_random(args, rng):
        """Start the child, let it acknowledge once, kill it a random moment later."""
        server.stdin.write(json.dumps([str(arg) for arg in args]) + "\n")
        server.stdin.flush()
        first = server.stdout.readline()
        if first != "end\n":
            time.sleep(rng.uniform(0, 0.04))
        server.stdin.write("kill\n")  # SIGKILL, unless the child is gone already
        server.stdin.flush()
        assert first not in ("", "end\n"), "the child died before its first acknowledgement"
        lines = [first]
        while (line := server.stdout.readline()) not in ("end\n", ""):
            lines.append(line)
        assert line == "end\n", "the process that forks the children died"
        return [int(line) for line in lines]
    return kill_at_random


def test_kill_9_during_commits_never_loses_an_acknowledged_turn(tmp_path, kill_at_random):
    rng = random.Random(20261129)
    log = tmp_path / "conversation.log"
    acknowledged: set[int] = set()
    next_id = 0
    for trial in range(TRIALS):
        if log.exists() and log.stat().st_size > 1024 * 1024:
            log.unlink()  # stay far below the 4 MiB cap
            acknowledged.clear()
        acks = kill_at_random(["commit", log, next_id], rng)
        acknowledged.update(acks)
        next_id = acks[-1] + 2  # the id after the last ack may be on disk, unacknowledged
        with Journal(log) as journal:  # the same journal: each trial recovers the last one
            for number in acknowledged:
                turn = journal.find(f"t{number}")
                assert turn is not None, f"trial {trial}: acknowledged t{number} lost"
                assert turn.answer == answer_for(number)
    print(f"\n{TRIALS} kill -9 trials during commits; every acknowledged turn found")


def test_kill_9_during_forgets_never_undoes_one_nor_harms_the_others(tmp_path, kill_at_random):
    rng = random.Random(11292026)
    turns = 60
    lines = [encode_record(f"t{n}", f"question {n}", answer_for(n)) for n in range(turns)]
    cut_short = 0
    for trial in range(TRIALS):
        directory = tmp_path / f"trial{trial}"
        directory.mkdir()
        log = directory / "conversation.log"
        with Journal(log) as journal:
            for n in range(turns):
                journal.commit(f"t{n}", f"question {n}", answer_for(n))
        assert log.read_bytes() == b"".join(lines)

        acks = kill_at_random(["forget", log], rng)
        forgotten = set(acks)
        in_flight = max(acks) + 1
        cut_short += in_flight < turns
        with Journal(log) as journal:
            present = [n for n in range(turns) if journal.find(f"t{n}") is not None]
        expected = [n for n in range(turns) if n not in forgotten and n != in_flight]
        assert [n for n in present if n != in_flight] == expected, f"trial {trial}"
        # Survivors byte-identical and in order; forgotten text in no file of the directory.
        assert log.read_bytes() == b"".join(lines[n] for n in present)
        leftovers = b"".join(path.read_bytes() for path in directory.iterdir())
        for n in forgotten:
            assert lines[n] not in leftovers and answer_for(n).encode() not in leftovers
    print(f"\n{TRIALS} kill -9 trials during forgets ({cut_short} killed before the last "
          f"forget); every acknowledged forget held")


@pytest.mark.parametrize("mode", ["forget", "retain"])
def test_kill_9_during_deletions_with_facts_leaves_each_turn_all_its_facts_or_none(
        tmp_path, mode, kill_at_random):
    rng = random.Random(21 if mode == "forget" else 2121)
    turns, step = 60, 3  # retain drops three turns (and their facts) at a time
    lines = [encode_record(f"t{n}", f"question {n}", answer_for(n)) for n in range(turns)]
    facts = {n: [Fact(fact_id, text, f"t{n}") for fact_id, text in facts_for(n)]
             for n in range(turns)}
    fact_lines = {fact: encode_fact(fact) for n in range(turns) for fact in facts[n]}
    cut_short = partial = 0
    for trial in range(TRIALS):
        directory = tmp_path / f"{mode}{trial}"
        directory.mkdir()
        log = directory / "conversation.log"
        log.write_bytes(b"".join(lines))
        Path(f"{log}.facts").write_bytes(b"".join(fact_lines.values()))

        acks = kill_at_random([mode, log] + ([step] if mode == "retain" else []), rng)
        if mode == "forget":
            gone, in_flight = set(acks), {max(acks) + 1}
        else:
            gone = set(range(max(acks)))
            in_flight = set(range(max(acks), max(acks) + step))
        in_flight &= set(range(turns))
        cut_short += bool(in_flight)
        with Journal(log) as journal:
            present = [n for n in range(turns) if journal.find(f"t{n}") is not None]
            pinned = journal.facts()
            # All or none: a turn still there after an interrupted deletion keeps every
            # fact or none, and no fact outlives its origin.
            assert all(fact.origin in {f"t{n}" for n in present} for fact in pinned)
            for n in present:
                mine = [fact for fact in pinned if fact.origin == f"t{n}"]
                assert mine in ([], facts[n]), f"trial {trial}: t{n} kept some of its facts"
                assert mine == facts[n] or n in in_flight, f"trial {trial}: t{n} lost facts"
                partial += bool(n in in_flight and facts[n] and not mine)
            assert [n for n in present if n not in in_flight] == \
                [n for n in range(turns) if n not in gone | in_flight], f"trial {trial}"
            # Repeating the deletion completes it.
            for n in in_flight & set(present):
                journal.forget(f"t{n}")
            assert all(journal.find(f"t{n}") is None for n in gone | in_flight)
            survivors = journal.facts()
        assert survivors == [fact for n in range(turns) if n not in gone | in_flight
                             for fact in facts[n]]
        assert log.read_bytes() == b"".join(lines[n] for n in range(turns)
                                            if n not in gone | in_flight)
        # Deleted text in no file of the directory; the survivors' lines byte-identical.
        assert Path(f"{log}.facts").read_bytes() == b"".join(fact_lines[f] for f in survivors)
        leftovers = b"".join(path.read_bytes() for path in directory.iterdir())
        for n in gone | in_flight:
            assert lines[n] not in leftovers and answer_for(n).encode() not in leftovers
            for fact in facts[n]:
                assert fact_lines[fact] not in leftovers and fact.text.encode() not in leftovers
    print(f"\n{TRIALS} kill -9 trials during {mode} with facts ({cut_short} cut short, "
          f"{partial} with a turn left without its facts); every turn had all or none")


# --- Summaries: add_summary, drop_summary, forget and retain, killed at random (issue 37) -----

def marker(turn_id: str) -> str:
    return f"<{turn_id}>"  # "<t1>" is in no other turn's text, nor "<t12>"'s


def applied(state: tuple, op: list) -> tuple:
    """The journal's turns (in order) and summaries ({id: (text, covers)}) after ``op``."""
    turns, summaries = state
    kind, *args = op
    if kind == "add":
        return turns, {**summaries, args[0]: (args[1], tuple(args[2]))}
    if kind == "drop":
        return turns, {sid: item for sid, item in summaries.items() if sid != args[0]}
    doomed = {args[0]} if kind == "forget" else set(turns[:len(turns) - args[0]])
    return ([turn for turn in turns if turn not in doomed],
            {sid: item for sid, item in summaries.items() if doomed.isdisjoint(item[1])})


def memory_ops(rng: random.Random, turns: list[str], count: int) -> list[list]:
    """A run of ``count`` operations, each valid after those before it."""
    state, ops = (turns, {}), []
    while len(ops) < count and state[0]:
        alive, summaries = state
        roll = rng.random()
        if roll < 0.5 or not summaries:
            covers = rng.sample(alive, rng.randint(1, min(4, len(alive))))
            op = ["add", f"s{len(ops)}", "recap " + " ".join(marker(t) for t in covers), covers]
        elif roll < 0.65:
            op = ["drop", rng.choice(sorted(summaries))]
        elif roll < 0.9:
            op = ["forget", rng.choice(alive)]
        else:
            op = ["retain", max(0, len(alive) - rng.randint(1, 3))]
        ops.append(op)
        state = applied(state, op)
    return ops


def test_kill_9_during_summaries_loses_no_acknowledged_write_and_leaves_no_orphan(
        tmp_path, kill_at_random):
    rng = random.Random(37)
    turn_ids = [f"t{n}" for n in range(12)]
    lines = b"".join(encode_record(t, f"question {t}", f"answer {marker(t)}") for t in turn_ids)
    cut_short = 0
    for trial in range(2 * TRIALS):
        directory = tmp_path / f"memory{trial}"
        directory.mkdir()
        log = directory / "conversation.log"
        log.write_bytes(lines)
        ops = memory_ops(rng, turn_ids, 30)
        acks = kill_at_random(["memory", log, json.dumps(ops)], rng)
        assert acks == list(range(len(acks))), f"trial {trial}: acknowledged out of order"
        before = (turn_ids, {})
        for op in ops[:len(acks)]:
            before = applied(before, op)
        in_flight = ops[len(acks)] if len(acks) < len(ops) else None
        after = applied(before, in_flight) if in_flight else before
        cut_short += in_flight is not None
        # The files as the kill left them, before an open tidies anything: no summary whose
        # covered turn is gone, and no text of a turn whose deletion was acknowledged.
        on_disk = {line.record.id for line in scan(log.read_bytes(), TURNS) if line.record}
        summaries_file = Path(f"{log}.summaries")
        raw = summaries_file.read_bytes() if summaries_file.exists() else b""
        for line in scan(raw, SUMMARIES):
            if line.record is not None:
                assert on_disk.issuperset(line.record.summary.covers), f"trial {trial}: orphan"
        everything = b"".join(path.read_bytes() for path in directory.iterdir())
        for turn_id in set(turn_ids) - set(before[0]):
            assert marker(turn_id).encode() not in everything, f"trial {trial}: {turn_id} left"
        with Journal(log) as journal:
            turns = list(journal.ids())
            present = {s.id: (s.text, s.covers) for s in journal.summaries()}
        assert turns in (before[0], after[0]), f"trial {trial}"
        # Every acknowledged summary that the operation in flight does not delete is there,
        # exactly; derived items go first, so once the turns are deleted, their summaries are.
        kept = {sid: item for sid, item in before[1].items() if after[1].get(sid) == item}
        assert kept.items() <= present.items() <= {**before[1], **after[1]}.items(), \
            f"trial {trial}"
    print(f"\n{2 * TRIALS} kill -9 trials during add_summary, drop_summary, forget and retain "
          f"({cut_short} cut short); no acknowledged write lost, no orphan, no forgotten text")
