"""Submissions as a learning platform exports them, matched to the roster by name.

Canvas's "Download Submissions" names each file ``<name>_<user id>_<attachment id>_<the
student's file name>``, ``<name>`` being the student's sortable name ("Lovelace, Ada")
lowercased with every character that is not a letter, digit or _ removed, and ``LATE``
before the user id for a late one (``get_filename`` and ``add_upload_submission`` in
Canvas's ``lib/content_zipper.rb``). Moodle's "Download all submissions" names a folder
per student, ``<full name>_<participant id>_assignsubmission_file`` (the student's files
inside), or with "Download submissions in folders" off a file
``<full name>_<participant id>_assignsubmission_file_<file name>`` (``get_student_prefix``
and ``load_submissionplugin_filelist`` in Moodle's ``mod/assign/classes/downloader.php``).

A name is matched on its letters alone, accents dropped and case folded, in any order of
its words (Canvas puts the family name first): ``lovelaceada`` is Ada Lovelace,
``Zoë Ní Bhriain`` is zoe-ni-bhriain. A name that matches no student, or two, is not
guessed: the file is listed for the teacher. ``collect`` copies each matched notebook to
``<file name>.ipynb``, which is how grading files it, and keeps the platform's id of each
student in ``collected.json`` for the gradebook files.
"""

from __future__ import annotations

import json
import re
import shutil
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from . import atomic, roster
from ledgerlab.console import printable

COLLECTED_FILE = "collected.json"
MAX_FILE_BYTES = 5 * 1024**2  # as judge.MAX_NOTEBOOK_BYTES: a larger file is not graded anyway
MAX_FILES = 20_000  # entries of an export read at most

MOODLE_FILE = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_[a-z]+_(?P<original>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_[a-z]+$")
CANVAS = re.compile(r"^(?P<name>.+?)(?:[_ -]late)?_(?P<id>\d+)_(?P<attachment>\d+)_(?P<original>.+)$",
                    re.IGNORECASE)


class CollectError(ValueError):
    """The export cannot be collected where asked; nothing was written."""


@dataclass(frozen=True)
class Source:
    """One file of an export: who the platform says it is from, and under which id."""

    path: str  # inside the export, as one visible line
    platform: str  # "canvas", "moodle" or "plain"
    name: str  # the name as the platform wrote it
    lms_id: str  # Canvas's user id or Moodle's participant id; "" for a plain file
    order: int  # the later of two files of one student has the larger


def source(path: str) -> Source:
    """What an export's file name says of its student (``path``: its place in the export,
    parts separated by /)."""
    parts = [part for part in path.split("/") if part]
    base = parts[-1] if parts else ""
    for candidate in reversed(parts[:-1]):  # Moodle's folder per student
        found = MOODLE_FOLDER.match(candidate)
        if found:
            return Source(path, "moodle", found["name"], found["id"], 0)
    found = MOODLE_FILE.match(base)
    if found:
        return Source(path, "moodle", found["name"], found["id"], 0)
    found = CANVAS.match(base)
    if found:
        return Source(path, "canvas", found["name"], found["id"], int(found["attachment"]))
    return Source(path, "plain", re.sub(r"\.ipynb$", "", base, flags=re.IGNORECASE), "", 0)


def letters(text: str) -> str:
    """``text``'s letters and digits alone, case folded and without accents: what a name is
    matched on, whatever a platform did to its spaces, commas and case."""
    return "".join(char for char in unicodedata.normalize("NFKD", text.casefold())
                   if char.isalnum())


def _forms(files) -> dict[str, set[str]]:
    """letters -> the roster's file names whose words, in some rotation, spell them."""
    forms: dict[str, set[str]] = {}
    for file in files:
        words = file.split("-")
        for start in range(len(words)):
            forms.setdefault(letters("".join(words[start:] + words[:start])), set()).add(file)
    return forms


def match(name: str, files) -> tuple[str | None, str]:
    """The roster file name (of ``files``) that ``name`` is, and ""; or None, and why not."""
    files = set(files)
    plain = roster.file_name(name)
    if plain in files:
        return plain, ""
    found = _forms(files).get(letters(name), set())
    if len(found) == 1:
        return found.pop(), ""
    if found:
        return None, f"its name matches {len(found)} students: not guessed"
    return None, "its name matches no student on the roster"


def filed_under(file_name: str, files) -> str | None:
    """The roster file name a submission's file name (as Canvas or Moodle exports it, or
    plain) is filed under, or None."""
    return match(source(file_name).name, files)[0]


# --- Collecting an export ---------------------------------------------------------------

@dataclass
class Collected:
    """What ``collect`` did: each student's file, and every other file with why."""

    files: dict[str, Source] = field(default_factory=dict)  # roster file name -> its source
    unmatched: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    def as_json(self) -> dict:
        return {"students": {file: {"source": found.path, "platform": found.platform,
                                    "id": found.lms_id} for file, found in self.files.items()},
                "unmatched": [{"source": path, "why": why} for path, why in self.unmatched]}


def _entries(export: Path):
    """(path inside the export, size, a function that reads it) for each file of a folder
    or a zip file; never follows a link out of a folder."""
    if export.is_file() and zipfile.is_zipfile(export):
        archive = zipfile.ZipFile(export)
        for info in archive.infolist()[:MAX_FILES]:
            if not info.is_dir():
                yield (info.filename.replace("\\", "/"), info.file_size,
                       lambda info=info: archive.read(info))
        return
    if not export.is_dir():
        raise CollectError(f"{printable(str(export))} is neither a folder nor a zip file")
    for number, path in enumerate(sorted(export.rglob("*"))):
        if number >= MAX_FILES:
            break
        if path.is_file() and not path.is_symlink():
            yield (path.relative_to(export).as_posix(), path.stat().st_size, path.read_bytes)


def collect(export: Path, students: dict[str, dict[str, str]], out: Path) -> Collected:
    """Copy each notebook of ``export`` (a folder or a zip file as a platform gives it) whose
    name matches one student of ``students`` (roster file name -> {"name", "key"}) to
    ``out/<file name>.ipynb``; ``out/collected.json`` says where each came from and lists
    every other file with why. ``out`` is written whole, or not at all."""
    out = Path(out)
    if out.exists() and not (out.is_dir() and (not any(out.iterdir())
                                               or (out / COLLECTED_FILE).is_file())):
        raise CollectError(f"{printable(str(out))} exists and is not an earlier collection: "
                           f"choose a new or empty folder (nothing was changed)")
    collected, chosen = Collected(), {}
    files = set(students)
    for path, size, read in _entries(Path(export)):
        shown = printable(path)
        if not path.lower().endswith(".ipynb"):
            collected.unmatched.append((shown, "not a notebook (.ipynb)"))
            continue
        if size > MAX_FILE_BYTES:
            collected.unmatched.append((shown, f"larger than {MAX_FILE_BYTES // 1024**2} MiB"))
            continue
        found = source(path)
        file, why = match(found.name, files)
        if file is None:
            collected.unmatched.append((shown, why))
            continue
        found = Source(shown, found.platform, found.name, found.lms_id, found.order)
        if file in chosen:  # the later upload counts; the other is listed
            earlier, later = sorted([chosen[file], (found, read)], key=lambda pair: pair[0].order)
            collected.unmatched.append((earlier[0].path, f"another file of {file}'s, an earlier "
                                                         f"one: not used"))
            chosen[file] = later
        else:
            chosen[file] = (found, read)
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    building = atomic.temp_folder(out.absolute())
    try:
        for file, (found, read) in sorted(chosen.items()):
            (building / f"{file}.ipynb").write_bytes(read())
            collected.files[file] = found
        (building / COLLECTED_FILE).write_text(
            json.dumps(collected.as_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        atomic.swap_in(building, out.absolute())
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return collected


def read_collected(submissions: Path) -> dict:
    """``collected.json`` of a folder ``collect`` wrote: {"students": {file: {"source",
    "platform", "id"}}, "unmatched": [...]}, or empty lists for any other folder."""
    path = Path(submissions) / COLLECTED_FILE
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"students": {}, "unmatched": []}
    students = found.get("students") if isinstance(found, dict) else None
    unmatched = found.get("unmatched") if isinstance(found, dict) else None
    return {"students": {file: entry for file, entry in students.items()
                         if isinstance(entry, dict) and all(isinstance(entry.get(key), str)
                                                            for key in ("source", "platform", "id"))}
            if isinstance(students, dict) else {},
            "unmatched": [entry for entry in unmatched if isinstance(entry, dict)
                          and isinstance(entry.get("source"), str) and isinstance(entry.get("why"), str)]
            if isinstance(unmatched, list) else []}
