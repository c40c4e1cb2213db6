"""The article's fixtures, and the projection scenario where ledger and selector meet.

Everything the course teaches comes from here, so the notebooks, the tests and
the CLI all measure the same data.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from .journal import Journal, examine
from .selector import BudgetError, select
from .wire import Turn, messages, request_bytes

# --- The boundary fixture -------------------------------------------------------
BOUNDARY_SYSTEM = "只根据已知信息回答。"
BOUNDARY_QUESTION = "继续🙂"
BOUNDARY_HISTORY = (
    Turn("hello", "world"),
    Turn('接口 "是什么"', "Java\n接口"),
)
BOUNDARY_BUDGETS = (140, 235, 308, 408)
REJECTED_BUDGET = 139

# --- Bad slice vs whole-turn slice: U1 A1 | U2 A2 | U3 A3, then U4 ------------------
SLICE_SYSTEM = "SYSTEM"
SLICE_HISTORY = (Turn("U1", "A1"), Turn("U2", "A2"), Turn("U3", "A3"))
SLICE_QUESTION = "U4"

# --- The projection scenario ("can a trimmed fact return?") ----------------------
SCENARIO_SYSTEM = "Use only the supplied conversation."
SCENARIO_TURNS = (
    ("one", Turn("My project code is ORCHID-17.", "Recorded.")),
    ("two", Turn("I use Java 8.", "Use a Java 8 compatible client.")),
)
NEXT_STEP_QUESTION = "Explain the next step."
LOCAL_FIXTURE_REPLY = "Local fixture reply."  # a fixed local reply, not a model's answer
WIDE_QUESTION = "What project code did I provide?"
OLD_FACT = "ORCHID-17"

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


# --- Evidence directories: what `ledgerlab scenario` writes and `audit` checks ----
LOG_NAME, REPORT_NAME, MANIFEST_NAME = "conversation.log", "projection.json", "manifest.json"


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
        "files": {name: sha256_file(directory / name) for name in (LOG_NAME, REPORT_NAME)},
    }
    (directory / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return report


def audit_evidence(directory: str | os.PathLike[str], version: str) -> list[str]:
    """Re-check an evidence directory without changing it; return the problems found.

    It passes only if it holds exactly the manifest and the files the scenario
    writes, all regular files, with the manifest's hashes, written by ``version``,
    and a report whose every value has the right type and value.
    """
    directory = Path(directory)
    try:
        names = set(os.listdir(directory))
    except OSError as error:
        return [f"cannot list the evidence directory: {error.strerror}"]
    evidence = (LOG_NAME, REPORT_NAME)
    problems = [f"{name!a} is not part of the evidence"
                for name in sorted(names - {MANIFEST_NAME, *evidence})]
    contents = {}
    for name in (MANIFEST_NAME, *evidence):
        try:
            contents[name] = _read_regular_file(directory / name)
        except OSError as error:
            problems.append(f"cannot read {name}: {error.strerror or error}")
    if MANIFEST_NAME not in contents:
        return problems

    manifest = _json_document(contents[MANIFEST_NAME], MANIFEST_NAME, problems)
    if not isinstance(manifest, dict) or sorted(manifest) != ["files", "ledgerlab_version"]:
        if manifest is not _NOT_JSON:
            problems.append(
                f"{MANIFEST_NAME}: not an object of \"ledgerlab_version\" and \"files\"")
        manifest = {}
    if manifest and manifest["ledgerlab_version"] != version:
        problems.append(f"{MANIFEST_NAME}: ledgerlab_version is "
                        f"{manifest['ledgerlab_version']!r}, this is ledgerlab {version}")
    files = manifest.get("files")
    if manifest and (not isinstance(files, dict) or sorted(files) != sorted(evidence)):
        problems.append(f"{MANIFEST_NAME}: \"files\" must list exactly {LOG_NAME} and "
                        f"{REPORT_NAME}")
    for name in evidence:
        if name in contents and isinstance(files, dict) and files.get(name) != hashlib.sha256(
                contents[name]).hexdigest():
            problems.append(f"{name}: sha256 differs from the manifest")
    if any(name not in contents for name in evidence):
        return problems

    history = []
    for line in examine(contents[LOG_NAME]):
        if line.problem is not None:
            problems.append(f"{LOG_NAME} line {line.number} at byte offset {line.offset}: "
                            f"{line.problem}")
        else:
            history.append(line.record.turn)

    report = _json_document(contents[REPORT_NAME], REPORT_NAME, problems)
    if report is _NOT_JSON:
        return problems
    if not isinstance(report, dict) or list(report) != list(REPORT_KEYS):
        return problems + [f"{REPORT_NAME}: keys are not the article's report keys"]
    return problems + _report_problems(report, history)


def _read_regular_file(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file itself, never a symlink's target."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(f"{path.name} is not a regular file (a symlink, a directory?)")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))  # it may have been swapped
    with open(fd, "rb") as file:
        return file.read()


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
