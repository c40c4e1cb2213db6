"""The notebooks as learners open them: ``learner/``, and each learner's own copies.

``notebooks/`` holds the course executed, for strict nbval and the site: every saved
output is there, the answer of every prediction just below the cell that asks for it.
Nobody learns from that. ``learner/`` holds the same notebooks with no outputs, no
execution counts and no widget state, so nothing shows before its cell is run; it is
committed, written from ``notebooks/`` by ``build`` (``make notebooks`` runs it after the
course has run), and a test fails if it is not ``clean()`` of ``notebooks/``.

Every way a learner opens the course starts from it: ``make lab`` fills ``work/`` (not
committed) with ``fill``, which adds the notebooks that are not there yet and never
overwrites one, so a learner's work survives a ``git pull`` and a rebuild; Binder and a
class hub open ``learner/`` itself; the Lite edition's copies and the graded edition's
student notebooks are ``clean()`` too.

    python -m ledgerlab.course.learner build        # learner/ from notebooks/
    python -m ledgerlab.course.learner check        # exit 1 if learner/ is out of date
    python -m ledgerlab.course.learner fill work    # what make lab runs before JupyterLab
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat

from . import paths

PATTERN = "[0-9][0-9]-*.ipynb"  # the course's notebooks: 00-contents ... 14-solutions


def course_notebooks(folder: Path) -> list[Path]:
    """The numbered notebooks of ``folder``, in course order."""
    return sorted(Path(folder).glob(PATTERN))


def clean(notebook):
    """A copy of ``notebook`` that shows nothing before it runs: every code cell without
    outputs or execution count, and no saved widget state."""
    notebook = nbformat.from_dict(json.loads(json.dumps(notebook)))  # a deep copy
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    notebook.metadata.pop("widgets", None)
    return notebook


def clean_text(path: Path) -> str:
    """``clean()`` of the notebook at ``path``, as ``nbformat.write`` writes it."""
    text = nbformat.writes(clean(nbformat.read(path, as_version=4)))
    return text if text.endswith("\n") else text + "\n"


def stale(source: Path | None = None, target: Path | None = None) -> list[str]:
    """What ``build`` would change in ``target``: notebooks missing there, different from
    ``clean()`` of ``source``'s, or left over from a notebook ``source`` no longer has."""
    source = paths.notebooks() if source is None else Path(source)
    target = paths.learner() if target is None else Path(target)
    expected = {path.name: path for path in course_notebooks(source)}
    found = {path.name: path for path in course_notebooks(target)}
    changed = [name for name, path in expected.items()
               if name not in found or found[name].read_text(encoding="utf-8") != clean_text(path)]
    return sorted(changed + [name for name in found if name not in expected])


def build(source: Path | None = None, target: Path | None = None) -> list[str]:
    """Write ``target`` (``learner/``) as ``clean()`` of every notebook of ``source``
    (``notebooks/``), and remove a numbered notebook ``source`` no longer has. Returns the
    names it wrote or removed."""
    source = paths.notebooks() if source is None else Path(source)
    target = paths.learner() if target is None else Path(target)
    target.mkdir(parents=True, exist_ok=True)
    changed = stale(source, target)
    for name in changed:
        if (source / name).is_file():
            (target / name).write_text(clean_text(source / name), encoding="utf-8")
        else:
            (target / name).unlink()
    return changed


def fill(folder: Path, source: Path | None = None) -> tuple[list[str], list[str]]:
    """Copy into ``folder`` each notebook of ``source`` (``learner/``) that ``folder`` does
    not have yet; a file already there is never touched, whatever it holds. Returns
    (names added, names kept)."""
    source = paths.learner() if source is None else Path(source)
    notebooks = course_notebooks(source)
    if not notebooks:
        raise FileNotFoundError(f"no course notebooks in {source}: "
                                f"python -m ledgerlab.course.learner build writes them")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    added, kept = [], []
    for path in notebooks:
        try:
            copy = open(folder / path.name, "xb")  # "x": refused if anything is there
        except FileExistsError:
            kept.append(path.name)
            continue
        try:
            with copy:
                copy.write(path.read_bytes())
        except BaseException:  # no half copy left behind, to be kept by the next fill
            (folder / path.name).unlink()
            raise
        added.append(path.name)
    return added, kept


def _count(names: list[str]) -> str:
    return f"{len(names)} notebook{'' if len(names) == 1 else 's'}"


def fill_message(folder: Path, added: list[str], kept: list[str]) -> str:
    """The one line ``make lab`` prints before JupyterLab starts."""
    if not kept:
        return (f"{folder}/: {_count(added)} copied from learner/, your own copies "
                f"(nothing shows until you run its cell)")
    return (f"{folder}/: {_count(added)} added from learner/, {_count(kept)} of yours kept as "
            f"they are (delete one to get a fresh copy)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ledgerlab.course.learner",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("build", help="write learner/ from notebooks/ (make notebooks)")
    commands.add_parser("check", help="exit 1 if learner/ is not clean() of notebooks/")
    fill_parser = commands.add_parser("fill", help="copy into DIR the learner notebooks it "
                                      "does not have yet, never overwriting one (make lab)")
    fill_parser.add_argument("dir", type=Path, metavar="DIR")
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            changed = build()
            print(f"learner/: {_count(changed)} written or removed ({', '.join(changed)})"
                  if changed else "learner/: up to date with notebooks/")
        elif args.command == "check":
            changed = stale()
            if changed:
                print(f"learner/ is out of date with notebooks/ ({', '.join(changed)}): run "
                      f"python -m ledgerlab.course.learner build", file=sys.stderr)
                return 1
            print("learner/: up to date with notebooks/")
        else:
            added, kept = fill(args.dir)
            print(fill_message(args.dir, added, kept))
    except (paths.CheckoutMissing, OSError) as error:
        print(f"python -m ledgerlab.course.learner {args.command}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
