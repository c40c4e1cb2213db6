"""What every ledgerlab command prints, and how it runs: the course's commands too.

This module is for commands, not for notebooks or applications (``ledgerlab`` does not
export it): the ``ledgerlab`` and ``ledgerlab-course`` commands import it by its name.

- ``printable``: untrusted text as one visible line (the one escaping rule, for reports
  and files as for the terminal), ``escaped`` the same for stdout, ``shown`` a path;
- ``say``: one line of a command's result, what stdout cannot encode escaped;
- ``run_command``: parse, run, and turn an error or a lost stdout into one line and an
  exit status.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, TextIO

from .journal.errors import JournalError

if TYPE_CHECKING:
    import argparse


def say(text: str = "") -> None:
    """Print one line to stdout; what stdout's encoding cannot encode (a lone surrogate, a
    character outside a narrow encoding) is printed as a backslash escape, never refused."""
    print(_encodable(text), flush=True)


class _CommandOutput:
    """stdout while one command runs (``run_command``): a closed, full or broken stdout loses
    the output, never the work. Once a line cannot be written, the rest is dropped and
    ``lost`` says so; stdout itself is left as it was."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.lost = stream is None  # started with stdout closed (>&-)

    @property
    def encoding(self) -> str:  # what _encodable escapes for
        return getattr(self.stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                # Escaped as say escapes: an encoding error is not a lost stdout.
                self.stream.write(_encodable(text, self.encoding))
                self.stream.flush()
            except (OSError, ValueError):  # ValueError: a stream closed meanwhile
                self.lost = True
                _drop_unwritten(self.stream)
        return len(text)

    def flush(self) -> None:
        pass  # each write flushed already


def _drop_unwritten(stream: TextIO) -> None:
    """Let go of the bytes a failed write left in ``stream``'s buffer.

    A buffered stdout keeps them, and Python flushes stdout at exit: that flush would fail
    too ("Exception ignored ... BrokenPipeError", exit status 120). They are flushed into
    the null device, and ``stream``'s file descriptor then points where it did before.
    """
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # no descriptor (a test's capture, a notebook's stream): no exit flush to fail
    saved = os.dup(fd)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    finally:
        os.dup2(saved, fd)
        os.close(saved)
        os.close(null)


def shown(path: str) -> str:
    """A path as text that stdout can always print: bytes it cannot encode become escapes.

    A path need not be valid UTF-8, nor fit stdout's encoding; printing it must
    never turn a finished deletion into a reported failure.
    """
    # Decode as the file system does (bytes that are not text become \xNN), then escape
    # whatever stdout's encoding cannot print.
    return _encodable(os.fsencode(path).decode(sys.getfilesystemencoding(), "backslashreplace"))


def printable(text: str) -> str:
    r"""Untrusted text (an id, a file name) as one visible line a terminal cannot act on.

    A backslash and every character that is not printable (a newline, a tab, a terminal
    escape, U+2028, U+202E and the other bidi and format characters) become escapes as in
    a Python str literal (``\\``, ``\n``, ``\x1b``, ``\u202e``); a byte that was not
    UTF-8 (a surrogateescape, as in a file name from a legacy zip) becomes ``\xNN``. It
    does not depend on where the line goes: ``escaped`` is this for stdout.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if text.isprintable() and "\\" not in text:
        return text
    return "".join(_escape(char) for char in text)


def _escape(char: str) -> str:
    if "\udc80" <= char <= "\udcff":
        return f"\\x{ord(char) - 0xDC00:02x}"
    if char.isprintable() and char != "\\":
        return char
    return repr(char)[1:-1]


def escaped(text: str) -> str:
    """``printable(text)``, then whatever stdout's encoding cannot print, as in ``shown``."""
    return _encodable(printable(text))


def _encodable(text: str, encoding: str | None = None) -> str:
    """``text`` with what ``encoding`` (stdout's by default) cannot encode written as
    backslash escapes."""
    encoding = encoding or getattr(sys.stdout, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def run_command(parser: argparse.ArgumentParser, argv: list[str] | None,
                changes: frozenset[str]) -> int:
    """Parse ``argv`` and run its command as every ledgerlab command runs (the course's too).

    An error is one line on stderr, ``PROG COMMAND: Type: message``, and exit 2.
    Output that cannot be written is one line and exit 1, except for a command in
    ``changes``: what it changed happened, so its exit status stays the change's.
    """
    # argparse would take a str as its characters: a caller's mistake, not a command line.
    if argv is not None and (isinstance(argv, (str, bytes))
                             or not all(isinstance(arg, str) for arg in argv)):
        raise TypeError(f"argv must be a list of str (None: sys.argv[1:]), not "
                        f"{type(argv).__name__}")
    args = parser.parse_args(argv)
    output = _CommandOutput(sys.stdout)
    try:
        with contextlib.redirect_stdout(output):  # this command's run only
            code = args.run(args)
    except (JournalError, OSError, ValueError, TypeError) as error:
        print(f"{parser.prog} {args.command}: {type(error).__name__}: {_describe(error)}",
              file=sys.stderr)
        return 2
    if output.lost and args.command not in changes:
        print(f"{parser.prog} {args.command}: the output could not be written (stdout closed, "
              f"full or a broken pipe)", file=sys.stderr)
        return code or 1
    return code


def _describe(error: Exception) -> str:
    # OSError's str() is fine (paths, not conversation text); ours never hold text.
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    return str(error)
