"""The journal's files on disk: their names, the lock, and the writes a crash cannot tear.

- one writer: an open journal file is locked (flock on POSIX, through portalocker),
  and on Linux with an open-file-description ``fcntl`` lock too, the lock the Java
  reference's ``FileChannel.lock`` honours. Where the OS has no working flock
  (Pyodide: no ``fcntl.flock`` in 0.27, one that locks nothing in 314 and later),
  the lock is only a registry of the files this process's Journals hold: another
  process can then open the same file;
- a new file counts only once its directory is synced (``fsync_directory``);
- a rewrite (``replace``, then ``destroy``) writes the new file under a fresh hidden
  name, keeps the old file under another until its bytes are zeros, and a leftover
  of a killed rewrite is removed (zeroed first, if it is the old file) only when
  provably one (``clear_leftover``); every hidden name fits the file system's limit;
- salvage's new file appears whole or not at all and never replaces one (``publish``).

This module knows files and locks, not what their lines mean (see ``records``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import re
import secrets
import stat
import struct
import sys
import threading

try:
    import portalocker
except (ImportError, AttributeError):  # no fcntl.flock or LOCK_EX (Pyodide 0.27): no OS lock
    portalocker = None
if sys.platform == "emscripten":  # Pyodide 314 has fcntl.flock, but it locks nothing
    portalocker = None

from .errors import JournalError, JournalLocked

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
# Linux's open-file-description lock: a POSIX record lock (what Java's FileChannel.lock
# takes, and flock never conflicts with) owned by our open file, not by the process, so
# closing another descriptor of the file does not drop it. None elsewhere (macOS, Windows)
# and wherever flock is not used (Pyodide).
OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None) if portalocker is not None else None

# The names of a journal's files, all beside the journal at <path>.
FACTS_SUFFIX = ".facts"  # the pinned facts: <path>.facts
SUMMARIES_SUFFIX = ".summaries"  # the summaries: <path>.summaries
# A rewrite's hidden names start .<name>.ledgerlab-rewrite (``rewrite_path``): the new file
# is that plus "." and 16 random hex digits, the old file that plus ".old" until it is zeros.
REWRITE_SUFFIX = ".ledgerlab-rewrite"
# The facts file's rewrite has a name of its own: ".<name>.facts.ledgerlab-rewrite" would
# be the turn rewrite's name for a journal named "<name>.facts".
FACTS_REWRITE_SUFFIX = ".ledgerlab-facts-rewrite"
SUMMARIES_REWRITE_SUFFIX = ".ledgerlab-summaries-rewrite"
SALVAGE_SUFFIX = ".ledgerlab-salvage"  # salvage's new file before it takes its name

_FRESH = 8  # random bytes in a rewrite's names: 16 hex digits
_OLD = ".old"
_FRESH_ROOM = 1 + 2 * _FRESH + len(_OLD)  # what a rewrite adds to rewrite_path's name
NAME_MAX = 255  # bytes in one file name (ext4, XFS, btrfs), where the OS does not say

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


HELD_HERE = "another Journal"
HELD_ELSEWHERE = "another Journal (or locked by another program, such as the Java reference)"


def _lock(handle: JournalFile, path: str) -> str | None:
    """Lock an open journal file against every other Journal and program.

    None once locked; else who holds it: ``HELD_HERE`` when a Journal of this process
    does (the registry knows), ``HELD_ELSEWHERE`` when the OS lock is taken.
    """
    opened = os.fstat(handle.fileno())
    key = (opened.st_dev, opened.st_ino)
    with _HELD_LOCK:
        if key in _HELD:
            return HELD_HERE
        _HELD.add(key)
    handle.key = key
    if portalocker is None:
        return None  # no OS lock here: the registry guards this process only
    try:
        portalocker.lock(handle,
                         portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked:
        return HELD_ELSEWHERE
    except portalocker.LockException as error:  # e.g. ENOLCK on an NFS mount without locks
        cause = error.__cause__ if isinstance(error.__cause__, OSError) else None
        raise _no_locks(path, cause.strerror if cause is not None and cause.strerror
                        else type(error).__name__) from None
    return None if _lock_record(handle, path) else HELD_ELSEWHERE


def _lock_record(handle: JournalFile, path: str) -> bool:
    """Take the whole file's OFD record lock as well; False if another program holds one.

    flock and fcntl locks do not see each other on Linux: without this, the Java
    reference (FileChannel.lock, an fcntl lock) and a Journal could both write the
    file. Released, like the flock, when the descriptor is closed. A kernel without
    OFD locks (before Linux 3.15: EINVAL) leaves the flock alone guarding the file.
    """
    if OFD_SETLK is None:
        return True
    # struct flock: l_type, l_whence, l_start, l_len (0: to the end, and beyond), l_pid (0)
    request = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
    try:
        fcntl.fcntl(handle.fileno(), OFD_SETLK, request)
    except OSError as error:
        if error.errno in (errno.EAGAIN, errno.EACCES):
            return False
        if error.errno == errno.EINVAL:
            return True
        raise _no_locks(path, error.strerror or type(error).__name__) from None
    return True


def _no_locks(path: str, reason: str) -> JournalError:
    return JournalError(f"cannot lock journal {path!r}: {reason} (a file system without "
                        f"locks, such as NFS mounted nolock?); nothing was written")


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
            raise JournalError(f"cannot open journal {path!r}: {why_not(path, error)}") from None
        handle = JournalFile(fd, "r+")
        try:
            holder = _lock(handle, path)
            if holder is not None:
                raise JournalLocked(f"journal {path!r} is already open in {holder}")
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


SYMLINK_REFUSED = ("it is a symbolic link, and a journal's files are opened only as regular "
                   "files (a deletion rewrites a file under its name: through a link, the text "
                   "would stay in the file the link points to)")


def why_not(path: str, error: OSError) -> str:
    """Why ``path`` could not be opened, in words. A symbolic link is refused (O_NOFOLLOW),
    which the OS words as "Too many levels of symbolic links": say what it is."""
    if error.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
        return SYMLINK_REFUSED
    return error.strerror or str(error)


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


def name_max(folder: str) -> int:
    """The longest file name, in bytes, that ``folder``'s file system takes."""
    try:
        return os.pathconf(folder or ".", "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):  # no pathconf (Windows, Pyodide), no folder
        return NAME_MAX


def rewrite_path(path: str, suffix: str = REWRITE_SUFFIX) -> str:
    """The start of a rewrite's hidden names for the journal ``path``: ``.<name><suffix>``.

    Not ``<path>.rewrite``, which is a name a user chooses for another journal or a
    backup: this one says whose it is, and its files are removed only when provably
    leftovers. Where ``.<name><suffix>`` and what a rewrite adds to it would not fit
    one file name, ``<name>`` is replaced by its SHA-256, so every journal whose files
    fit can be rewritten. A journal name too long for its ``<name>.summaries`` (the
    longest name beside it) is refused here, when a Journal is opened, before anything
    is written.
    """
    folder, name = os.path.split(path)
    limit = name_max(folder)
    raw = os.fsencode(name)
    if len(raw) + len(SUMMARIES_SUFFIX) > limit:  # the longest name beside it
        raise JournalError(f"cannot open journal: its name is {len(raw)} bytes, over the "
                           f"limit of {limit - len(SUMMARIES_SUFFIX)} (its summaries file "
                           f"<name>{SUMMARIES_SUFFIX} must fit the file system's {limit}-byte "
                           f"names); nothing was opened")
    hidden = f".{name}{suffix}"
    if len(os.fsencode(hidden)) + _FRESH_ROOM > limit:
        hidden = f".{hashlib.sha256(raw).hexdigest()}{suffix}"
    return os.path.join(folder, hidden)


def replace(old: JournalFile, path: str, base: str, data: bytes) -> tuple[JournalFile, str | None]:
    """Put ``data`` at ``path`` in place of the file open as ``old``; return the new file
    (locked) and the hidden name that still holds the old one, for ``destroy``.

    1. ``data`` goes to a new file at a fresh name (``base`` plus random digits,
       O_EXCL: it never collides with a file that exists), locked, fsynced;
    2. the old file gets a second, hidden name (``<new name>.old``), and the directory
       is synced: from here on a later open finds the old bytes and zeros them, even if
       we are killed before ``destroy`` does;
    3. the new file is renamed over ``path``, the directory synced.

    A kill before 3 leaves the old file at ``path``; after it, the new one. Where the
    file system has no hard links (Pyodide, FAT), step 2 is skipped (the name returned
    is None): a kill between 3 and ``destroy`` then leaves the old bytes unreachable and
    not zeroed. On OSError before the rename, nothing is left behind and ``path`` is
    unchanged; ``old`` is never closed here.
    """
    new, temp = _create_fresh(base)
    old_name = None
    try:
        write_all(new.fileno(), data)
        os.fsync(new.fileno())
        old_name = _link_old(path, temp + _OLD)
        fsync_directory(path)  # the old file's second name before the rename, durably
        os.replace(temp, path)
    except BaseException:
        new.close()
        with contextlib.suppress(OSError):
            os.unlink(temp)
        # Unless the rename took effect (an interrupt just after it): then this name is
        # the only one left to the old bytes, and the next open must find them.
        if old_name is not None and same_file(old.fileno(), path):
            with contextlib.suppress(OSError):
                os.unlink(old_name)
        raise
    try:
        fsync_directory(path)
        return kept_after_rename(new, path), old_name
    except BaseException:
        new.close()
        raise


def destroy(old: JournalFile, size: int, old_name: str | None) -> None:
    """Overwrite the ``size`` bytes of a file that ``replace`` replaced with zeros, sync them,
    then remove its hidden name and close it: its bytes are gone, not just unlinked.

    The name's removal is not synced: if it is lost, the next open finds zeros under
    it and removes them (``clear_leftover``).
    """
    try:
        os.lseek(old.fileno(), 0, os.SEEK_SET)
        write_all(old.fileno(), b"\0" * size)
        os.fsync(old.fileno())
        if old_name is not None:
            os.unlink(old_name)
    finally:
        old.close()


def _create_fresh(base: str) -> tuple[JournalFile, str]:
    """A new, empty, locked file at ``base`` plus 16 random hex digits (never one that exists)."""
    while True:
        name = f"{base}.{secrets.token_hex(_FRESH)}"
        try:
            handle = JournalFile(os.open(name, OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600), "r+")
        except FileExistsError:
            continue  # 2^-64 per name: someone made this one
        try:
            if _lock(handle, name) is not None:
                raise JournalLocked(f"{name!r} was locked as soon as it was created")
        except BaseException:
            handle.close()
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
        return handle, name


def _link_old(path: str, name: str) -> str | None:
    """Give the file at ``path`` the second name ``name``; None where there are no hard links."""
    if not hasattr(os, "link"):
        return None
    try:
        os.link(path, name)  # path is a real path (Journal resolves it): no link to follow
    except OSError as error:
        if error.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS,
                           errno.EMLINK):
            return None  # a file system without hard links (FAT, some FUSE), or no more
        raise
    return name


def clear_leftover(path: str, journal: bytes) -> bool:
    """Remove what killed rewrites of one file left; True if none of it remains.

    ``path`` is ``rewrite_path``'s name for that file, ``journal`` its bytes now. Only
    the names ``replace`` makes (and ``path`` itself, where older versions wrote
    the new file) are looked at, and each is removed only when provably ours:

    - a new file (``<path>`` or ``<path>.<digits>``): we can lock it (no live Journal
      holds it) and every line in it is a line of ``journal`` (a rewrite writes only
      kept lines);
    - an old file (``<path>.<digits>.old``): if it has other names (killed before the
      rename: one is the journal itself), removing this name loses nothing; if not, we
      can lock it and it is what remains of a journal file (record lines, perhaps zeros
      from the start), so its bytes are zeroed, synced, and then it is removed.

    Anything else is someone's file, and is left alone. Call it under the journal's lock.
    """
    folder, start = os.path.split(path)
    try:
        names = [name for name in os.listdir(folder or ".") if name.startswith(start)]
    except OSError:
        names = []
    ours = re.compile(re.escape(start) + r"(\.[0-9a-f]{%d}(%s)?)?" % (2 * _FRESH, re.escape(_OLD)))
    cleared = True
    for name in names:
        found = ours.fullmatch(name)
        if found is not None:
            cleared &= _clear_one(os.path.join(folder, name), journal, old=bool(found.group(2)))
    return cleared


def _clear_one(path: str, journal: bytes, *, old: bool) -> bool:
    try:
        found = os.lstat(path)
        if old and stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
            os.unlink(path)  # a second name of a file that keeps another: nothing is lost
            return True
        handle = open_locked(path, create=False)
    except FileNotFoundError:
        return True
    except (OSError, JournalError):  # held by a live Journal, not a regular file, unreadable
        return False
    try:
        data = handle.readall()
        if not (_journal_remains(data) if old else _lines_within(data, journal)):
            return False
        if old:  # the replaced journal: its bytes go, not just its name
            os.lseek(handle.fileno(), 0, os.SEEK_SET)
            write_all(handle.fileno(), b"\0" * len(data))
            os.fsync(handle.fileno())
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


# One line of the reference's format: base64, a space, 64 lowercase hex digits, a newline.
_RECORD_LINE = re.compile(rb"[A-Za-z0-9+/]*={0,2} [0-9a-f]{64}\n")


def journal_lines_cut_short(data: bytes) -> bool:
    """Is ``data`` what a write of journal lines killed part way leaves: record lines, the
    last perhaps cut short, perhaps zeros after them (a power loss), or nothing at all?"""
    *complete, last = data.rstrip(b"\0").split(b"\n")
    return (all(_RECORD_LINE.fullmatch(line + b"\n") for line in complete)
            and _RECORD_START.fullmatch(last) is not None)


_RECORD_START = re.compile(rb"[A-Za-z0-9+/]*={0,2}(?: [0-9a-f]{0,64})?")  # a line cut short


def _journal_remains(data: bytes) -> bool:
    """Is ``data`` what ``destroy`` leaves of a journal file: zeros from the start (perhaps
    none, perhaps all), then the rest of its lines (the first perhaps cut by the zeros)?"""
    rest = data.lstrip(b"\0")
    if len(rest) < len(data):
        rest = rest[rest.find(b"\n") + 1:] if b"\n" in rest else rest
    return all(_RECORD_LINE.fullmatch(line) for line in rest.splitlines(keepends=True))


def link_new(temp: str, destination: str) -> None:
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
