"""The library under Pyodide (npm's, the version the Lite site serves) in Node, offline:
checks.py must give the same results there as in this CPython. The wheels are the ones
`make lite` put in the site for piplite, so what is tested is what a learner installs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, missing

HERE = Path(__file__).parent
PYODIDE = ROOT / "editions" / "lite" / "node_modules" / "pyodide"
WHEELS = ROOT / "build" / "lite" / "pypi"


@pytest.fixture(scope="module")
def results() -> tuple[dict, dict]:
    if not shutil.which("node"):
        missing("no node: apt-get install -y nodejs npm")
    wheels = [next(WHEELS.glob(f"{name}-*.whl"), None) for name in ("ledgerlab", "portalocker")]
    if not PYODIDE.is_dir() or None in wheels:
        missing("no Lite build: run `make lite`")
    pyodide = subprocess.run(["node", str(HERE / "run_pyodide.mjs"), str(PYODIDE),
                              str(HERE / "checks.py"), *map(str, wheels)],
                             capture_output=True, text=True, timeout=300)
    assert pyodide.returncode == 0, pyodide.stderr[-3000:]
    cpython = subprocess.run([sys.executable, str(HERE / "checks.py")], capture_output=True,
                             text=True, check=True, timeout=300)
    return json.loads(pyodide.stdout.splitlines()[-1]), json.loads(cpython.stdout)


def test_it_is_pyodide_without_an_os_lock(results):
    pyodide, cpython = results
    assert pyodide["platform"] == {**cpython["platform"], "sys.platform": "emscripten",
                                   "os_lock": False}


@pytest.mark.parametrize("name", ["wire", "selector", "journal_commit_reopen", "torn_tail",
                                  "forget_retain", "salvage_corrupt", "scenario", "one_writer"])
def test_same_results_as_cpython(results, name):
    pyodide, cpython = results
    assert "error" not in cpython[name], cpython[name]["error"]
    assert pyodide[name] == cpython[name]


def test_the_scenario_numbers(results):
    scenario = results[0]["scenario"]
    assert (scenario["narrow_request_bytes"], scenario["wide_request_bytes"]) == (264, 480)
    assert results[0]["one_writer"]["second_refused"] == [True, True]
