"""What the journal raises. Every message carries offsets, sizes, hashes or id tags,
never conversation text, and says what state the files were left in. (A wrong type in a
public function is a TypeError naming the argument: ``arguments``.)"""

from __future__ import annotations


class JournalError(Exception):
    """The journal cannot do what was asked; the message says what state it left."""


class JournalLocked(JournalError):
    """Another Journal (in this process or another) already holds the file."""


class JournalForked(JournalLocked):
    """This Journal was opened in another process: the one that forked this one holds it."""


class JournalMoved(JournalError):
    """The journal's file no longer has its name (removed, renamed or replaced): nothing written."""


class JournalCorrupt(JournalError):
    """The files do not check out (a line that is neither a valid record nor a torn tail,
    a facts file without its turn file): the journal refuses to open."""


class JournalFull(JournalError):
    """The file is, or a commit would make it, larger than the cap."""


class TurnConflict(JournalError):
    """The id is already stored with a different question, or different tool rounds."""


class TurnIdMismatch(JournalError, ValueError):
    """A Turn that carries one id (it was read from a journal) was committed under another:
    nothing written."""


class TurnNotFound(JournalError, KeyError):
    """No turn is stored under that id; nothing changed."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class OriginNotFound(TurnNotFound):
    """A fact's origin is not a stored turn: it cannot be pinned; nothing changed."""


class FactConflict(JournalError):
    """The fact id is already pinned with another text or origin."""


class FactNotFound(JournalError, KeyError):
    """No fact is pinned under that id; nothing changed."""

    __str__ = TurnNotFound.__str__  # not a TurnNotFound: no turn was asked for


class SummaryConflict(JournalError):
    """The summary id is already stored with another text or other covered turns."""


class SummaryNotFound(JournalError, KeyError):
    """No summary is stored under that id; nothing changed."""

    __str__ = TurnNotFound.__str__  # not a TurnNotFound: no turn was asked for


def too_large(size: int) -> JournalError:
    """The error for a file that does not fit in memory: Journal and salvage read it whole."""
    return JournalError(f"the journal's {size} bytes do not fit in this process's memory "
                        f"(it reads the whole file); nothing changed")
