"""The journal package imports one way: errors <- arguments <- rich <- records <- summaries,
files <- store, salvage <- ledger."""

import ast
from pathlib import Path

import pytest

import ledgerlab.journal

PACKAGE = Path(ledgerlab.journal.__file__).parent
# Each module and the journal modules it may import (the wire is below them all).
ALLOWED = {
    "errors": set(),
    "arguments": {"errors"},
    "rich": {"errors", "arguments"},
    "records": {"errors", "arguments", "rich"},
    "files": {"errors", "arguments", "records", "rich"},
    "summaries": {"errors", "arguments", "records", "rich"},
    "store": {"errors", "arguments", "records", "files", "rich"},
    "salvage": {"errors", "arguments", "records", "files", "summaries", "rich"},
    "ledger": {"errors", "arguments", "records", "files", "store", "salvage", "summaries",
               "rich"},
}


def journal_imports(path):
    """The sibling modules ``path`` imports (``from .x import ...``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.module.split(".")[0] for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}


def test_every_module_of_the_package_is_in_the_layering():
    assert {path.stem for path in PACKAGE.glob("*.py")} == set(ALLOWED) | {"__init__"}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_a_journal_module_imports_only_those_below_it(name):
    assert journal_imports(PACKAGE / f"{name}.py") <= ALLOWED[name]
