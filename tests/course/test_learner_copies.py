"""What learners open shows no result before its cell runs, and their own copies survive.

``notebooks/`` is the course executed (strict nbval, the site): there, every prediction's
answer is saved just below the cell that asks for it. Every copy a learner is served is
made from it without outputs: ``learner/`` (committed; Binder and a class hub open it),
``make lab``'s ``work/`` (filled from ``learner/``, never overwriting a file), the graded
edition's student notebooks and the Lite site's notebooks.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from ledgerlab.course import learner, paths, syllabus
from ledgerlab.course.grading import editions
from sentences import says

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = paths.notebooks()
LEARNER = paths.learner()
COURSE = [path.name for path in learner.course_notebooks(NOTEBOOKS)]
REBUILD = "python -m ledgerlab.course.learner build"


def predict_cells(notebook) -> list[int]:
    """The cells (numbered from 1, as JupyterLab's status bar counts) that ask for a
    prediction: a code cell that checks one (``predict05.check(...)``), or the code cell
    right after a markdown cell that says **Predict**."""
    found, asked = [], False
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type == "markdown":
            asked = bool(re.search(r"\bpredict", cell.source, re.I))
            continue
        if asked or re.search(r"\bpredict\w*\.check\(", cell.source):
            found.append(number)
        asked = False
    return found


def shown(notebook, start: int = 1) -> list[int]:
    """The code cells from cell ``start`` on that show something: outputs or a count."""
    return [number for number, cell in enumerate(notebook.cells, start=1)
            if number >= start and cell.cell_type == "code"
            and (cell.get("outputs") or cell.get("execution_count") is not None)]


def shown_under_predictions(path: Path) -> list[str]:
    """``"cell 18 (under the Predict cell 18)"`` for each cell at or below a Predict cell
    that shows a result."""
    notebook = nbformat.read(path, as_version=4)
    predicts = predict_cells(notebook)
    return [f"cell {number} (under the Predict cell {max(p for p in predicts if p <= number)})"
            for number in (shown(notebook, predicts[0]) if predicts else [])]


def assert_served_clean(folder: Path, names: list[str]) -> None:
    for name in names:
        path = folder / name
        notebook = nbformat.read(path, as_version=4)
        assert not shown_under_predictions(path), \
            f"{path}: a result shows before it is run: {shown_under_predictions(path)}"
        assert not shown(notebook), f"{path} shows outputs in cells {shown(notebook)}"
        assert "widgets" not in notebook.metadata, f"{path} carries widget state"


# --- learner/ ---------------------------------------------------------------------------

def test_learner_holds_every_course_notebook_and_nothing_else():
    assert COURSE and [p.name for p in learner.course_notebooks(LEARNER)] == COURSE
    assert sorted(p.name for p in LEARNER.iterdir()) == COURSE


def test_learner_is_notebooks_without_outputs_byte_for_byte():
    assert learner.stale() == [], f"learner/ is out of date with notebooks/: run {REBUILD}"
    for name in COURSE:  # the same cells, sources and metadata: only the results went
        executed = nbformat.read(NOTEBOOKS / name, as_version=4)
        copy = nbformat.read(LEARNER / name, as_version=4)
        assert [(c.id, c.cell_type, c.source, c.metadata) for c in copy.cells] == \
            [(c.id, c.cell_type, c.source, c.metadata) for c in executed.cells], name
        assert copy.metadata == {k: v for k, v in executed.metadata.items() if k != "widgets"}


def test_no_learner_copy_shows_an_output():
    assert_served_clean(LEARNER, COURSE)


def test_the_predict_cells_are_found_and_the_executed_course_answers_under_them():
    """The check above has teeth: it finds the course's predictions, and under them the
    executed notebooks do show their answers (which the learner copies must not)."""
    predictions = {name: predict_cells(nbformat.read(LEARNER / name, as_version=4))
                   for name in COURSE}
    assert sum(map(len, predictions.values())) >= 20, predictions
    for name in [lesson.file for lesson in syllabus.sessions()]:  # each lesson asks one
        assert predictions[name], f"no Predict cell found in {name}"
    answered = [name for name in COURSE if shown_under_predictions(NOTEBOOKS / name)]
    assert set(COURSE[1:10]) <= set(answered)


def test_predict_cells_are_recognised_by_the_markdown_before_them_or_their_check():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("**Predict.** How many turns?"),
        nbformat.v4.new_code_cell("my_answer = ..."),
        nbformat.v4.new_code_cell("history"),
        nbformat.v4.new_markdown_cell("Now the table."),
        nbformat.v4.new_code_cell("predict04.check(my_answer)"),
        nbformat.v4.new_code_cell("table"),
    ])
    assert predict_cells(notebook) == [2, 5]


def test_clean_drops_outputs_counts_and_widget_state_and_keeps_everything_else():
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=3, metadata={"tags": ["x"]},
                                     outputs=[nbformat.v4.new_output(
                                         "execute_result", {"text/plain": "2"},
                                         execution_count=3)])
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"), cell],
                                        metadata={"widgets": {"state": {}}, "language": "python"})
    cleaned = learner.clean(notebook)
    assert cleaned.cells[1].outputs == [] and cleaned.cells[1].execution_count is None
    assert cleaned.cells[1].metadata == {"tags": ["x"]} and cleaned.cells[1].source == "1 + 1"
    assert cleaned.metadata == {"language": "python"} and cleaned.cells[0].source == "# Title"
    assert notebook.cells[1].outputs and "widgets" in notebook.metadata  # the original kept


def executed_course(folder: Path, names=("00-a.ipynb", "01-b.ipynb")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        cell = nbformat.v4.new_code_cell("print(1)", execution_count=1, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="1\n")])
        nbformat.write(nbformat.v4.new_notebook(cells=[cell]), folder / name)
    return folder


def test_build_writes_clean_copies_removes_leftovers_and_then_has_nothing_to_do(tmp_path):
    source, target = executed_course(tmp_path / "notebooks"), tmp_path / "learner"
    target.mkdir()
    (target / "07-renamed.ipynb").write_text("{}")
    assert learner.build(source, target) == ["00-a.ipynb", "01-b.ipynb", "07-renamed.ipynb"]
    assert sorted(p.name for p in target.iterdir()) == ["00-a.ipynb", "01-b.ipynb"]
    assert_served_clean(target, ["00-a.ipynb", "01-b.ipynb"])
    assert learner.stale(source, target) == [] and learner.build(source, target) == []
    nbformat.write(nbformat.v4.new_notebook(), source / "01-b.ipynb")  # a notebook changes
    assert learner.stale(source, target) == ["01-b.ipynb"]


def test_check_says_how_to_bring_learner_up_to_date(capsys):
    assert learner.main(["check"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    says(out, "learner/", "up to date", "notebooks/", in_order=True)


# --- make lab: work/ --------------------------------------------------------------------

def test_fill_never_overwrites_a_learners_file_even_when_learner_changes(tmp_path):
    source = tmp_path / "learner"
    learner.build(executed_course(tmp_path / "notebooks"), source)
    work = tmp_path / "work"
    assert learner.fill(work, source) == (["00-a.ipynb", "01-b.ipynb"], [])
    assert (work / "00-a.ipynb").read_bytes() == (source / "00-a.ipynb").read_bytes()
    mine = b'{"my": "answers, and the outputs of the cells I ran"}'
    (work / "00-a.ipynb").write_bytes(mine)
    (work / "01-b.ipynb").unlink()  # deleted: the next fill gives a fresh copy
    (work / "notes.ipynb").write_text("mine too")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("v2")]),
                   source / "00-a.ipynb")  # a git pull or make notebooks changes learner/
    nbformat.write(nbformat.v4.new_notebook(), source / "02-new.ipynb")
    for _ in range(2):
        learner.fill(work, source)
    assert (work / "00-a.ipynb").read_bytes() == mine
    assert (work / "notes.ipynb").read_text() == "mine too"
    assert (work / "01-b.ipynb").read_bytes() == (source / "01-b.ipynb").read_bytes()
    assert (work / "02-new.ipynb").read_bytes() == (source / "02-new.ipynb").read_bytes()
    assert learner.fill(work, source) == ([], ["00-a.ipynb", "01-b.ipynb", "02-new.ipynb"])


def test_fill_keeps_a_link_as_it_is_dangling_or_not(tmp_path):
    source = tmp_path / "learner"
    learner.build(executed_course(tmp_path / "notebooks"), source)
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "elsewhere.txt").write_text("not a notebook")
    (work / "00-a.ipynb").symlink_to(tmp_path / "elsewhere.txt")
    (work / "01-b.ipynb").symlink_to(tmp_path / "missing")  # dangling
    assert learner.fill(work, source) == ([], ["00-a.ipynb", "01-b.ipynb"])
    assert (tmp_path / "elsewhere.txt").read_text() == "not a notebook"
    assert not (tmp_path / "missing").exists()


def test_make_lab_prints_one_line_of_what_it_added_and_kept(tmp_path, capsys):
    work = tmp_path / "work"
    assert learner.main(["fill", str(work)]) == 0
    first = capsys.readouterr().out
    assert first.startswith(f"{work}/:") and first.count("\n") == 1
    says(first, f"{len(COURSE)} notebooks", "learner/", "your own", "nothing shows", "run",
         in_order=True)
    (work / COURSE[3]).unlink()
    assert learner.main(["fill", str(work)]) == 0
    second = capsys.readouterr().out
    assert second.startswith(f"{work}/:") and second.count("\n") == 1
    says(second, "1 notebook", "added", "learner/", f"{len(COURSE) - 1} notebooks", "kept",
         "delete", "fresh copy", in_order=True)
    assert_served_clean(work, COURSE)


def test_fill_without_learner_copies_fails_and_says_what_writes_them(tmp_path):
    with pytest.raises(FileNotFoundError, match=REBUILD):
        learner.fill(tmp_path / "work", tmp_path / "nothing")
    assert not (tmp_path / "work").exists()


def test_a_notebook_runs_from_work_as_from_notebooks(tmp_path):
    """work/ sits beside notebooks/: what a notebook imports or finds there is the same
    (ledgerlab.course.paths finds the checkout from the package, not the working folder)."""
    work = tmp_path / "work"
    learner.fill(work)
    probe = ("from ledgerlab.course import paths; print(paths.notebooks(), paths.learner())")
    done = subprocess.run([sys.executable, "-c", probe], cwd=work, capture_output=True,
                          text=True, check=True)
    assert done.stdout.split() == [str(NOTEBOOKS), str(LEARNER)]
    links = {target for name in COURSE
             for cell in nbformat.read(work / name, as_version=4).cells
             if cell.cell_type == "markdown"
             for target in re.findall(r"\]\(([^)#\s]+\.ipynb)", cell.source)}
    assert links and {Path(link).name for link in links} <= set(COURSE)
    assert all("/" not in link for link in links), links  # siblings: they resolve in work/


def test_the_makefile_fills_work_before_lab_and_rebuilds_learner_after_the_run():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^LAB_ROOT \?= work$", makefile, re.M)
    lab = re.search(r"^lab: .*\n((?:\t.*\n)+)", makefile, re.M).group(1).splitlines()
    # The course's own command fills LAB_ROOT, then starts JupyterLab on it
    # (tests/course/test_lab_command.py runs it).
    assert "-m ledgerlab.course lab --root=$(LAB_ROOT) -- $(LAB_ARGS)" in lab[0]
    notebooks = re.search(r"^notebooks: .*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert notebooks.splitlines()[-1].endswith("-m ledgerlab.course.learner build")
    assert "/work/" in (ROOT / ".gitignore").read_text().split()  # git pull never touches it
    clean = re.search(r"^clean:\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "work" not in clean.split(), "make clean must keep the learners' work"


# --- Binder, the hub, the graded edition, Lite ------------------------------------------

def test_binder_and_hub_links_open_the_learner_copies():
    texts = {name: (ROOT / name).read_text(encoding="utf-8") for name in
             ("docs/editions.md", "docs/classroom.md", "editions/classroom/run_class.py")}
    for name, text in texts.items():
        opened = re.findall(r"urlpath(?:=|\": f\")([^)\s\"`]+)", text)
        assert opened, name
        for urlpath in opened:
            path = urlpath.replace("%2F", "/")
            assert path.endswith("learner/00-contents.ipynb") or \
                path.endswith("{LEARNER}/00-contents.ipynb"), (name, urlpath)
    assert 'LEARNER = "learner"' in texts["editions/classroom/run_class.py"]


def test_the_graded_editions_student_notebooks_show_no_output(tmp_path):
    out = editions.build_assignment(tmp_path / "assignment")
    student = sorted(path.name for path in (out / "student").glob("*.ipynb"))
    assert student == [name for name in COURSE if name != editions.SOLUTIONS_NOTEBOOK]
    assert_served_clean(out / "student", student)


def lite_build():
    if importlib.util.find_spec("jupyterlite_pyodide_kernel") is None:
        pytest.skip("the lite extra is not installed (make lite installs it)")
    spec = importlib.util.spec_from_file_location("lite_build", ROOT / "editions" / "lite" /
                                                  "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lite_sites_notebooks_are_learners_and_show_no_output(tmp_path):
    build = lite_build()
    assert build.LEARNER == LEARNER
    build.contents(tmp_path / "files")  # offline: copies and a setup cell, nothing fetched
    assert sorted(p.name for p in (tmp_path / "files").glob("*.ipynb")) == COURSE
    assert_served_clean(tmp_path / "files", COURSE)
    for name in COURSE:
        cells = nbformat.read(tmp_path / "files" / name, as_version=4).cells
        assert cells[0].cell_type == "markdown", name   # it opens on its title
        first_code = next(cell for cell in cells if cell.cell_type == "code")
        assert first_code.source == build.SETUP, name   # and runs the setup cell first


def test_every_documented_static_server_for_lite_listens_on_loopback_only():
    """`python -m http.server` binds every interface unless told otherwise."""
    commands = [line for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                                  ROOT / "teacher" / "TEACHING.md"]
                for line in path.read_text(encoding="utf-8").splitlines()
                if "http.server" in line]
    assert commands, "the Lite docs say how to serve build/lite"
    for line in commands:
        assert "--bind 127.0.0.1" in line, line
