"""``autograder/assignment.json`` read back for grading, checked as ``roster.json`` is.

``make assignment`` writes it (``editions.build_assignment``): the exercises and their
points, and the time limits. A file edited by hand or damaged is refused with what is wrong,
by exercise number, before anything is graded or written.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..exercises import GRADED

MANIFEST_FILE = "assignment.json"
MAX_POINTS = 1_000  # per exercise
MAX_TIMEOUT = 24 * 3600  # seconds, for a cell or a notebook


class ManifestError(ValueError):
    """assignment.json cannot be used; nothing was graded or written."""


def _whole(value: object, most: int, least: int = 0) -> bool:
    return type(value) is int and least <= value <= most


def read_manifest(autograder: Path) -> dict:
    """The assignment's manifest: ``exercises`` (each a known exercise's ``name`` once, with
    whole ``points``), and ``cell_timeout`` and ``notebook_timeout`` if it sets them."""
    path = Path(autograder) / MANIFEST_FILE
    wrote = f"{MANIFEST_FILE} is not one that make assignment wrote"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"the autograder folder has no {MANIFEST_FILE}: build the "
                            f"assignment with make assignment") from None
    except OSError as error:
        raise ManifestError(f"cannot read {MANIFEST_FILE} ({error.strerror})") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ManifestError(f"{wrote}: it is not JSON") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("exercises"), list) \
            or not manifest["exercises"]:
        raise ManifestError(f"{wrote}: it has no list of exercises")
    seen = set()
    for number, entry in enumerate(manifest["exercises"], start=1):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or name not in GRADED:
            raise ManifestError(f"{wrote}: its entry {number} is not an exercise of the course")
        if name in seen:
            raise ManifestError(f"{wrote}: exercise {GRADED[name].number} is listed twice")
        if not _whole(entry.get("points"), MAX_POINTS):
            raise ManifestError(f"{wrote}: exercise {GRADED[name].number}'s points are not a "
                                f"whole number from 0 to {MAX_POINTS:,}")
        seen.add(name)
    for limit in ("cell_timeout", "notebook_timeout"):
        if limit in manifest and not _whole(manifest[limit], MAX_TIMEOUT, 1):
            raise ManifestError(f"{wrote}: its {limit} is not a whole number of seconds from 1 "
                                f"to {MAX_TIMEOUT:,}")
    return manifest
