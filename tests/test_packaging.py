"""The set-up a new user relies on: dependencies listed alike, a Binder that builds, a
light import."""

import ast
import os
import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def normalized(requirement):
    """``name>=1,<2`` and ``name<2,>=1`` alike: the name and its sorted version clauses."""
    name, spec = re.match(r"^([A-Za-z0-9_.\-]+)(.*)$", requirement.replace(" ", "")).groups()
    return name.lower(), tuple(sorted(filter(None, spec.split(","))))


def conda_dependencies(path=ROOT / "environment.yml"):
    names = set()
    text = path.read_text()
    for line in text.split("\ndependencies:\n", 1)[1].splitlines():
        # conda packages, and the pip section's for what conda-forge does not have
        match = re.match(r"^(?:  |      )- ([A-Za-z0-9_.\-]+[^:]*)$", line)
        if match and match.group(1) not in ("pip", "-e .") and not match.group(1).startswith("python"):
            names.add(normalized(match.group(1)))
    return names


def pip_dependencies(extras=("course", "dev")):
    """The runtime dependencies and those of ``extras``, as installed (pyproject.toml)."""
    names = set()
    for requirement in requires("ledgerlab"):
        spec, _, marker = requirement.partition(";")
        if "ledgerlab" in spec or ('extra == "' in marker and
                                   not any(f'"{extra}"' in marker for extra in extras)):
            continue
        names.add(normalized(spec))
    return names


def test_environment_yml_lists_the_same_dependencies_as_pyproject():
    assert conda_dependencies() == pip_dependencies()


def test_environment_yml_installs_the_package_itself():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^  - pip:\n(?:      - .*\n)*      - -e \.$", text, re.M)


BINDER = ROOT / ".binder"


def test_binder_environment_lists_the_course_dependencies_of_pyproject():
    assert conda_dependencies(BINDER / "environment.yml") == pip_dependencies(extras=("course",))


def test_binder_environment_pins_an_exact_python_that_the_package_supports():
    # repo2docker reads the version with this pattern (buildpacks/conda): `python>=3.10`
    # does not match, and Binder then builds its default Python instead.
    lines = (BINDER / "environment.yml").read_text().splitlines()
    pins = [m for line in lines if (m := re.match(r"^  - python\s*=+\s*([\d.]*)$", line))]
    assert len(pins) == 1, "one exact `python=X.Y` dependency"
    major, minor = map(int, pins[0].group(1).split(".")[:2])
    assert (major, minor) >= (3, 10)


def test_binder_environment_does_not_refer_to_the_repository():
    # It is installed before the repository is copied in: `-e .` there fails.
    text = (BINDER / "environment.yml").read_text()
    # A pip section may name packages from PyPI, never a path, a requirements file or `-e`.
    assert not re.search(r"^\s*- *(-e|-r|\.|/|file:)", text, re.M)


def test_binder_post_build_installs_the_package_and_is_executable():
    script = BINDER / "postBuild"
    text = script.read_text()
    assert text.startswith("#!/bin/bash\n")  # repo2docker runs it as a program
    assert re.search(r"^set -e", text, re.M), "a failing step must fail the build"
    assert re.search(r"^python -m pip install --no-deps -e \.$", text, re.M)
    assert os.access(script, os.X_OK)
    # A clone gets the mode git recorded, not this checkout's.
    staged = subprocess.run(["git", "ls-files", "--stage", str(script)], cwd=ROOT,
                            capture_output=True, text=True)
    if staged.returncode == 0 and staged.stdout:
        assert staged.stdout.startswith("100755 ")
    subprocess.run(["bash", "-n", str(script)], check=True)


def test_binder_configuration_is_the_one_repo2docker_reads():
    # With .binder/ present repo2docker ignores the root environment.yml (kept for
    # `conda env create`); binder/ and .binder/ together are refused; a Dockerfile
    # at the root would take precedence over both.
    assert BINDER.is_dir()
    assert not (ROOT / "binder").exists()
    assert not (ROOT / "Dockerfile").exists() and not (BINDER / "Dockerfile").exists()


HEAVY = ("matplotlib", "pandas", "numpy", "ipywidgets", "IPython", "nbformat", "nbclient",
         "tiktoken")
LIBRARY = ROOT / "ledgerlab"


def test_importing_the_library_loads_no_course_module_and_no_heavy_package():
    code = ("import sys, ledgerlab, ledgerlab.cli, ledgerlab.article\n"
            f"heavy = {HEAVY!r}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
            "             or m.startswith('ledgerlab.course')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def imported_modules(path):
    """Every module ``path`` imports, at any depth (lazy imports in functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names |= {f"{base}.{alias.name}" if node.module else base + alias.name
                      for alias in node.names}
    return names


@pytest.mark.parametrize("path", sorted(LIBRARY.glob("*.py")), ids=lambda p: p.name)
def test_no_library_module_imports_the_course_or_a_plotting_or_notebook_package(path):
    names = imported_modules(path)
    course = {name for name in names if "course" in name.split(".")}
    # tiktoken is the one heavy import the library makes, lazily: see the next test.
    heavy = {name for name in names if name.split(".")[0] in set(HEAVY) - {"tiktoken"}}
    assert not course and not heavy, f"{path.name} imports {sorted(course | heavy)}"


def test_the_tokenizer_is_imported_only_by_the_token_module_and_only_when_counting():
    for path in LIBRARY.glob("*.py"):
        if path.name != "tokens.py":
            assert "tiktoken" not in {n.split(".")[0] for n in imported_modules(path)}, path.name
    top_level = ast.parse((LIBRARY / "tokens.py").read_text(encoding="utf-8")).body
    assert not any(isinstance(node, (ast.Import, ast.ImportFrom)) and "tiktoken" in ast.dump(node)
                   for node in top_level)


def test_the_course_imports_the_library_by_its_public_path_only():
    # The course may use ledgerlab and its modules; it never reaches a library module by a
    # relative import, which would only work from inside the same folder.
    for path in (LIBRARY / "course").glob("*.py"):
        for name in imported_modules(path):
            assert not name.startswith(".."), f"{path.name}: {name}"


def test_setuptools_ships_both_layers():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^packages = \["ledgerlab", "ledgerlab.course"\]$', text, re.M)
