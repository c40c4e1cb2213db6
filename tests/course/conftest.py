"""Fixtures the course's tests share."""

from __future__ import annotations

import functools

import pytest

from ledgerlab.course.cli import main


@pytest.fixture
def course_cli(run_main):
    """course_cli(*argv) runs `ledgerlab-course ARGV...` in this process: (exit code, stdout,
    stderr)."""
    return functools.partial(run_main, main)
