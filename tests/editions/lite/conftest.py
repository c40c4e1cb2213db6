"""tests/editions/lite reuses tests/editions/browser's Chromium, page and outside-request fixtures.

(`make test` ignores this folder: `make test-lite` runs it, after `make lite`.)
"""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "browser_conftest", Path(__file__).resolve().parents[1] / "browser" / "conftest.py")
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)

ROOT = browser_conftest.ROOT
missing, serve_folder = browser_conftest.missing, browser_conftest.serve_folder
browser, page, outside = browser_conftest.browser, browser_conftest.page, browser_conftest.outside
pytest_runtest_makereport = browser_conftest.pytest_runtest_makereport


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """build/lite-browser: screenshots of this run (tests/editions/browser keeps build/browser)."""
    folder = ROOT / "build" / "lite-browser"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    return folder
