"""The library's Pyodide subset: checks that run unchanged in CPython and in Pyodide.

``python checks.py`` prints one JSON object, ``{check name: result}``; a check's result is
what it observed (sizes, counts, digests), or ``{"error": ...}`` if it raised.
test_pyodide.py runs this file in CPython and, through run_pyodide.mjs, in Pyodide under
Node, and requires the same results from both: the journal here lives in Pyodide's
in-memory file system, where fsync reaches no disk, so these check behaviour, not
durability. Only the standard library and ledgerlab (with portalocker) are imported.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import tempfile
import traceback
from pathlib import Path

import ledgerlab
from ledgerlab import BudgetError, Journal, JournalCorrupt, JournalLocked, request_bytes, select
from ledgerlab.course import fixtures
from ledgerlab.course.scenario import boundary_table, run_projection_scenario
from ledgerlab.journal import encode_record, files, salvage

CHECKS = {}


def check(function):
    CHECKS[function.__name__] = function
    return function


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@check
def wire() -> dict:
    system, history, question = (fixtures.BOUNDARY_SYSTEM, fixtures.BOUNDARY_HISTORY,
                                 fixtures.BOUNDARY_QUESTION)
    bodies = {encoder: request_bytes(system, history, question, encoder=encoder)
              for encoder in ("gson", "httpx", "requests")}
    mandatory = request_bytes(system, [], question)
    return {"mandatory_bytes": len(mandatory),
            "utf16_units": len(mandatory.decode().encode("utf-16-le")) // 2,
            **{encoder: [len(body), digest(body)] for encoder, body in bodies.items()}}


@check
def selector() -> dict:
    try:
        boundary_table([139])
        rejected = None
    except BudgetError as error:
        rejected = [error.mandatory_bytes, error.limit]
    chosen = select(fixtures.SCENARIO_SYSTEM, [turn for _, turn in fixtures.SCENARIO_TURNS],
                    fixtures.NEXT_STEP_QUESTION, 264)
    return {"table": boundary_table(), "rejected_139": rejected,
            "scenario_264": [chosen.kept, chosen.dropped, chosen.size, digest(chosen.payload)]}


@check
def journal_commit_reopen(folder: Path) -> dict:
    log = folder / "conversation.log"
    with Journal(log) as journal:
        for turn_id, turn in fixtures.SCENARIO_TURNS:
            journal.commit(turn_id, turn.question, turn.answer)
        first = fixtures.SCENARIO_TURNS[0][1]
        journal.commit("one", first.question, first.answer)  # idempotent by id
        before = len(journal)
    with Journal(log) as journal:
        history = journal.history()
    return {"turns": [before, len(history)], "same": history == [t for _, t in
                                                                 fixtures.SCENARIO_TURNS],
            "size": log.stat().st_size, "file": digest(log.read_bytes()),
            "mode": oct(log.stat().st_mode & 0o777)}


@check
def torn_tail(folder: Path) -> dict:
    log = folder / "torn.log"
    with Journal(log) as journal:
        journal.commit("one", "question", "answer")
    whole = log.read_bytes()
    cut = {}
    for name, tail in (("half a record", encode_record("two", "q", "a")[:30]),
                       ("a record without its newline", encode_record("two", "q", "a")[:-1]),
                       ("NULs", b"\0" * 100)):
        log.write_bytes(whole + tail)
        with Journal(log) as journal:
            cut[name] = [len(journal), log.read_bytes() == whole]
    return cut


@check
def forget_retain(folder: Path) -> dict:
    log = folder / "forget.log"
    secret = "ORCHID-17"
    with Journal(log) as journal:
        for number in range(5):
            journal.commit(f"t{number}", f"question {number} {secret}", f"answer {number}")
        journal.forget("t1")
        deleted = journal.retain(last=2)
        ids = [turn.question.split()[1] for turn in journal.history()]
    text = b"".join(path.read_bytes() for path in folder.iterdir() if path.is_file())
    leaked = secret.encode() in text or base64.b64encode(b"question 1") in text
    return {"kept": ids, "retain_deleted": deleted, "secret_left": leaked,
            "files": sorted(path.name for path in folder.iterdir())}


@check
def salvage_corrupt(folder: Path) -> dict:
    log = folder / "damaged.log"
    lines = [encode_record(f"t{n}", f"q{n}", f"a{n}") for n in range(3)]
    log.write_bytes(lines[0] + lines[1].replace(b" ", b"  ", 1) + lines[2])
    try:
        Journal(log).close()
        refused = False
    except JournalCorrupt:
        refused = True
    saved = salvage(log, folder / "saved.log")
    with Journal(folder / "saved.log") as journal:
        kept = [turn.question for turn in journal.history()]
    return {"refused": refused, "kept": kept, "lost": [line.number for line in saved.lost],
            "size": saved.size}


@check
def scenario(folder: Path) -> dict:
    return run_projection_scenario(folder / "conversation.log")


@check
def one_writer(folder: Path) -> dict:
    """The lock that is left where flock is not: a second Journal of this process is refused,
    before and after a rewrite, and the file opens again once the first closes. (Pyodide
    cannot start threads, so the other-thread case is CPython's alone: test_journal_no_flock.)"""
    log = folder / "locked.log"
    refused = []

    def second() -> None:
        try:
            Journal(log).close()
            refused.append(False)
        except JournalLocked:
            refused.append(True)

    with Journal(log) as journal:
        journal.commit("one", "q", "a")
        second()
        journal.forget("one")  # a rewrite replaces the file: the lock must follow it
        second()
    with Journal(log) as journal:
        reopened = len(journal)
    return {"second_refused": refused, "reopened_turns": reopened}


def run() -> dict:
    results = {}
    for name, function in CHECKS.items():
        try:
            if function.__code__.co_argcount:
                with tempfile.TemporaryDirectory() as folder:
                    results[name] = function(Path(folder))
            else:
                results[name] = function()
        except Exception:  # reported, not raised: the other checks still run
            results[name] = {"error": traceback.format_exc()}
    # Facts about the interpreter, compared by the test with what each platform should show.
    results["platform"] = {"sys.platform": sys.platform, "version": ledgerlab.__version__,
                           "os_lock": files.portalocker is not None}
    return results


if __name__ == "__main__":
    print(json.dumps(run(), ensure_ascii=False, sort_keys=True))
