"""The set-up a new user relies on: dependencies listed alike, a Binder that builds, a
light import; and what the import contracts cannot say: a fresh interpreter's imports, names
taken across modules, the course on the library's public names, no notebook reaching a private
module.

The layers themselves (the library never imports the course, nor a plotting or notebook
package; the journal knows nothing of requests; the dialects build on the bottom layers; the
quizzes draw nothing; no cycle between siblings) are import-linter contracts in pyproject.toml, which `lint-imports` checks in
`make check` and `make test`."""

import ast
import functools
import json
import os
import re
import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

import pytest
import setuptools

import ledgerlab

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_library_docs_name_every_runtime_dependency():
    runtime = {name for name, _ in pip_dependencies(extras=())}
    section = (ROOT / "docs" / "library.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    named = set(re.findall(r"^  - `([A-Za-z0-9_.\-]+)`: ", section, re.M))
    assert runtime and named == runtime, f"docs/library.md names {sorted(named)}"


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
COURSE = LIBRARY / "course"
LIBRARY_MODULES = sorted(path for path in LIBRARY.rglob("*.py")
                         if "course" not in path.relative_to(LIBRARY).parts)
COURSE_MODULES = sorted(COURSE.rglob("*.py"))
ALL_MODULES = sorted(LIBRARY.rglob("*.py"))


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def relative(path):
    return str(path.relative_to(LIBRARY))


def test_importing_the_library_loads_no_course_module_and_no_heavy_package():
    modules = ", ".join(module_name(path) for path in LIBRARY_MODULES
                        if path.name != "__main__.py")
    code = (f"import sys, {modules}\n"
            f"heavy = {HEAVY!r}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
            "             or m.startswith('ledgerlab.course')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@functools.cache
def import_statements(path, source=None):
    """Every import statement of ``path``, at any depth (lazy imports in functions too);
    ``source`` is the module's text (by default, the file's). Each file is parsed once for all
    the tests below."""
    source = path.read_text(encoding="utf-8") if source is None else source
    return tuple(node for node in ast.walk(ast.parse(source))
                 if isinstance(node, (ast.Import, ast.ImportFrom)))


def imported_modules(path):
    """Every module ``path`` imports, at any depth (lazy imports in functions too)."""
    names = set()
    for node in import_statements(path):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.add(base)
            names |= {f"{base}.{alias.name}" if node.module else base + alias.name
                      for alias in node.names}
    return names


def resolved(path, name):
    """``name`` as ``path`` imports it, a relative import resolved against its package."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    package = path.parent.relative_to(ROOT).parts
    rest = name[level:]
    return ".".join((*package[:len(package) - level + 1], *([rest] if rest else [])))


def test_the_tokenizer_is_imported_only_by_the_token_module_and_only_when_counting():
    for path in LIBRARY_MODULES:
        if path.name != "tokens.py":
            assert "tiktoken" not in {n.split(".")[0] for n in imported_modules(path)}, path.name
    top_level = ast.parse((LIBRARY / "tokens.py").read_text(encoding="utf-8")).body
    assert not any(isinstance(node, (ast.Import, ast.ImportFrom)) and "tiktoken" in ast.dump(node)
                   for node in top_level)


def test_the_course_imports_the_library_by_its_public_path_only():
    # The course may use ledgerlab and its modules; it never reaches a library module by a
    # relative import, which would only work from inside the same folder.
    relative_reaches = [f"{relative(path)}: {name}" for path in COURSE_MODULES
                        for name in imported_modules(path) if name.startswith(".")
                        and not resolved(path, name).startswith("ledgerlab.course")]
    assert not relative_reaches


# --- One direction, public names: no cycle through a package, no private name across modules,
# the course on the library's __all__ and its commands' console only (lazy imports inside
# functions count, as they run too).
MODULES = {module_name(path): path for path in ALL_MODULES}
PACKAGES = {module_name(path) for path in ALL_MODULES if path.name == "__init__.py"}


def imports_from(path, source=None):
    """(module, name) for every ``from module import name`` in ``path`` (relative ones
    resolved), and (module, None) for every ``import module``, at any depth. ``source`` is
    the module's text (by default, the file's)."""
    found = []
    for node in import_statements(path, source):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = resolved(path, "." * node.level + (node.module or ""))
            found += [(module, alias.name) for alias in node.names]
    return found


def import_graph():
    """Each ledgerlab module and the ledgerlab modules it imports (a submodule named in a
    from-import is the submodule)."""
    graph = {}
    for name, path in MODULES.items():
        targets = set()
        for module, imported in imports_from(path):
            target = f"{module}.{imported}" if f"{module}.{imported}" in MODULES else module
            if target in MODULES and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def reached_from(graph, start):
    """Every module ``start`` imports, directly or through others."""
    reached, todo = set(), [start]
    while todo:
        for target in graph[todo.pop()] - reached:
            reached.add(target)
            todo.append(target)
    return reached


def test_no_package_is_imported_back_by_what_it_imports():
    """The contract "No import cycles" (lint-imports) sees cycles between siblings. A package's
    __init__ is no sibling of its own modules: a module that imports the package which imports
    it (``from ledgerlab import Turn`` inside the library) is a cycle only this test sees."""
    graph = import_graph()
    looped = sorted(package for package in PACKAGES if package in reached_from(graph, package))
    assert not looped, f"import cycles through the __init__ of {looped}"


def private_names(path, source=None):
    """The ``_private`` names ``path`` takes from another module."""
    return [f"{module}.{name}" for module, name in imports_from(path, source)
            if name and name.startswith("_") and not name.startswith("__")
            and f"{module}.{name}" not in MODULES]


def test_no_private_name_is_imported_from_another_module():
    taken = {relative(path): names for path in ALL_MODULES if (names := private_names(path))}
    assert not taken, f"private names imported from another module: {taken}"


# What the course's commands print with and run through: the ledgerlab command's own, so that
# both commands escape untrusted text by one rule and end alike on an error or a lost stdout.
# It is public for commands, not for notebooks, so it is not in ``ledgerlab.__all__``.
COMMANDS_CONSOLE = "ledgerlab.console"


def library_reaches(path, source=None):
    """What a course module takes from the library beyond ``ledgerlab.__all__`` and
    ``ledgerlab.console``: a library module, or a name ``ledgerlab`` does not export
    (``__version__`` is metadata, and ``import ledgerlab`` the package itself)."""
    reaches = []
    for module, name in imports_from(path, source):
        if (module.split(".")[0] != "ledgerlab" or module.startswith("ledgerlab.course")
                or module == COMMANDS_CONSOLE and not (name or "").startswith("_")):
            continue
        if module != "ledgerlab":
            reaches.append(module)
        elif name is not None and name not in ledgerlab.__all__ and name != "__version__":
            reaches.append(f"{module}.{name}")
    return reaches


def test_the_course_uses_only_what_the_library_exports():
    taken = {relative(path): reaches for path in COURSE_MODULES
             if (reaches := library_reaches(path))}
    assert not taken, f"taken from the library beyond ledgerlab.__all__: {taken}"


def test_library_reaches_and_private_names_are_caught():
    probe = COURSE / "probe.py"  # where this source would stand; never written
    source = ("from ledgerlab.wire import request_writer\nfrom ledgerlab import check_int\n"
              "from ledgerlab import Turn, __version__\nimport ledgerlab.tokens\n"
              "from ledgerlab.console import say\nfrom ledgerlab.console import _encodable\n"
              "from ledgerlab import say\n"
              "def later():\n    from ..journal.files import _link_new\n")
    assert library_reaches(probe, source) == ["ledgerlab.wire", "ledgerlab.check_int",
                                              "ledgerlab.tokens", "ledgerlab.console",
                                              "ledgerlab.say", "ledgerlab.journal.files"]
    assert private_names(probe, source) == ["ledgerlab.console._encodable",
                                            "ledgerlab.journal.files._link_new"]


@pytest.mark.slow  # a fresh interpreter imports the course's command, and nbformat with it
def test_the_quizzes_exercises_and_measures_draw_nothing():
    # Importing the quizzes (they only measure) must not load matplotlib: 1.2 s of 1.4 s.
    code = ("import sys\n"
            "import ledgerlab.course.questions, ledgerlab.course.exercises\n"
            "import ledgerlab.course.measures, ledgerlab.course.scenario, ledgerlab.course.cli\n"
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_only_paths_names_the_checkout_folders():
    # A wheel has no checkout around it: one module says where its folders are, and what
    # happens when they are absent (ledgerlab/course/paths.py).
    naming = [relative(path) for path in ALL_MODULES if path != COURSE / "paths.py"
              and re.search(r"parents\[|\.parent\.parent|/ *\"(teacher|notebooks|benchmarks)\"",
                            path.read_text(encoding="utf-8"))]
    assert not naming, f"checkout folders named outside paths.py: {naming}"


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "editions").glob("*/*.ipynb"))
# The course's modules and packages (``fixtures``, ``grading``, ...), not ``__main__``.
COURSE_PUBLIC = {name for name in ({path.stem for path in COURSE.glob("*.py")}
                                   | {path.parent.name for path in COURSE.glob("*/__init__.py")})
                 if not name.startswith("_")}


def notebook_imports(path):
    """(module, names) for every import in ``path``'s code cells (magics left out)."""
    found = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines()
                           if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found += [(alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                found.append((node.module, tuple(alias.name for alias in node.names)))
    return found


def private_reaches(module, names):
    """What of ``from module import names`` is not public: a name not in ledgerlab's API, a
    library module, a course module that does not exist, or anything named ``_...``."""
    if module.split(".")[0] != "ledgerlab":
        return []
    parts = module.split(".")
    if parts == ["ledgerlab"]:
        return [name for name in names if name not in ledgerlab.__all__]
    if parts[1] != "course" or len(parts) > 3 or any(p.startswith("_") for p in parts):
        return [module]
    if len(parts) == 2:
        return [name for name in names if name not in COURSE_PUBLIC]
    if parts[2] not in COURSE_PUBLIC:
        return [module]
    return [f"{module}.{name}" for name in names if name.startswith("_")]


def test_no_notebook_imports_a_private_module():
    reaches = {path.name: found for path in NOTEBOOKS
               if (found := [reach for module, names in notebook_imports(path)
                             for reach in private_reaches(module, names)])}
    assert not reaches, f"import from ledgerlab or ledgerlab.course instead: {reaches}"


def test_private_reaches_are_caught():
    assert private_reaches("ledgerlab.journal", ("examine",)) == ["ledgerlab.journal"]
    assert private_reaches("ledgerlab", ("examine", "article")) == ["article"]
    assert private_reaches("ledgerlab.course.grading.sandbox", ()) == [
        "ledgerlab.course.grading.sandbox"]
    assert private_reaches("ledgerlab.course.charts", ("_new_figure",)) == [
        "ledgerlab.course.charts._new_figure"]
    assert private_reaches("ledgerlab.course", ("fixtures", "pinning")) == ["pinning"]
    assert private_reaches("ledgerlab.course.measures", ("suffix_sizes",)) == []


def test_setuptools_ships_every_package_and_the_course_data():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^\[tool\.setuptools\.packages\.find\]\ninclude = \["ledgerlab\*"\]$',
                     text, re.M)
    assert re.search(r'^"ledgerlab\.course" = \["data/\*"\]$', text, re.M)
    packages = {module_name(path) for path in LIBRARY.rglob("__init__.py")}
    assert {"ledgerlab", "ledgerlab.course", "ledgerlab.course.grading"} <= packages
    assert set(setuptools.find_packages(str(ROOT), include=["ledgerlab*"])) == packages
    assert {path.name for path in (COURSE / "data").iterdir()} >= {"results.json",
                                                                   "select-scaling.png"}


def test_the_development_docs_state_no_count_of_tests():
    # A count nothing regenerates is wrong after the next test; pytest prints the real one.
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    counts = re.findall(r"\b\d[\d,]* (?:tests|passed|failed|skipped|xfailed|items)\b", text)
    assert not counts, counts


def test_the_layout_in_the_development_docs_names_every_module_and_tool():
    """docs/development.md's tree is the newcomer's map: every module of ledgerlab and every
    maintainer script in tools/ is on it, under the folder it is in."""
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    tree = text[text.index("## The layout"):].split("```")[1]
    named = set(re.findall(r"[\w-]+\.py", tree))
    files = [*ALL_MODULES, *(ROOT / "tools").glob("*.py")]
    missing = sorted(str(path.relative_to(ROOT)) for path in files
                     if path.name not in named and path.name not in ("__init__.py", "__main__.py"))
    assert not missing, f"not in docs/development.md's layout: {missing}"
