"""Where the ledger and the selector meet, as in the article: the scenario and its audit.

The boundary table, the bad slice the article warns against, the projection scenario
run on a real journal (can a trimmed fact return?), notebook 08's journal with facts
pinned and its trace search, and the evidence directory that ``ledgerlab-course
scenario`` writes and ``ledgerlab-course audit`` re-checks. The data is ``fixtures``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
from pathlib import Path

from ledgerlab import BudgetError, Journal, Turn, examine, messages, request_bytes, select

from .fixtures import (BOUNDARY_BUDGETS, BOUNDARY_HISTORY, BOUNDARY_QUESTION, BOUNDARY_SYSTEM,
                       LOCAL_FIXTURE_REPLY, NEXT_STEP_QUESTION, OLD_FACT, PINNED_FACTS,
                       REJECTED_BUDGET, SCENARIO_SYSTEM, SCENARIO_TURNS, WIDE_QUESTION)

REPORT_KEYS = (
    "narrow_request_bytes",
    "narrow_kept_turns",
    "old_fact_in_narrow_request",
    "projection_preserved_file_bytes",
    "reopened_turns",
    "wide_request_bytes",
    "old_fact_in_wide_request",
    "rejected_request_preserved_file_bytes",
)


# --- The boundary table and the bad slice -----------------------------------------------

def boundary_table(budgets=BOUNDARY_BUDGETS, selector=select) -> list[dict[str, int]]:
    """The article's table: for each budget, retained and dropped turns and actual bytes."""
    rows = []
    for budget in budgets:
        chosen = selector(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION, budget)
        rows.append({"budget": budget, "retained": chosen.kept,
                     "dropped": chosen.dropped, "bytes": chosen.size})
    return rows


def boundary_rejection(budget: int = REJECTED_BUDGET, selector=select) -> dict[str, int]:
    """The budget the mandatory input does not fit, with the size it needs."""
    try:
        selector(BOUNDARY_SYSTEM, BOUNDARY_HISTORY, BOUNDARY_QUESTION, budget)
    except BudgetError as error:
        return {"budget": budget, "mandatory_bytes": error.mandatory_bytes}
    raise AssertionError(f"budget {budget} was expected to be rejected")


def message_count_slice(system: str, history, current: str, last: int) -> list[dict[str, str]]:
    """The bad slice: the last ``last`` messages, whatever they are.

    On ``U1 A1 | U2 A2 | U3 A3`` and ``U4`` with ``last=4`` it gives
    ``A2 | U3 A3 | U4``: an answer without its question, and no system message.
    """
    return messages(system, list(history), current)[-last:]


# --- The projection scenario ------------------------------------------------------------

def narrow_budget(turns: list[Turn]) -> int:
    """Step 2's budget: the size of the request holding only turn two."""
    return len(request_bytes(SCENARIO_SYSTEM, turns[1:2], NEXT_STEP_QUESTION))


def run_projection_scenario(log_path: str | os.PathLike[str]) -> dict[str, object]:
    """Run the article's scenario on a new journal at ``log_path``; return its report."""
    log_path = Path(log_path)
    if log_path.exists():
        raise FileExistsError(f"the scenario needs a new journal; {log_path} exists")

    with Journal(log_path) as journal:
        for turn_id, turn in SCENARIO_TURNS:
            journal.commit(turn_id, turn.question, turn.answer)
        before = log_path.read_bytes()
        history = journal.history()
        narrow = select(SCENARIO_SYSTEM, history, NEXT_STEP_QUESTION, narrow_budget(history))
        projection_preserved = log_path.read_bytes() == before
        journal.commit("three", NEXT_STEP_QUESTION, LOCAL_FIXTURE_REPLY)

    with Journal(log_path) as journal:  # closed and reopened: only the file remains
        history = journal.history()
        wide_budget = len(request_bytes(SCENARIO_SYSTEM, history, WIDE_QUESTION))
        wide = select(SCENARIO_SYSTEM, history, WIDE_QUESTION, wide_budget)
        mandatory = len(request_bytes(SCENARIO_SYSTEM, [], WIDE_QUESTION))
        before = log_path.read_bytes()
        try:
            select(SCENARIO_SYSTEM, history, WIDE_QUESTION, mandatory - 1)
            rejected = False
        except BudgetError:
            rejected = True
        rejected_preserved = rejected and log_path.read_bytes() == before

    fact = OLD_FACT.encode("utf-8")
    return {
        "narrow_request_bytes": narrow.size,
        "narrow_kept_turns": narrow.kept,
        "old_fact_in_narrow_request": fact in narrow.payload,
        "projection_preserved_file_bytes": projection_preserved,
        "reopened_turns": len(history),
        "wide_request_bytes": wide.size,
        "old_fact_in_wide_request": fact in wide.payload,
        "rejected_request_preserved_file_bytes": rejected_preserved,
    }


# --- Notebook 08: the scenario's journal with facts pinned, and what a deletion leaves ----

def pinned_journal(path: str | os.PathLike[str]) -> Journal:
    """A new journal at ``path`` holding the scenario's two turns and ``PINNED_FACTS``, open."""
    journal = Journal(path)
    for turn_id, turn in SCENARIO_TURNS:
        journal.commit(turn_id, turn.question, turn.answer)
    for fact in PINNED_FACTS:
        journal.pin(fact.id, fact.text, origin=fact.origin)
    return journal


def _decoded_lines(data: bytes) -> list[bytes]:
    """The base64 payload of every line that decodes, whatever record it holds."""
    decoded = []
    for line in data.splitlines():
        try:
            decoded.append(base64.b64decode(line.split(b" ")[0], validate=True))
        except (binascii.Error, ValueError):
            continue
    return decoded


def trace(directory: str | os.PathLike[str], text: str) -> dict[str, bool]:
    """For each file in ``directory``: is ``text`` in its bytes or in any line decoded?

    True or False only, never the text: what a check that a deletion left no trace
    may show. ``text`` is looked for as UTF-8 and as JSON writes it (for ASCII text
    without quotes or backslashes the two are the same).
    """
    needle = text.encode("utf-8")
    found = {}
    for path in sorted(Path(directory).iterdir()):
        if path.is_file():
            data = path.read_bytes()
            found[path.name] = needle in data or any(needle in line
                                                     for line in _decoded_lines(data))
    return found


# --- Evidence directories: what `ledgerlab-course scenario` writes and `audit` checks ----
LOG_NAME, REPORT_NAME, MANIFEST_NAME = "conversation.log", "projection.json", "manifest.json"
EVIDENCE = (LOG_NAME, REPORT_NAME)  # the files the manifest hashes


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_evidence(directory: str | os.PathLike[str], version: str) -> dict[str, object]:
    """Run the scenario into a new directory: the log, the report, a manifest of hashes."""
    directory = Path(directory)
    directory.mkdir(parents=True)  # refuses an existing directory
    report = run_projection_scenario(directory / LOG_NAME)
    (directory / REPORT_NAME).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    manifest = {
        "ledgerlab_version": version,
        "files": {name: sha256_file(directory / name) for name in EVIDENCE},
    }
    (directory / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return report


def audit_evidence(directory: str | os.PathLike[str], version: str) -> list[str]:
    """Re-check an evidence directory without changing it; return the problems found.

    It passes only if it holds exactly the manifest and the files the scenario
    writes, all regular files, with the manifest's hashes, written by ``version``,
    and a report whose every value has the right type and value. Each check below
    adds its problems in this order, so a report lists them as the audit found them.
    """
    directory = Path(directory)
    try:
        names = set(os.listdir(directory))
    except OSError as error:
        return [f"cannot list the evidence directory: {error.strerror}"]
    problems = [f"{name!a} is not part of the evidence"
                for name in sorted(names - {MANIFEST_NAME, *EVIDENCE})]
    contents = _read_evidence(directory, problems)
    if MANIFEST_NAME not in contents:
        return problems
    files = _manifest_files(contents[MANIFEST_NAME], version, problems)
    problems += _hash_problems(contents, files)
    if any(name not in contents for name in EVIDENCE):
        return problems
    history = _log_history(contents[LOG_NAME], problems)
    report = _json_document(contents[REPORT_NAME], REPORT_NAME, problems)
    if report is _NOT_JSON:
        return problems
    if not isinstance(report, dict) or list(report) != list(REPORT_KEYS):
        return problems + [f"{REPORT_NAME}: keys are not the article's report keys"]
    return problems + _report_problems(report, history)


def _read_evidence(directory: Path, problems: list[str]) -> dict[str, bytes]:
    """The bytes of the manifest and of each evidence file that can be read as a regular file."""
    contents = {}
    for name in (MANIFEST_NAME, *EVIDENCE):
        try:
            contents[name] = _read_regular_file(directory / name)
        except OSError as error:
            problems.append(f"cannot read {name}: {error.strerror or error}")
    return contents


def _read_regular_file(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file itself, never a symlink's target."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(f"{path.name} is not a regular file (a symlink, a directory?)")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))  # it may have been swapped
    with open(fd, "rb") as file:
        return file.read()


def _manifest_files(data: bytes, version: str, problems: list[str]) -> object:
    """The manifest's ``files`` once its shape and version are checked; None if it has none."""
    manifest = _json_document(data, MANIFEST_NAME, problems)
    if manifest is _NOT_JSON:
        return None
    if not isinstance(manifest, dict) or sorted(manifest) != ["files", "ledgerlab_version"]:
        problems.append(f"{MANIFEST_NAME}: not an object of \"ledgerlab_version\" and \"files\"")
        return None
    if manifest["ledgerlab_version"] != version:
        problems.append(f"{MANIFEST_NAME}: ledgerlab_version is "
                        f"{manifest['ledgerlab_version']!r}, this is ledgerlab {version}")
    files = manifest["files"]
    if not isinstance(files, dict) or sorted(files) != sorted(EVIDENCE):
        problems.append(f"{MANIFEST_NAME}: \"files\" must list exactly {LOG_NAME} and "
                        f"{REPORT_NAME}")
    return files


def _hash_problems(contents: dict[str, bytes], files: object) -> list[str]:
    """Each evidence file read whose sha256 is not the one the manifest lists."""
    if not isinstance(files, dict):
        return []
    return [f"{name}: sha256 differs from the manifest" for name in EVIDENCE
            if name in contents and files.get(name) != hashlib.sha256(contents[name]).hexdigest()]


def _log_history(data: bytes, problems: list[str]) -> list[Turn]:
    """The log's turns, every line verified; each line that does not verify is a problem."""
    history = []
    for line in examine(data):
        if line.problem is not None:
            problems.append(f"{LOG_NAME} line {line.number} at byte offset {line.offset}: "
                            f"{line.problem}")
        else:
            history.append(line.record.turn)
    return history


_NOT_JSON = object()


def _json_document(data: bytes, name: str, problems: list[str]) -> object:
    """Parse one evidence JSON file; if it is not JSON, a problem (never a traceback)."""
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        problems.append(f"{name}: not a JSON document ({type(error).__name__})")
        return _NOT_JSON


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("duplicate key")
    return dict(pairs)


def _report_problems(report: dict, history: list[Turn]) -> list[str]:
    """Recompute the projections from the log and compare them with the report."""
    if len(history) != 3:
        return [f"{LOG_NAME} holds {len(history)} valid turns; the scenario leaves 3"]
    fact = OLD_FACT.encode("utf-8")
    narrow = select(SCENARIO_SYSTEM, history[:2], NEXT_STEP_QUESTION, narrow_budget(history))
    wide = request_bytes(SCENARIO_SYSTEM, history, WIDE_QUESTION)
    expected = {
        "narrow_request_bytes": narrow.size,
        "narrow_kept_turns": narrow.kept,
        "old_fact_in_narrow_request": fact in narrow.payload,
        "projection_preserved_file_bytes": True,
        "reopened_turns": len(history),
        "wide_request_bytes": len(wide),
        "old_fact_in_wide_request": fact in wide,
        "rejected_request_preserved_file_bytes": True,
    }
    # Types too: JSON's true, 1 and 1.0 all compare equal in Python.
    problems = [
        f"{REPORT_NAME}: {key} is {report[key]!r}, the log gives {value!r}"
        for key, value in expected.items()
        if type(report[key]) is not type(value) or report[key] != value
    ]
    # The article's claim itself: trimmed from the narrow request, back in the wide one.
    if report["old_fact_in_narrow_request"] or not report["old_fact_in_wide_request"]:
        problems.append(f"{REPORT_NAME}: the old fact does not return as the article shows")
    return problems
