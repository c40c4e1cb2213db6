"""The maintainer's scripts of tools/, imported as their command lines run them (tools/ first
on the path), for the tests of what they write."""

import importlib
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def tool(name: str):
    if str(TOOLS) not in sys.path:
        sys.path.insert(0, str(TOOLS))
    return importlib.import_module(name)
