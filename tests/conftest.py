"""What every test directory shares: the hypothesis profile of the fast tier, a command's main
run in this process, and files that refuse every write (for the commands' "the output could
not be written" paths)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# `make check` runs with --hypothesis-profile=fast: a tenth of each property test's examples
# (tests/library/tiers.py scales the counts the tests set themselves). `make test` and a plain
# pytest run use Hypothesis's default profile, every example.
settings.register_profile("fast", max_examples=10)


@pytest.fixture
def unwritable():
    """unwritable(kind) opens a file descriptor that every write fails on: kind "full" is
    /dev/full (ENOSPC), "broken pipe" a pipe whose reading end is closed (EPIPE). Each is
    closed after the test."""
    opened = []

    def open_unwritable(kind):
        if kind == "full":
            target = os.open("/dev/full", os.O_WRONLY)
        else:
            read, target = os.pipe()
            os.close(read)  # nobody will read: every write is EPIPE
        opened.append(target)
        return target

    yield open_unwritable
    for target in opened:
        os.close(target)


@pytest.fixture
def run_main(capsys):
    """run_main(main, *argv) calls a command's main(argv) in this process and returns (exit
    code, stdout, stderr); arguments may be Path objects."""
    def run(main, *argv):
        code = main([str(part) for part in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return run
