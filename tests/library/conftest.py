"""Fixtures the library's tests share: a journal's path and the `ledgerlab` command."""

from __future__ import annotations

import functools

import pytest

from ledgerlab.cli import main


@pytest.fixture
def log(tmp_path):
    """The path of a journal that does not exist yet (a test file may override this fixture
    with a filled journal at the same path)."""
    return tmp_path / "conversation.log"


@pytest.fixture
def cli(run_main):
    """cli(*argv) runs `ledgerlab ARGV...` in this process: (exit code, stdout, stderr)."""
    return functools.partial(run_main, main)
