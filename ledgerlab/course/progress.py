"""A learner's progress: which predictions, quizzes and exercises they have checked, and
whether the last check was right (Kaggle Learn's progress is the model).

Each ``check()`` a learner runs in a notebook records the question's id, right or not, and
the time, in ``.ledgerlab-progress.json`` in the notebook's own folder (the kernel's working
folder): the learner's folder, on their machine; nothing is sent anywhere. The answer itself
is never stored. Each ``hint()`` and ``solution()`` shown is counted too (``record_shown``),
so the table says where a learner looked before answering. ``00-contents`` shows the table
(``ledgerlab.course.contents``).

Recorded only where a learner answers, in a notebook's kernel: the grader judges answers in
its own plain Python process, and records nothing there. Off when ``LEDGERLAB_PROGRESS`` is
``off``, which the course's own runs set (``tools/run_notebooks.py``, nbval through
``notebooks/conftest.py``): then nothing is read or written, so 00's saved output is what a
fresh learner sees, whatever ran before it in the same folder.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

FILE = ".ledgerlab-progress.json"
SWITCH = "LEDGERLAB_PROGRESS"
VERSION = 1
# What a learner can be shown of a question, counted under "<kind>s": "hints", "solutions".
SHOWN = ("hint", "solution")


def enabled() -> bool:
    """Whether checks are recorded here: in a notebook's kernel, and not switched off."""
    if os.environ.get(SWITCH, "").strip().lower() == "off":
        return False
    shell = sys.modules.get("IPython")
    return shell is not None and shell.get_ipython() is not None


def path(folder: Path | None = None) -> Path:
    return (Path.cwd() if folder is None else Path(folder)) / FILE


class Progress:
    """What the file holds: each question id's entry, and a note on how it was read ("" when
    it was read whole or did not exist yet). An entry has the last check's outcome ("right",
    "at", "checks") once the question was checked, and "hints" and "solutions" once one was
    shown."""

    def __init__(self, answers: dict[str, dict], note: str = "") -> None:
        self.answers, self.note = answers, note


def load(folder: Path | None = None) -> Progress:
    """The recorded progress; a missing file is nothing answered yet, and so is a file that
    is not this format (its note says so, and the next check starts the file afresh)."""
    if os.environ.get(SWITCH, "").strip().lower() == "off":
        return Progress({})
    target = path(folder)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Progress({})
    except (OSError, UnicodeError, ValueError):
        return Progress({}, f"{FILE} could not be read; it starts afresh at your next check.")
    answers = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(answers, dict) or data.get("version") != VERSION:
        return Progress({}, f"{FILE} is not a progress file this course wrote; it starts "
                            f"afresh at your next check (the old file is kept as "
                            f"{FILE}.unreadable).")
    valid = {key: entry for key, entry in answers.items() if _valid(entry)}
    return Progress(valid)


def _valid(entry: object) -> bool:
    """An entry as ``record`` and ``record_shown`` write it: a check's outcome, a count of
    what was shown, or both; a count that is not a whole number is not one."""
    if not isinstance(entry, dict):
        return False
    counts = [entry[f"{kind}s"] for kind in SHOWN if f"{kind}s" in entry]
    if not all(type(count) is int and count >= 0 for count in counts):
        return False
    if "right" in entry or not counts:
        return isinstance(entry.get("right"), bool) and isinstance(entry.get("at"), str)
    return True


def checked(entry: dict | None) -> bool:
    """Whether an entry records a check (not only a hint or a solution shown)."""
    return entry is not None and "right" in entry


def record(item: str, right: bool, folder: Path | None = None, *,
           now: datetime | None = None) -> bool:
    """Record one check of ``item`` (its id, e.g. ``predict04_first``, ``quiz04[2]``, ``q3``).

    The file is rewritten whole through a temporary file and a rename, so a crash leaves the
    old file or the new one. A folder the learner cannot write to records nothing: a check
    is never stopped by its record. Returns whether it was recorded.
    """
    def checked_now(entry: dict) -> dict:
        checks = entry.get("checks")
        when = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
        return {**entry, "right": bool(right), "at": when,
                "checks": checks + 1 if isinstance(checks, int) else 1}
    return _update(item, checked_now, folder)


def record_shown(item: str, kind: str, folder: Path | None = None) -> bool:
    """Count one ``hint()`` or ``solution()`` (``kind``: "hint" or "solution") shown for
    ``item``, as ``record`` records a check: atomically, never stopping what showed it.
    Returns whether it was recorded."""
    if kind not in SHOWN:
        raise ValueError(f"kind must be one of {', '.join(SHOWN)}, not {kind!r}")
    key = f"{kind}s"
    return _update(item, lambda entry: {**entry, key: entry.get(key, 0) + 1}, folder)


def _update(item: str, change, folder: Path | None) -> bool:
    """Rewrite the file with ``item``'s entry changed (``change(entry) -> entry``)."""
    target = path(folder)
    known = load(folder)
    answers = known.answers
    if known.note:  # kept beside, not overwritten: the learner may want to look at it
        try:
            os.replace(target, target.with_name(FILE + ".unreadable"))
        except OSError:
            pass
    answers[item] = change(answers.get(item, {}))
    text = json.dumps({"version": VERSION, "answers": answers}, indent=1, sort_keys=True)
    try:
        fd, temp = tempfile.mkstemp(prefix=FILE + ".", suffix=".tmp", dir=target.parent)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(temp, target)
    except OSError:
        Path(temp).unlink(missing_ok=True)
        return False
    return True
