"""One file of records, as a Journal holds it: locked, loaded (a torn tail cut), appended
to (fsync before returning), and rewritten crash-safely.

The turn file and each file derived from it (the facts) is a ``Store``; what each holds,
and what is deleted with what, is the Journal's business (``ledger``). A failed write or
sync is handed to the Journal's ``fail``, which closes every file before raising: after
one, the data may already be lost, and nothing is retried and then acknowledged.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NoReturn

from .errors import JournalCorrupt, JournalError, JournalFull, JournalMoved, too_large
from .files import JournalFile, destroy, replace, same_file, write_all
from .records import TURNS, Kind, scan

Fail = Callable[[str, OSError, str], NoReturn]  # (action, error, the file's state) -> raise


class Store:
    """One locked file of records and how many bytes it holds."""

    def __init__(self, path: str, kind: Kind, temp: str, fail: Fail) -> None:
        self.path, self.kind, self.temp, self.fail = path, kind, temp, fail
        self.file: JournalFile | None = None  # a derived file's is None until its first record
        self.size = 0

    @property
    def where(self) -> str:
        """How messages name a line's file: the turn journal's as they always have."""
        return "" if self.kind is TURNS else f"the {self.kind.name}'s "

    def load(self, max_bytes: int | None) -> tuple[list, bytes]:
        """Read and check every line, cut a torn tail; return the records and the bytes kept."""
        fd = self.file.fileno()
        try:
            size = os.fstat(fd).st_size
            if max_bytes is not None and size > max_bytes:
                raise JournalFull(f"{self.kind.name} is {size} bytes, over its cap of "
                                  f"{max_bytes} bytes")
            os.lseek(fd, 0, os.SEEK_SET)
            data = self.file.readall()
            records = []
            good = 0
            # One line at a time: the first problem refuses before the rest is looked at,
            # so a file of a million bad lines costs no more than one.
            for line in scan(data, self.kind):
                if line.torn:
                    break
                if line.problem is not None:
                    raise JournalCorrupt(f"{self.where}line {line.number} at byte offset "
                                         f"{line.offset} is corrupt: {line.problem}")
                records.append(line.record)
                good = line.offset + line.length
        except OSError as error:
            raise JournalError(f"cannot read {self.kind.name} {self.path!r}: "
                               f"{error.strerror}; nothing changed") from None
        except MemoryError:
            raise too_large(size) from None
        if good < len(data):
            # A torn write, never acknowledged: cut it off, and make the cut durable.
            try:
                os.ftruncate(fd, good)
                os.fsync(fd)
            except OSError as error:
                raise JournalError(
                    f"cannot cut the {len(data) - good}-byte torn tail of {self.path!r}: "
                    f"{error.strerror}; the journal is not open, the tail may remain") from None
        self.size = good
        return records, data[:good]

    def check_room(self, line: bytes, max_bytes: int | None) -> None:
        if max_bytes is not None and self.size + len(line) > max_bytes:
            raise JournalFull(
                f"a {len(line)}-byte record would grow the {self.kind.name} from "
                f"{self.size} bytes past its cap of {max_bytes} bytes; file unchanged")

    def check_named(self, action: str) -> None:
        """Refuse to write to a file that lost its name: reopening the name would not see it.

        Checked before writing, so a refusal writes nothing. A rename after the check
        is not caught; one before it (a user moving the file, a salvage put in its
        place) is.
        """
        try:
            named = same_file(self.file.fileno(), self.path)
        except OSError as error:
            raise JournalError(f"{action} not acknowledged: cannot check that {self.path!r} "
                               f"is still the {self.kind.name}: {error.strerror}; nothing "
                               f"written") from None
        if not named:
            raise JournalMoved(
                f"{action} not acknowledged: the {self.kind.name} {self.path!r} was removed, "
                f"renamed or replaced since this Journal opened it; nothing written (open "
                f"the journal where it is now)")

    def append(self, line: bytes, action: str) -> None:
        fd = self.file.fileno()
        try:
            os.lseek(fd, self.size, os.SEEK_SET)
            write_all(fd, line)
            os.fsync(fd)
        except OSError as error:
            self.fail(action, error, "")
        self.size += len(line)

    def check_rewritable(self, unchanged: str = "nothing changed") -> None:
        """Refuse a rewrite that could not delete for real: a second name of the file
        would keep the old text, and a moved file is not the journal's any more."""
        links = os.fstat(self.file.fileno()).st_nlink
        if links != 1 or not same_file(self.file.fileno(), self.path):
            raise JournalError(
                f"{self.kind.name} has {links} names or was moved; deleting through one name "
                f"would leave the text under the others: {unchanged}")

    def rewrite(self, keep: Callable, done: Callable[[list], None]) -> None:
        """Replace the file with the lines whose record ``keep`` accepts, crash-safely;
        ``done`` gets their records once the new file has the name.

        A kill at any point leaves either the old file or the new one under the
        path. The new file is locked before it takes the name, so the lock still
        guards the path; the old bytes are overwritten only once the new file is
        durably in place, so a crash cannot destroy the only copy. Until then the old
        file keeps a hidden name, so an open after a kill overwrites them instead
        (``files.replace``, ``files.clear_leftover``).
        """
        old, kind = self.file, self.kind
        # The callers checked too, before any change: this is a change made meanwhile.
        self.check_rewritable(f"the {kind.name} is unchanged")
        try:
            os.lseek(old.fileno(), 0, os.SEEK_SET)
            data = old.readall()
            kept = [line for line in scan(data, kind) if keep(line.record)]
            new_data = b"".join(data[line.offset:line.offset + line.length] for line in kept)
        except OSError as error:
            self.fail("rewrite", error, f"the {kind.name} is unchanged; ")
        except MemoryError:
            raise too_large(self.size) from None
        try:
            new, old_name = replace(old, self.path, self.temp, new_data)
        except OSError as error:
            state = ("is unchanged" if same_file(old.fileno(), self.path) else
                     "holds the new content, perhaps not durably")
            self.fail("rewrite", error, f"the {kind.name} {state}; ")
        self.file = new
        self.size = len(new_data)
        done([line.record for line in kept])
        try:  # the old file is only under a hidden name now: destroy its bytes, then let it go
            destroy(old, len(data), old_name)
        except OSError as error:
            raise JournalError(
                f"the {kind.name} no longer holds the deleted {kind.items}, but the old "
                f"file's bytes could not be overwritten: {error.strerror or error}") from error

    def close(self) -> None:
        if self.file is not None:
            self.file.close()  # releases its locks
            self.file = None
