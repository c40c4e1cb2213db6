"""Each student's own exercises: variants made from a name and the teacher's secret, checked
and graded on the variant of the name, and no answer of one readable in the course's outputs."""

import json
import os

import nbformat
import pytest

import ledgerlab
from ledgerlab.course import exercises, feedback, fixtures, paths
from ledgerlab.course.exercises import (ARTICLE, EXERCISES, SELF_PACED, VariantError, use_variant,
                                        variant, variant_key)
from ledgerlab.course.grading import cli as grading_cli
from ledgerlab.course.grading import editions, judge, roster
from ledgerlab.course.grading.roster import expected
from ledgerlab.course.lessons import pinned_facts, two_limits

from sentences import saying, says
from solved import solve

SECRET = b"a teacher's secret, kept off the class's machines"
CLASS = ["Ada Lovelace", "Grace Hopper", "Zoë Ní Bhriain"]
KEYS = [variant_key(SECRET, f"student {number}") for number in range(25)]


@pytest.fixture(autouse=True)
def self_paced_afterwards():
    yield
    use_variant(SELF_PACED.key)  # a test that chose a variant leaves the default for the next


# --- Keys and variants ---------------------------------------------------------------------

def test_a_key_is_the_names_hmac_under_the_secret():
    key = variant_key(SECRET, "Ada Lovelace")
    assert len(key) == 16 and set(key) <= set("0123456789abcdef")
    assert key == variant_key(SECRET, "  ada lovelace ")  # trimmed, case folded
    assert key == variant_key(SECRET, "Ada Lovelace")  # and the same every time
    assert key != variant_key(SECRET, "Grace Hopper")
    assert key != variant_key(SECRET + b"!", "Ada Lovelace")
    assert key != variant_key(SECRET, "Ada Lovelace", attempt=1)
    with pytest.raises(VariantError):
        variant_key(SECRET, "   ")


def test_a_key_always_makes_the_same_variant_and_a_bad_key_is_refused():
    assert variant(KEYS[0]) == variant(KEYS[0]) and variant(KEYS[0]) != variant(KEYS[1])
    assert variant("") is ARTICLE
    for bad in ("ABCDEF0123456789", "12345", "g" * 16, 12, None, "0" * 17):
        with pytest.raises(VariantError) as error:
            variant(bad)
        assert "16 lowercase hex digits" in str(error.value)
    assert "Zoë" not in repr(variant(KEYS[0]))  # a short repr, never the texts


def test_a_key_makes_the_same_variant_on_every_python():
    # The student's kernel and the grader each make the variant from the key: a change to how
    # a key makes a variant would grade every class built before it on other figures.
    v = variant("0123456789abcdef")
    answers = expected(v)
    assert (answers["q2"], answers["q5"], answers["q6"], answers["q7"], answers["q8"]) == (
        (18,), (970,), (2, 696), (130,), (436,))
    assert (answers["q4"], v.grow_budget, v.window_reserve) == ((333,), 509, 8)
    assert answers["q12"] == (79072,)  # exercise 12's conversation, drawn by SHA-256 too
    assert v.facts[-1].text == "The deadline is Friday."


def test_use_variant_changes_what_the_exercises_names_are_and_check_uses():
    v = use_variant(KEYS[0])
    from ledgerlab.course.exercises import GROW_BUDGET, HISTORY, SYSTEM
    assert (SYSTEM, HISTORY, GROW_BUDGET) == (v.system, v.history, v.grow_budget)
    assert exercises.torn_journal() == exercises.torn_journal(v) != exercises.torn_journal(ARTICLE)
    assert exercises.q5.check(*expected(v)["q5"])
    use_variant("")
    assert exercises.SYSTEM == fixtures.BOUNDARY_SYSTEM
    assert not exercises.q5.check(*expected(v)["q5"])


@pytest.mark.parametrize("key", KEYS)
def test_every_worked_solution_is_right_on_every_variant_and_the_articles_answers_are_not(key):
    v = variant(key)
    answers = solve(v)
    for exercise in EXERCISES:
        assert exercise.grade(*answers[exercise.name], fixture=v), (key, exercise.name)
    article = expected(ARTICLE)
    for name, right in expected(v).items():
        wrong_here = [value for value in article[name] if value not in right]
        if name == "q6":
            wrong_here = [] if right == article[name] else [article[name]]
        for value in wrong_here[:3]:
            args = value if name == "q6" else (value,)
            assert not exercises.GRADED[name].grade(*args, fixture=v), (key, name, value)


def test_named_mistakes_are_named_on_a_variant_too():
    v = variant(KEYS[2])
    gson = len(ledgerlab.request_bytes(v.system, list(v.history), v.question))
    assert "full request's size under gson" in repr(exercises.q5.check(gson, fixture=v))
    turns, size = expected(v)["q6"]
    assert "swapped" in repr(exercises.q6.check(size, turns, fixture=v))
    tokens = two_limits.window_figures(v)["tokens"]
    assert "reserve must fit" in repr(exercises.q7.check(tokens, fixture=v))
    two = pinned_facts.facts_figures(v)["two_facts"]
    says(repr(exercises.q8.check(two, fixture=v)), "two facts", "section 3", in_order=True)


# --- The roster ------------------------------------------------------------------------------

def test_a_roster_is_one_name_per_line_and_each_is_filed_under_a_plain_name(tmp_path):
    path = tmp_path / "roster.txt"
    path.write_text("# the class of 2027\nAda\u00a0Lovelace\n\n  Grace   Hopper  \nZoë Ní Bhriain\n")
    assert roster.read_roster(path) == CLASS  # a no-break space and runs of spaces are one space
    assert [roster.file_name(name) for name in CLASS] == [
        "ada-lovelace", "grace-hopper", "zoe-ni-bhriain"]
    # A name whose letters have no ASCII form is filed in its own script.
    assert roster.file_name("李小龙") == "李小龙"
    assert roster.file_name("Ζωή Παπαδοπούλου") == "ζωή-παπαδοπούλου"


# What each refusal names: the line (never the name on it) and what is wrong with it.
@pytest.mark.parametrize("text, message", [
    ("", ("no names",)), ("# only a comment\n", ("no names",)),
    ("Ada\nada\n", ("lines 1 and 2", "same name")),
    ("Ada Lovelace\n# a comment\nada-lovelace\n", ("lines 1 and 3", "same name")),
    ("Ada\x07Lovelace\n", ("line 1", "control")),
    ("Ada\u202eLovelace\n", ("line 1", "formatting character")),
    ("x" * 101 + "\n", ("line 1", "100")),
    ("Ada\n!!!\n", ("line 2", "letter", "digit")),
])
def test_a_bad_roster_is_refused_by_line_number_not_by_name(tmp_path, text, message):
    path = tmp_path / "roster.txt"
    path.write_text(text)
    with pytest.raises(roster.RosterError) as error:
        roster.read_roster(path)
    says(str(error.value), *message, in_order=True)
    assert "Lovelace" not in str(error.value)


def test_the_secret_file_is_made_private_and_a_short_secret_refused(tmp_path):
    path = tmp_path / "secret"
    secret = roster.read_secret(path, create=True)
    assert len(secret) == 64 and os.stat(path).st_mode & 0o777 == 0o600
    assert roster.read_secret(path) == secret  # kept, not made again
    path.write_text("short")
    with pytest.raises(roster.RosterError, match="fewer than 16 bytes"):
        roster.read_secret(path)
    with pytest.raises(roster.RosterError, match="cannot read"):
        roster.read_secret(tmp_path / "missing")


def test_shown_numbers_reads_text_html_and_json_outputs_as_a_learner_sees_them():
    cell = nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("stream", text="kept 2 turns, 1,234 bytes; 3.5 MiB (12, 7)"),
        nbformat.v4.new_output("execute_result", data={
            "text/html": '<img src="data:image/png;base64,AAAA999">408 bytes',
            "image/png": "5555", "application/json": {"size": 140}})])
    assert roster.shown_numbers([nbformat.v4.new_notebook(cells=[cell])]) == {
        2, 1234, 3, 12, 7, 408, 140}


# --- The assignment of a class -----------------------------------------------------------------

@pytest.fixture(scope="module")
def class_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("build") / "assignment"
    return editions.build_assignment(out, names=CLASS, secret=SECRET)


def course_outputs():
    """The notebooks of a student's course: 14-solutions is not one (it prints the self-paced
    edition's figures; its answers are avoided as the article's are, by value)."""
    return [nbformat.read(path, as_version=4) for path in sorted(paths.notebooks().glob("*.ipynb"))
            if path.name != editions.SOLUTIONS_NOTEBOOK]


def test_no_answer_of_a_students_variant_shows_in_the_courses_outputs(class_build):
    shown = roster.shown_numbers(course_outputs())
    article = expected(ARTICLE)
    assert {399, 348, 264} <= shown  # the check can fail: the article's answers do show
    students = json.loads((class_build / "autograder" / roster.ROSTER_FILE).read_text())
    assert [entry["name"] for entry in students.values()] == CLASS
    for entry in students.values():
        answers = expected(variant(entry["key"]))
        for name, right in answers.items():
            assert right != article[name], (entry["name"], name)
            assert not [value for value in right if value >= 100 and value in shown], name
    for folder in (class_build / "students").iterdir():  # and the students' copies show nothing
        for path in folder.glob("*.ipynb"):
            notebook = nbformat.read(path, as_version=4)
            assert not any(cell.get("outputs") for cell in notebook.cells), path


def test_each_student_gets_their_own_key_and_figures_and_nobody_elses(class_build):
    students = json.loads((class_build / "autograder" / roster.ROSTER_FILE).read_text())
    assert not (class_build / "student").exists()
    for file, entry in students.items():
        notebook = nbformat.read(class_build / "students" / file / editions.EXERCISES_NOTEBOOK,
                                 as_version=4)
        text = "\n".join(cell.source for cell in notebook.cells)
        v = variant(entry["key"])
        setup, imports = [cell.source for cell in notebook.cells if cell.cell_type == "code"][:2]
        # In the cell that imports the names it sets, first: a restarted kernel stays on it.
        assert "hide_solutions()" in setup and "use_variant" not in setup
        assert imports.index(f"use_variant({entry['key']!r})") < imports.index("import (EXERCISE_FACTS")
        assert f"Hand it in as **`{file}.ipynb`**" in text
        assert [other["key"] in text for other in students.values()].count(True) == 1
        assert f"{v.grow_budget}-byte budget" in text and "235-byte" not in text
        assert f"keeps **{v.window_reserve}** tokens" in text and v.facts[-1].text in text
        assert "a fixture of your own" in text


def test_a_copied_notebook_is_graded_on_the_copiers_variant():
    ada, grace = (variant(variant_key(SECRET, name)) for name in CLASS[:2])
    answers = solve(ada)
    for name in ("q2", "q4", "q5", "q6", "q7", "q8"):
        plain = dict(zip(exercises.GRADED[name].answers,
                         ({"int": value} for value in answers[name])))
        assert judge.judge(name, plain, ada), name
        assert not judge.judge(name, plain, grace), name


def test_a_submission_filed_under_no_roster_name_is_not_graded(class_build, tmp_path):
    keys = roster.read_keys(class_build / "autograder")
    path = tmp_path / "someone-else.ipynb"
    path.write_text("{}")
    result = judge.grade_submission(path, list(exercises.GRADED), keys=keys, sandboxed=False)
    assert result.note == judge.NOT_ON_ROSTER and not any(result.verdicts.values())


@pytest.mark.parametrize("text", ['{"ada": {"name": "Ada", "key": "not hex"}}',
                                  '{"ada": {"name": "Ada", "key": "0123456789ab', "[]",
                                  '{"ada": {"name": 7, "key": "0123456789abcdef"}}'])
def test_a_tampered_roster_file_is_refused(tmp_path, text):
    (tmp_path / roster.ROSTER_FILE).write_text(text)
    with pytest.raises(roster.RosterError, match=saying("make assignment")):
        roster.read_keys(tmp_path)


def test_an_empty_roster_file_is_refused_and_none_is_no_roster(tmp_path):
    (tmp_path / roster.ROSTER_FILE).write_text("{}")
    with pytest.raises(roster.RosterError, match="no students"):
        roster.read_keys(tmp_path)
    assert roster.read_keys(tmp_path / "nothing") is None


def test_a_rebuild_keeps_each_students_key_even_if_the_course_now_shows_an_answer(tmp_path):
    first = roster.assign(CLASS, SECRET, set())
    ada = expected(variant(first["ada-lovelace"]["key"]))
    shown = {ada["q5"][0]}  # the course now prints Ada's exercise 5 answer
    assert roster.assign(CLASS, SECRET, shown)["ada-lovelace"] != first["ada-lovelace"]
    again = roster.assign(CLASS + ["Alan Turing"], SECRET, shown, previous=first)
    assert {file: again[file] for file in first} == first  # nobody re-keyed
    # A key this secret does not make for the name is not kept: another secret re-keys.
    other = roster.assign(CLASS, SECRET + b"!", set(), previous=first)
    assert all(other[file]["key"] != first[file]["key"] for file in first)


def test_the_cli_needs_both_roster_and_secret_and_a_bad_roster_writes_nothing(tmp_path, capsys):
    (tmp_path / "roster.txt").write_text("Ada\nada\n")
    out, secret = tmp_path / "assignment", tmp_path / "secret"
    with pytest.raises(SystemExit):
        grading_cli.main(["assignment", str(out), "--roster", str(tmp_path / "roster.txt")])
    assert grading_cli.main(["assignment", str(out), "--roster", str(tmp_path / "roster.txt"),
                             "--secret-file", str(secret)]) == 2
    says(capsys.readouterr().err, "lines 1 and 2", "same name", in_order=True)
    assert not out.exists() and not secret.exists()


def test_a_notebook_with_another_students_key_is_noted_for_the_teacher():
    keys = {"ada-lovelace": KEYS[0], "grace-hopper": KEYS[1]}
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"from ledgerlab.course.exercises import use_variant\n\nuse_variant('{KEYS[0]}')")])
    assert judge._whose_key(notebook, "ada-lovelace", keys) == ""
    says(judge._whose_key(notebook, "grace-hopper", keys), "ada-lovelace", "variant key",
         "grace-hopper", "graded", "grace-hopper", in_order=True)
    notebook.cells[0].source = f"use_variant('{KEYS[5]}')"
    assert "no student's variant key" in judge._whose_key(notebook, "ada-lovelace", keys)


def test_two_files_for_one_student_are_noted_and_a_missing_student_gets_a_row(tmp_path):
    keys = {"ada-lovelace": KEYS[0], "grace-hopper": KEYS[1], "zoe-ni-bhriain": KEYS[2]}
    paths = [tmp_path / "Ada Lovelace.ipynb", tmp_path / "ada-lovelace.IPYNB",
             tmp_path / "grace-hopper.ipynb"]
    names = list(exercises.GRADED)
    results = [judge.Graded(path.name, {name: feedback.UNANSWERED for name in names}, "", 1.0)
               for path in paths]
    rows = {row.submission: row for row in judge._with_roster_notes(results, paths, keys, names)}
    says(rows["Ada Lovelace.ipynb"].note, "another submission", "ada-lovelace", in_order=True)
    assert rows["ada-lovelace.IPYNB"].note == rows["Ada Lovelace.ipynb"].note
    assert rows["grace-hopper.ipynb"].note == ""
    assert rows["zoe-ni-bhriain.ipynb"].note == judge.NOTHING_HANDED_IN
    assert not any(rows["zoe-ni-bhriain.ipynb"].verdicts.values())


@pytest.mark.slow  # builds the class's assignment three times
def test_the_cli_warns_of_a_readable_secret_and_names_who_a_rebuild_rekeys(tmp_path, capsys):
    (tmp_path / "roster.txt").write_text("\n".join(CLASS) + "\n")
    out, secret = tmp_path / "assignment", tmp_path / "secret"
    build = ["assignment", str(out), "--roster", str(tmp_path / "roster.txt"),
             "--secret-file", str(secret)]
    assert grading_cli.main(build) == 0
    assert "made a new secret" in capsys.readouterr().out
    assert grading_cli.main(build) == 0  # rebuilt with the same secret: nobody re-keyed
    assert "new variant" not in capsys.readouterr().out
    secret.write_text("another secret, long enough\n")
    secret.chmod(0o644)
    assert grading_cli.main(build) == 0
    said = capsys.readouterr().out
    assert "warning: other users can read" in said
    assert "3 students have a new variant" in said and "ada-lovelace" in said
