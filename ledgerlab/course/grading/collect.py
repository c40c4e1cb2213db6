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
student in ``collected.json`` for the gradebook files, with whether the platform marked the
file late: Canvas's names say it (``LATE``, or nothing for a file on time); Moodle's say
nothing of it, so its lateness is unknown (``None``) unless the teacher gives Moodle's
grading worksheet, whose Status column says it (``moodle_lateness``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import unicodedata
import zipfile
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from . import atomic, roster
from .files import FileTooLarge, NotRegularFile, path_argument, read_regular
from ledgerlab.console import printable

COLLECTED_FILE = "collected.json"
MAX_FILE_BYTES = 5 * 1024**2  # as judge.MAX_NOTEBOOK_BYTES: a larger file is not graded anyway
# Entries of an export read at most: a larger one is refused whole, never read in part (a
# student after the cap would be reported as having handed nothing in). The roster's 5,000
# students with a Moodle folder, a notebook and a few other files each stay well below it.
MAX_FILES = 100_000
TOO_LARGE = f"larger than {MAX_FILE_BYTES // 1024**2} MiB"
UTF8_NAME = 0x800  # bit 11 of a zip entry's flags: its name is UTF-8, not cp437

MOODLE_FILE = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_[a-z]+_(?P<original>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_[a-z]+$")
# ``LATE`` (Canvas since 2020) or ``-late`` (before: spaces and punctuation as dashes).
CANVAS = re.compile(r"^(?P<name>.+?)(?P<late>[_ -]late)?_(?P<id>\d+)_(?P<attachment>\d+)_(?P<original>.+)$",
                    re.IGNORECASE)


class CollectError(ValueError):
    """The export cannot be collected where asked; nothing was written."""


# --- Moodle's grading worksheet: the lateness its file names do not give -----------------

MAX_WORKSHEET_BYTES = 16 * 1024**2  # a row a student: 5,000 rows of a few hundred bytes
# Moodle's Status cell, downloaded, is its parts joined by " - " (``col_status`` in
# mod/assign/gradingtable.php): "Submitted for grading - 2 days 3 hours late - Graded". In
# English, a late file's has "<time> late" (the string ``submittedlateshort``); a status
# without one of English's own words is in another language, and its lateness is not read.
MOODLE_LATE = re.compile(r"\blate\b")
MOODLE_ENGLISH = ("Submitted for grading", "Draft (not submitted)", "No submission",
                  "Reopened", "Graded", "Not graded")


def moodle_lateness(worksheet: object) -> dict[str, bool | None]:
    """{participant id: late?} from Moodle's grading worksheet (the assignment's "Download
    grading worksheet", a CSV with its ``Identifier`` "Participant <id>" and ``Status``
    columns): True or False where the Status is in English, None where it is not. Only a
    regular file of at most MAX_WORKSHEET_BYTES is read; CollectError for anything else."""
    path = path_argument(worksheet, "worksheet")
    try:
        text = read_regular(path, MAX_WORKSHEET_BYTES).decode("utf-8-sig")
    except NotRegularFile:
        raise CollectError("the Moodle worksheet is not a regular file (a folder, a pipe or a "
                           "device): it is the CSV Moodle's \"Download grading worksheet\" "
                           "gives") from None
    except FileTooLarge:
        raise CollectError(f"the Moodle worksheet is larger than {MAX_WORKSHEET_BYTES:,} bytes: "
                           f"it is one row a student") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CollectError(f"cannot read the Moodle worksheet ({type(error).__name__}): it is "
                           f"the CSV Moodle's \"Download grading worksheet\" gives, in UTF-8") from None
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error:
        rows = None
    if not rows or not {"Identifier", "Status"} <= set(rows[0]):
        raise CollectError("the Moodle worksheet has no Identifier and Status columns: it is "
                           "the CSV Moodle's \"Download grading worksheet\" gives")
    late: dict[str, bool | None] = {}
    for row in rows:
        found = re.fullmatch(r"Participant (\d+)", (row.get("Identifier") or "").strip())
        status = row.get("Status") or ""
        if found:
            english = any(word in status for word in MOODLE_ENGLISH)
            late[found[1]] = bool(MOODLE_LATE.search(status)) if english else None
    return late


@dataclass(frozen=True)
class Source:
    """One file of an export: who the platform says it is from, and under which id."""

    path: str  # inside the export, as one visible line
    platform: str  # "canvas", "moodle" or "plain"
    name: str  # the name as the platform wrote it
    lms_id: str  # Canvas's user id or Moodle's participant id; "" for a plain file
    order: int  # the later of two files of one student has the larger
    # Whether the platform marked it late: True or False from Canvas's name; None where the
    # name does not say (Moodle's, a plain file).
    late: bool | None = None


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
        return Source(path, "canvas", found["name"], found["id"], int(found["attachment"]),
                      late=found["late"] is not None)
    return Source(path, "plain", re.sub(r"\.ipynb$", "", base, flags=re.IGNORECASE), "", 0)


def letters(text: str) -> str:
    """``text``'s letters and digits alone, case folded and without accents: what a name is
    matched on, whatever a platform did to its spaces, commas and case."""
    return "".join(char for char in unicodedata.normalize("NFKD", text.casefold())
                   if char.isalnum())


@lru_cache(maxsize=4)  # one roster, matched against every file of an export
def _forms(files: frozenset[str]) -> dict[str, frozenset[str]]:
    """letters -> the roster's file names whose words, in some rotation, spell them."""
    forms: dict[str, set[str]] = {}
    for file in files:
        words = file.split("-")
        for start in range(len(words)):
            forms.setdefault(letters("".join(words[start:] + words[:start])), set()).add(file)
    return {spelt: frozenset(found) for spelt, found in forms.items()}


def match(name: str, files) -> tuple[str | None, str]:
    """The roster file name (of ``files``) that ``name`` is, and ""; or None, and why not."""
    files = frozenset(files)
    plain = roster.file_name(name)
    if plain in files:
        return plain, ""
    found = _forms(files).get(letters(name), frozenset())
    if len(found) == 1:
        return next(iter(found)), ""
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
    # Students whose every file cannot be read: roster file name -> why (the files are in
    # ``unmatched`` too). Grading says so, not that they handed nothing in.
    unreadable: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"students": {file: {"source": found.path, "platform": found.platform,
                                    "id": found.lms_id, "late": found.late}
                             for file, found in self.files.items()},
                "unmatched": [{"source": path, "why": why} for path, why in self.unmatched],
                "unreadable": self.unreadable}


class Unreadable(Exception):
    """One file of an export cannot be read (damaged, encrypted): that file is listed for the
    teacher, and every other one is collected."""


def zip_name(info: zipfile.ZipInfo) -> str:
    """A zip entry's name as its writer meant it, parts separated by /. Without the UTF-8
    flag zipfile decodes a name as cp437, but Info-ZIP's zip and rubyzip (Canvas's) write a
    UTF-8 name's bytes without setting the flag: ``níbhriainzoë`` came out
    ``n├¡bhriainzo├½`` and matched no student. So a name whose bytes are valid UTF-8 is read
    as UTF-8 (cp437 maps each byte to one character, so its bytes are found again exactly)."""
    name = info.filename
    if not info.flag_bits & UTF8_NAME:
        try:
            name = name.encode("cp437").decode("utf-8")
        except UnicodeError:  # not UTF-8: a name in cp437 indeed, as zipfile read it
            pass
    return name.replace("\\", "/")


def _zip_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo):
    def read() -> bytes:
        if info.flag_bits & 0x1:  # bit 0: encrypted
            raise Unreadable("encrypted in the zip file")
        try:
            with archive.open(info) as member:
                return member.read(MAX_FILE_BYTES + 1)  # its size as the archive says, at most
        except NotImplementedError:
            raise Unreadable("compressed in a way Python cannot read") from None
        except Exception as error:  # zlib.error, BadZipFile (Bad CRC-32), EOFError, ...
            kind = type(error)
            named = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__name__}"
            raise Unreadable(f"damaged in the zip file ({named})") from None
    return read


def _file_reader(path: Path):
    def read() -> bytes:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with open(fd, "rb") as file:
                return file.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise Unreadable(f"cannot be read ({error.strerror or type(error).__name__})") from None
    return read


def _too_many(export: Path, count: str) -> CollectError:
    return CollectError(f"{printable(str(export))} holds {count} entries, more than the "
                        f"{MAX_FILES:,} collect reads: nothing was collected (unzip it and keep "
                        f"only the notebooks, or split it)")


def _entries(export: Path):
    """(path inside the export, size, a function that reads it, at most MAX_FILE_BYTES + 1
    bytes, or raises Unreadable) for each file of a folder or a zip file; never follows a
    link out of a folder. CollectError for an export of more than MAX_FILES entries, before
    any is read."""
    if export.is_file() and zipfile.is_zipfile(export):
        try:
            archive = zipfile.ZipFile(export)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
            raise CollectError(f"{printable(str(export))} is a damaged zip file "
                               f"({type(error).__name__}): nothing was collected") from None
        infos = archive.infolist()
        if len(infos) > MAX_FILES:
            raise _too_many(export, f"{len(infos):,}")
        return [(zip_name(info), info.file_size, _zip_reader(archive, info))
                for info in infos if not info.is_dir()]
    if not export.is_dir():
        raise CollectError(f"{printable(str(export))} is neither a folder nor a zip file")
    paths = []
    for path in export.rglob("*"):
        paths.append(path)
        if len(paths) > MAX_FILES:
            raise _too_many(export, "more")
    return [(path.relative_to(export).as_posix(), path.stat().st_size, _file_reader(path))
            for path in sorted(paths) if path.is_file() and not path.is_symlink()]


def collect(export: Path, students: dict[str, dict[str, str]], out: Path,
            moodle_late: dict[str, bool | None] | None = None) -> Collected:
    """Copy each notebook of ``export`` (a folder or a zip file as a platform gives it) whose
    name matches one student of ``students`` (roster file name -> {"name", "key"}) to
    ``out/<file name>.ipynb``; ``out/collected.json`` says where each came from and lists
    every other file with why, a file that cannot be read among them (the student's earlier
    file, if any, is used instead). ``moodle_late`` (``moodle_lateness``) says which of
    Moodle's files were late. ``out`` is written whole, or not at all."""
    out = Path(out)
    if out.exists() and not (out.is_dir() and (not any(out.iterdir())
                                               or (out / COLLECTED_FILE).is_file())):
        raise CollectError(f"{printable(str(out))} exists and is not an earlier collection: "
                           f"choose a new or empty folder (nothing was changed)")
    collected = Collected()
    files = frozenset(students)
    uploads: dict[str, list[tuple[Source, int, object]]] = {}  # file -> (source, place, read)
    for place, (path, size, read) in enumerate(_entries(Path(export))):
        shown = printable(path)
        if not path.lower().endswith(".ipynb"):
            collected.unmatched.append((shown, "not a notebook (.ipynb)"))
            continue
        if size > MAX_FILE_BYTES:
            collected.unmatched.append((shown, TOO_LARGE))
            continue
        found = source(path)
        file, why = match(found.name, files)
        if file is None:
            collected.unmatched.append((shown, why))
            continue
        if found.platform == "moodle" and moodle_late:
            found = replace(found, late=moodle_late.get(found.lms_id))
        found = replace(found, path=shown)
        uploads.setdefault(file, []).append((found, place, read))
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    building = atomic.temp_folder(out.absolute())
    try:
        for file, tried in sorted(uploads.items()):
            # The later upload counts (of two alike, the later in the export); one that cannot
            # be read is listed, and the one before it used.
            for found, _, read in sorted(tried, key=lambda upload: (upload[0].order, upload[1]),
                                         reverse=True):
                if file in collected.files:
                    collected.unmatched.append((found.path, f"another file of {file}'s, an "
                                                            f"earlier one: not used"))
                    continue
                try:
                    data = read()
                    if len(data) > MAX_FILE_BYTES:  # grown since its size was read
                        raise Unreadable(TOO_LARGE)
                except Unreadable as error:
                    collected.unmatched.append((found.path, str(error)))
                    collected.unreadable[file] = str(error)
                    continue
                (building / f"{file}.ipynb").write_bytes(data)
                collected.files[file] = found
                collected.unreadable.pop(file, None)
        (building / COLLECTED_FILE).write_text(
            json.dumps(collected.as_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        atomic.swap_in(building, out.absolute())
    except OSError as error:
        shutil.rmtree(building, ignore_errors=True)
        raise CollectError(f"cannot write {printable(str(out))} ({error.strerror or error}): "
                           f"nothing was changed") from None
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return collected


def read_collected(submissions: Path) -> dict:
    """``collected.json`` of a folder ``collect`` wrote: {"students": {file: {"source",
    "platform", "id", "late"}}, "unmatched": [...], "unreadable": {file: why}}, or empty ones
    for any other folder. "late" is True, False or None (not said, or a collection made
    before lateness was kept)."""
    path = Path(submissions) / COLLECTED_FILE
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = None
    if not isinstance(found, dict):
        found = {}
    students, unmatched, unreadable = (found.get(key) for key in
                                       ("students", "unmatched", "unreadable"))
    return {"students": {file: {**entry, "late": entry.get("late")
                                if isinstance(entry.get("late"), bool) else None}
                         for file, entry in students.items()
                         if isinstance(entry, dict) and all(isinstance(entry.get(key), str)
                                                            for key in ("source", "platform", "id"))}
            if isinstance(students, dict) else {},
            "unmatched": [entry for entry in unmatched if isinstance(entry, dict)
                          and isinstance(entry.get("source"), str) and isinstance(entry.get("why"), str)]
            if isinstance(unmatched, list) else [],
            "unreadable": {file: why for file, why in unreadable.items() if isinstance(why, str)}
            if isinstance(unreadable, dict) else {}}


def submitted_as(submission: str, collected: dict) -> Source:
    """What the platform said of a graded file (``submission``, its name in the folder
    graded): ``collect``'s record of it, for a file collect wrote (``<file name>.ipynb``;
    ``collected`` is ``read_collected``'s); else what its own name says, so that a Canvas or
    Moodle download graded as it is keeps its student's id and its lateness too."""
    file = re.sub(r"\.ipynb$", "", submission, flags=re.IGNORECASE)
    entry = collected.get("students", {}).get(file)
    if entry is not None and submission == f"{file}.ipynb":
        return Source(entry["source"], entry["platform"], file, entry["id"], 0, entry["late"])
    return source(submission)
