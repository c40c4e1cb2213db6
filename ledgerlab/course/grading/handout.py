"""Handing out a class's assignment: one zip archive per student.

``make assignment`` builds each student's course in ``students/<file name>/``. Each
archive holds that folder, the package's wheel if the teacher gives one, and a
``README.txt`` with what to run: the install command with the course extra (``[course]``:
JupyterLab, ipywidgets, pandas, matplotlib and what the exercises import), then
``jupyter lab``, and the file name to hand the exercises in under. An archive is the same
bytes for the same build (fixed dates, sorted entries), so a rebuilt hand-out can be
compared with the one sent.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

from ledgerlab.console import printable

from . import atomic, roster
from .editions import BUILD_MARK, EXERCISES_NOTEBOOK
from .files import path_argument

HANDOUT_MARK = ".ledgerlab-handout"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no build time in the bytes


class HandoutError(ValueError):
    """The hand-out cannot be made as asked; nothing was written."""


def install_command(wheel: Path | None) -> str:
    """The command a student runs, in the unzipped folder, to install the package with the
    course extra: from the wheel handed out with it, or from the package index."""
    target = f"{path_argument(wheel, 'wheel').name}[course]" if wheel is not None \
        else "ledgerlab[course]"
    return f'python -m pip install "{target}"'


def readme(name: str, file: str, wheel: Path | None) -> str:
    return "\n".join([
        f"LedgerLab: the course, with exercises of your own ({name})",
        "",
        "1. In a new virtual environment (python -m venv .venv, then activate it), install",
        "   the package with the course extra, from this folder:",
        "",
        f"       {install_command(wheel)}",
        "",
        "2. Open the course in this folder:",
        "",
        "       jupyter lab",
        "",
        f"3. Work through {EXERCISES_NOTEBOOK} (the exercises are your own) and hand it in as",
        f"   {file}.ipynb: it is graded on the exercises of the name it is handed in under.",
        "",
    ])


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def hand_out(build: Path, out: Path, wheel: Path | None = None) -> list[Path]:
    """``out/<file name>.zip`` for each student of the assignment built in ``build`` (with a
    roster), or ``out/student.zip`` for one built without. ``out`` is new, empty or an
    earlier hand-out, and is written whole or not at all."""
    build, out = path_argument(build, "build"), path_argument(out, "out")
    wheel = None if wheel is None else path_argument(wheel, "wheel")
    if not build.is_dir():
        what = "is not a folder" if build.exists() else "does not exist"
        raise HandoutError(f"{printable(str(build))} {what}: name the folder make assignment "
                           f"built (nothing was written)")
    if not (build / BUILD_MARK).is_file():
        raise HandoutError(f"{printable(str(build))} is not a folder make assignment built (it "
                           f"has no {BUILD_MARK}): name the one it built (nothing was written)")
    students = roster.read_students(build / "autograder")
    if students is not None:
        folders = {file: (entry["name"], build / "students" / file)
                   for file, entry in students.items()}
    else:
        folders = {"student": ("the self-paced edition's", build / "student")}
    lacking = [file for file, (_, folder) in folders.items()
               if not (folder / EXERCISES_NOTEBOOK).is_file()]
    if lacking:  # counted, not named: the build is the teacher's to look at
        raise HandoutError(f"{len(lacking)} of the build's {len(folders)} student folders have no "
                           f"{EXERCISES_NOTEBOOK}: run make assignment first (nothing was written)")
    if wheel is not None and not (wheel.is_file() and wheel.suffix == ".whl"):
        raise HandoutError(f"{printable(str(wheel))} is not a wheel (.whl): build one with pip wheel --no-deps .")
    if out.exists() and not (out.is_dir() and (not any(out.iterdir())
                                               or (out / HANDOUT_MARK).is_file())):
        raise HandoutError(f"{printable(str(out))} exists and is not an earlier hand-out: choose a new or empty "
                           f"folder (nothing was changed)")
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    building = atomic.temp_folder(out.absolute())
    try:
        (building / HANDOUT_MARK).write_text("written by python -m ledgerlab.course.grading handout\n")
        for file, (name, folder) in sorted(folders.items()):
            with zipfile.ZipFile(building / f"{file}.zip", "w") as archive:
                for path in sorted(folder.rglob("*")):
                    if path.is_file():
                        _add(archive, f"{file}/{path.relative_to(folder).as_posix()}",
                             path.read_bytes())
                if wheel is not None:
                    _add(archive, f"{file}/{wheel.name}", wheel.read_bytes())
                _add(archive, f"{file}/README.txt", readme(name, file, wheel)
                     .encode("utf-8"))
        atomic.swap_in(building, out.absolute())
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return [out / f"{file}.zip" for file in sorted(folders)]
