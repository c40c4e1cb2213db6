"""The ``ledgerlab-course`` command's entry point: the course's packages first, then its CLI.

The library's wheel installs the command with or without the course extra, and the course's
CLI imports nbformat and the rest of that extra. Without it the command says how to install
it, on stderr, and exits 2, instead of failing with a traceback. It imports no course module
and no package of the extra until they are known to be installed.
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import PackageNotFoundError, distribution, requires

INSTALL = "pip install 'ledgerlab[course]'"


def missing_packages() -> list[str]:
    """The packages of ledgerlab's ``course`` extra (as its installed metadata lists them)
    that are not installed."""
    try:
        wanted = requires("ledgerlab") or []
    except PackageNotFoundError:  # run from a source tree that was never installed
        return []
    missing = []
    for requirement in wanted:
        spec, _, marker = requirement.partition(";")
        if not re.search(r"""extra\s*==\s*["']course["']""", marker):
            continue
        name = re.match(r"[A-Za-z0-9._-]+", spec.strip()).group()
        try:
            distribution(name)
        except PackageNotFoundError:
            missing.append(name)
    return missing


def main(argv: list[str] | None = None) -> int:
    missing = missing_packages()
    if missing:
        print(f"ledgerlab-course: the course's packages are not installed ({', '.join(missing)}"
              f"); install them with: {INSTALL}", file=sys.stderr)
        return 2
    from .cli import main as course_main

    return course_main(argv)
