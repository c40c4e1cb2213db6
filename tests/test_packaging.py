"""The set-up a new user relies on: dependencies listed alike, a light import."""

import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def normalized(requirement):
    """``name>=1,<2`` and ``name<2,>=1`` alike: the name and its sorted version clauses."""
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)(.*)$", requirement.replace(" ", "")).groups()
    return name.lower(), tuple(sorted(filter(None, spec.split(","))))


def conda_dependencies():
    names = set()
    text = (ROOT / "environment.yml").read_text()
    for line in text.split("\ndependencies:\n", 1)[1].splitlines():
        # conda packages, and the pip section's for what conda-forge does not have
        match = re.match(r"^(?:  |      )- ([A-Za-z0-9_.\-]+[^:]*)$", line)
        if match and match.group(1) not in ("pip", "-e .") and not match.group(1).startswith("python"):
            names.add(normalized(match.group(1)))
    return names


def pip_dependencies():
    names = set()
    for requirement in requires("ledgerlab"):
        spec, _, marker = requirement.partition(";")
        if "ledgerlab" in spec or ('extra == "' in marker and
                                   not any(e in marker for e in ('"course"', '"dev"'))):
            continue
        names.add(normalized(spec))
    return names


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    assert conda_dependencies() == pip_dependencies()


def test_environment_yml_installs_the_package_itself():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^  - pip:\n(?:      - .*\n)*      - -e \.$", text, re.M)


def test_importing_ledgerlab_does_not_import_the_notebook_stack():
    code = ("import sys, ledgerlab, ledgerlab.cli\n"
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
