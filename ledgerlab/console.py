"""What every ledgerlab command prints, and how it runs: the course's commands too.

- ``printable``: untrusted text as one visible line (the one escaping rule, for reports
  and files as for the terminal), ``escaped`` the same for stdout, ``shown`` a path;
- ``say``: one line of a command's result, as far as stdout takes it;
- ``run_command``: parse, run, and turn an error or a lost stdout into one line and an
  exit status.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .journal.errors import JournalError

if TYPE_CHECKING:
    import argparse


class _Stdout:
    """Where results go. A closed, full or broken stdout loses the output, never the work:
    once a line cannot be written, the rest is dropped and stdout is pointed at the null
    device, so that Python's own flush at exit cannot fail either."""

    lost = False


def say(text: str = "") -> None:
    """Print one line of a command's result to stdout, as far as stdout takes it."""
    if _Stdout.lost:
        return
    try:
        if sys.stdout is None:  # started with stdout closed (>&-)
            raise OSError("stdout is closed")
        print(text, flush=True)
    except (OSError, ValueError):
        _Stdout.lost = True
        _silence_stdout()


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    finally:
        os.close(devnull)


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


def _encodable(text: str) -> str:
    """``text`` with what stdout's encoding cannot print written as backslash escapes."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def run_command(parser: argparse.ArgumentParser, argv: list[str] | None,
                changes: frozenset[str]) -> int:
    """Parse ``argv`` and run its command as every ledgerlab command runs (the course's too).

    An error is one line on stderr, ``PROG COMMAND: Type: message``, and exit 2.
    Output that cannot be written is one line and exit 1, except for a command in
    ``changes``: what it changed happened, so its exit status stays the change's.
    """
    args = parser.parse_args(argv)
    _Stdout.lost = False
    try:
        code = args.run(args)
    except (JournalError, OSError, ValueError, TypeError) as error:
        print(f"{parser.prog} {args.command}: {type(error).__name__}: {_describe(error)}",
              file=sys.stderr)
        return 2
    if _Stdout.lost and args.command not in changes:
        print(f"{parser.prog} {args.command}: the output could not be written (stdout closed, "
              f"full or a broken pipe)", file=sys.stderr)
        return code or 1
    return code


def _describe(error: Exception) -> str:
    # OSError's str() is fine (paths, not conversation text); ours never hold text.
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    return str(error)
