"""Writing a run's outputs whole or not at all, under temporary names that never grow.

A grading run writes several files and a folder of pages; an assignment build, a folder
tree. Each is made beside its final place under a temporary name of a fixed length (a
name built from a student's file name could pass the 255 bytes a file name may have),
and renamed into place only once all of it is written. The folder it replaces is
removed last, after the new one is in its place.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = ".ledgerlab-"
_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once, at import: the umask can only be read by setting it


def temp_folder(beside: Path) -> Path:
    """A new empty folder in ``beside``'s folder, to be renamed to ``beside`` by
    ``swap_in``: with the mode ``mkdir`` gives, not ``mkdtemp``'s 0700."""
    temp = Path(tempfile.mkdtemp(prefix=PREFIX, dir=Path(beside).parent))
    temp.chmod(0o777 & ~_UMASK)
    return temp


def _temp_file(folder: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=PREFIX, suffix=".tmp", dir=folder)
    os.close(fd)
    temp = Path(name)
    temp.chmod(0o666 & ~_UMASK)  # as open would make it, not mkstemp's 0600
    return temp


def remove(temp: Path) -> None:
    """Remove a temporary file or folder, if it is still there."""
    if temp.is_dir() and not temp.is_symlink():
        shutil.rmtree(temp, ignore_errors=True)
    else:
        temp.unlink(missing_ok=True)


def swap_in(temp: Path, final: Path) -> None:
    """Rename ``temp`` to ``final``; a folder already at ``final`` is moved aside first and
    removed only once ``temp`` has its place."""
    if final.is_dir() and not final.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=PREFIX, dir=final.parent))
        try:
            os.replace(final, old)
        except BaseException:
            old.rmdir()
            raise
        try:
            os.replace(temp, final)
        except BaseException:
            os.replace(old, final)  # the earlier folder back in its place
            raise
        shutil.rmtree(old)
    else:
        os.replace(temp, final)


def write_all(files: dict[Path, str], folders: dict[Path, dict[str, str]]) -> None:
    """Each of ``files`` holds its text and each of ``folders`` holds exactly its pages
    (name -> text), or, if anything fails before they are all ready, nothing has changed
    and no temporary file is left."""
    made: list[tuple[Path, Path]] = []  # (temporary, final)
    try:
        for folder, pages in folders.items():
            folder.parent.mkdir(parents=True, exist_ok=True)
            made.append((temp_folder(folder), folder))
            for name, text in pages.items():
                (made[-1][0] / name).write_text(text, encoding="utf-8")
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            made.append((_temp_file(path.parent), path))
            made[-1][0].write_text(text, encoding="utf-8")
    except BaseException:
        for temp, _ in made:
            remove(temp)
        raise
    try:
        for done, (temp, final) in enumerate(made):
            swap_in(temp, final)
    except BaseException:  # a rename refused: what is not in place yet is not left behind
        for temp, _ in made[done:]:
            remove(temp)
        raise
