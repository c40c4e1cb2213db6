"""The journal's files on disk: their names, the lock, and the writes a crash cannot tear.

- one writer: an open journal file is locked (flock on POSIX, through portalocker).
  Where the OS has no working flock (Pyodide: no ``fcntl.flock`` in 0.27, one that
  locks nothing in 314 and later), the lock is only a registry of the files this
  process's Journals hold: another process can then open the same file;
- a new file counts only once its directory is synced (``fsync_directory``);
- a rewrite writes the new file under a hidden name of its own (``rewrite_path``),
  and a leftover of a killed rewrite is removed only when provably one
  (``clear_leftover``);
- salvage's new file appears whole or not at all and never replaces one (``publish``).

This module knows files and locks, not what their lines mean (see ``records``).
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import threading

try:
    import portalocker
except (ImportError, AttributeError):  # no fcntl.flock or LOCK_EX (Pyodide 0.27): no OS lock
    portalocker = None
if sys.platform == "emscripten":  # Pyodide 314 has fcntl.flock, but it locks nothing
    portalocker = None

from .errors import JournalError, JournalLocked

# The names of a journal's files, all beside the journal at <path>.
FACTS_SUFFIX = ".facts"  # the pinned facts: <path>.facts
REWRITE_SUFFIX = ".ledgerlab-rewrite"  # a rewrite's new file: .<name>.ledgerlab-rewrite
# The facts file's rewrite has a name of its own: ".<name>.facts.ledgerlab-rewrite" would
# be the turn rewrite's name for a journal named "<name>.facts".
FACTS_REWRITE_SUFFIX = ".ledgerlab-facts-rewrite"
SALVAGE_SUFFIX = ".ledgerlab-salvage"  # salvage's new file before it takes its name

OPEN_FLAGS = (os.O_RDWR | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
              | getattr(os, "O_NOFOLLOW", 0))


def fsync_directory(path: str) -> None:
    """Make a file's creation or rename durable (POSIX; Windows has no directory fsync)."""
    if os.name == "nt":
        return
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (os.write may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class JournalFile(io.FileIO):
    """An open, locked journal file: closing it releases both of its locks."""

    key: tuple[int, int] | None = None  # (st_dev, st_ino) in this process's registry

    def close(self) -> None:
        try:
            super().close()  # closing the descriptor releases its flock
        finally:
            if self.key is not None:
                with _HELD_LOCK:
                    _HELD.discard(self.key)
                self.key = None


# The files this process's Journals hold. flock already refuses a second open of
# the same file; without flock (Pyodide), this registry is the whole lock.
_HELD: set[tuple[int, int]] = set()
_HELD_LOCK = threading.Lock()


def _lock(handle: JournalFile, path: str) -> bool:
    """Lock an open journal file against every other Journal; False if one holds it."""
    opened = os.fstat(handle.fileno())
    key = (opened.st_dev, opened.st_ino)
    with _HELD_LOCK:
        if key in _HELD:
            return False
        _HELD.add(key)
    handle.key = key
    if portalocker is None:
        return True  # no OS lock here: the registry guards this process only
    try:
        portalocker.lock(handle,
                         portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked:
        return False
    except portalocker.LockException as error:  # e.g. ENOLCK on an NFS mount without locks
        cause = error.__cause__ if isinstance(error.__cause__, OSError) else None
        reason = (cause.strerror if cause is not None and cause.strerror
                  else type(error).__name__)
        raise JournalError(f"cannot lock journal {path!r}: {reason} (a file system "
                           f"without locks, such as NFS mounted nolock?); nothing was "
                           f"written") from None
    return True


def open_locked(path: str, *, create: bool = True, exclusive: bool = False) -> JournalFile:
    """Open (creating owner-only if missing and ``create``) and lock the journal file.

    ``exclusive`` creates a new file or fails. A rewrite by another Journal may
    rename a new file over the path between our open and our lock: then the
    lock we got guards a file with no name, so check and try again.
    """
    flags = OPEN_FLAGS
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise JournalError(f"cannot open journal {path!r}: not a regular file")
    for _ in range(3):
        created = False
        try:
            if create:
                try:
                    fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
                    created = True
                except FileExistsError:
                    if exclusive:
                        raise
                    fd = os.open(path, flags)
            else:
                fd = os.open(path, flags)
        except OSError as error:
            raise JournalError(f"cannot open journal {path!r}: {error.strerror}") from None
        handle = JournalFile(fd, "r+")
        try:
            if not _lock(handle, path):
                raise JournalLocked(f"journal {path!r} is already open in another Journal")
            if same_file(handle.fileno(), path):
                break
        except JournalLocked:
            handle.close()  # another Journal holds it, even one that raced us to create it
            raise
        except BaseException:
            handle.close()
            if created:  # we could not lock it, and wrote nothing: take back the empty file
                with contextlib.suppress(OSError):
                    os.unlink(path)
            raise
        handle.close()
    else:
        raise JournalLocked(f"journal {path!r} keeps being replaced by another Journal")
    if created:
        try:
            fsync_directory(path)
        except OSError as error:
            # Not durable, so not created: take the empty file back while we hold it.
            with contextlib.suppress(OSError):
                os.unlink(path)
            handle.close()
            state = "the empty file remains" if os.path.lexists(path) else "nothing was created"
            raise JournalError(f"cannot create journal {path!r}: syncing its directory "
                               f"failed ({error.strerror}); {state}") from None
    return handle


def same_file(fd: int, path: str) -> bool:
    """Is the file open as ``fd`` the one named ``path`` (not moved, not replaced)?"""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


def kept_after_rename(handle: JournalFile, path: str) -> JournalFile:
    """The handle to keep for a locked file that was just renamed to ``path``.

    With an OS lock, ``handle`` itself. Without one, the file opened again under
    ``path``, the registry's hold moved to it: Emscripten's file system answers
    fstat by the name a descriptor was opened with, so a renamed file's descriptor
    stops answering. On OSError ``handle`` is still open and holds its lock.
    """
    if portalocker is not None:
        return handle
    again = JournalFile(os.open(path, OPEN_FLAGS), "r+")
    again.key, handle.key = handle.key, None
    handle.close()
    return again


def rewrite_path(path: str, suffix: str = REWRITE_SUFFIX) -> str:
    """Where a rewrite writes the new file: a hidden name only a rewrite creates (O_EXCL).

    Not ``<path>.rewrite``, which is a name a user chooses for another journal or a
    backup: this one says whose it is, and it is removed only when provably a leftover.
    """
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}{suffix}")


def clear_leftover(path: str, journal: bytes) -> bool:
    """Remove a rewrite file that a killed forget or retain left; True if the name is free.

    Only when it is provably ours and abandoned: we can lock it (no live Journal
    holds it) and every line in it is a line of ``journal`` (a rewrite writes
    only kept lines). Anything else under that name is someone's file: left alone.
    """
    if not os.path.lexists(path):
        return True
    try:
        handle = open_locked(path, create=False)
    except JournalError:  # held by a live Journal, not a regular file, unreadable
        return False
    try:
        if not _lines_within(handle.readall(), journal):
            return False
        os.unlink(path)  # under its lock, so no Journal has it open
        fsync_directory(path)
    except OSError:
        pass  # unreadable, or the unlink not yet durable: what the name holds now decides
    finally:
        handle.close()
    return not os.path.lexists(path)


def _lines_within(data: bytes, journal: bytes) -> bool:
    """Is every line of ``data`` (the last one perhaps cut short) a line of ``journal``?"""
    data = data.rstrip(b"\0")  # a power loss mid-rewrite can leave zeros, as in a journal
    lines = set(journal.splitlines(keepends=True))
    *complete, last = data.split(b"\n")
    return (all(line + b"\n" in lines for line in complete)
            and (not last or any(line.startswith(last) for line in lines)))


def publish(destination: str, data: bytes) -> None:
    """Write ``data`` as a new file at ``destination``, whole or not at all."""
    folder, name = os.path.split(os.path.abspath(destination))
    temp = os.path.join(folder, f".{name}{SALVAGE_SUFFIX}")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                     0o600)
    except OSError as error:
        raise JournalError(f"cannot write {temp!r}: {error.strerror}; nothing written") from None
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        _link_new(temp, destination)
    except OSError as error:
        raise JournalError(f"cannot write {destination!r}: {error.strerror}; "
                           f"nothing written") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    try:
        fsync_directory(destination)
    except OSError as error:
        raise JournalError(f"{destination!r} is written, but its directory could not be "
                           f"synced: {error.strerror}") from None


def _link_new(temp: str, destination: str) -> None:
    """Give ``temp``'s file the name ``destination``, failing if that name is taken."""
    if hasattr(os, "link"):
        os.link(temp, destination)  # fails if the name was taken meanwhile: never replaces
        return
    # Pyodide has no os.link: claim the name (O_EXCL), then rename onto that claim, which
    # is ours, so nothing else is replaced. A failed rename takes the empty claim back.
    os.close(os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    try:
        os.replace(temp, destination)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(destination)
        raise
