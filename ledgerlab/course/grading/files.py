"""What the grading commands are given: paths, and the teacher's files read through them.

A path argument is a str or an ``os.PathLike`` (a ``pathlib.Path``); anything else, bytes
too, is a TypeError that names the argument. A teacher's file (the roster, the secret,
``roster.json``) is read only when it is a regular file, a link to one followed, and at most
a stated size: a FIFO would wait for ever for a writer, and ``/dev/zero`` would fill the
memory. (A submission is read more strictly still: ``judge.read_notebook`` follows no link.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotRegularFile(ValueError):
    """The path names a FIFO, a device, a socket or a folder: it was not read."""


class FileTooLarge(ValueError):
    """The file holds more bytes than it may: it was not read past the limit."""


def path_argument(value: object, name: str) -> Path:
    """``value`` as a Path if it is a str or an os.PathLike naming a str; else a TypeError
    naming the argument and what it takes."""
    named = os.fspath(value) if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(named, str):
        raise TypeError(f"{name} must be a path, a str or a pathlib.Path, not "
                        f"{type(value).__name__}")
    return Path(named)


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (a link followed): NotRegularFile for
    anything else, checked before it is opened and again on what was opened (it may have
    been swapped), which is opened without waiting (a FIFO's open waits for a writer
    otherwise); FileTooLarge past ``limit`` bytes. An OSError (no such file, no
    permission) is raised as it is."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFile(path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise NotRegularFile(path)
        data = file.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(path)
    return data
