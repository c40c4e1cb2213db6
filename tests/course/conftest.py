"""Fixtures the course's tests share."""

from __future__ import annotations

import functools

import pytest


@pytest.fixture
def course_cli(run_main):
    """course_cli(*argv) runs `ledgerlab-course ARGV...` in this process: (exit code, stdout,
    stderr)."""
    # Imported here, not at the top: the command imports nbformat, whose jsonschema builds a
    # grammar on import (a second of CPU), and this file is loaded by every pytest process,
    # xdist's controller included, which runs no test.
    from ledgerlab.course.cli import main
    return functools.partial(run_main, main)
