"""What the class missed: mistakes grouped by kind across variants, each note under what it
is, and the grader's test counts the ones the learner's check() and the docs give."""

from pathlib import Path

from ledgerlab.course import feedback
from ledgerlab.course.exercises import ARTICLE, GRADED, HIDDEN_JAVA_TEXTS, JAVA_TEXTS
from ledgerlab.course.grading import judge, notes, reports
from ledgerlab.course.lessons import tool_turns

from sentences import says
from solved import solve

POINTS = {name: 1 for name in GRADED}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "grading.md"


def graded(name, q1_message="", note=""):
    verdicts = {exercise: feedback.UNANSWERED for exercise in GRADED}
    if q1_message:
        verdicts["q1"] = feedback.wrong(q1_message)
    return judge.Graded(name, verdicts, note, 1.0)


def test_one_mistake_on_two_variants_is_one_kind_without_either_students_numbers():
    results = [graded("a.ipynb", "a 492-byte budget fits the newest turn too; the exercise wants "
                                 "a budget that would fit only the older turn."),
               graded("b.ipynb", "a 808-byte budget fits the newest turn too; the exercise wants "
                                 "a budget that would fit only the older turn.")]
    page = reports.summary_page(results, POINTS)
    assert "- 2 x a …-byte budget fits the newest turn too" in page
    assert "492" not in page and "808" not in page


def test_a_number_in_a_word_stays():
    assert reports.mistake_kind("for test text #3 (4 code points, 10 UTF-8 bytes) U+FFFF") == \
        "for test text #3 (… code points, … UTF-8 bytes) U+FFFF"


def test_a_copied_notebook_that_ran_to_the_end_is_not_listed_as_one_that_did_not():
    copied = graded("grace.ipynb", note=notes.other_key(["ada"], "grace"))
    died = graded("kim.ipynb", note="stopped: the kernel died in cell 3 of 4 (killed by SIGKILL); "
                                    "the answers read before count")
    page = reports.summary_page([copied, died, graded("x.ipynb", note=judge.NOT_ON_ROSTER)], POINTS)
    heading = {kind: f"## {title}" for kind, title in reports.NOTE_LISTS}
    ran_out = page.split(heading["ran out"])[1].split("##")[0]
    assert "kim.ipynb" in ran_out and "grace" not in ran_out and "x.ipynb" not in ran_out
    assert "grace.ipynb" in page.split(heading["look at"])[1]
    assert "x.ipynb" in page.split(heading["not graded"])[1].split("##")[0]


def test_the_graders_test_counts_are_checks_and_the_docs_say_both():
    answers = solve(ARTICLE)
    q3 = GRADED["q3"].grade(*answers["q3"], fixture=ARTICLE).message
    q9 = GRADED["q9"].grade(*answers["q9"], fixture=ARTICLE).message
    assert q3.startswith(GRADED["q3"].check(*answers["q3"]).message)
    assert q3.startswith(f"all {len(JAVA_TEXTS)} test texts") and "hidden tests" in q3
    assert q9.startswith(f"all {len(tool_turns.CASES)} test lists") and "hidden tests" in q9
    docs = " ".join(DOCS.read_text(encoding="utf-8").split())
    says(docs, "exercise 3", "check()", len(JAVA_TEXTS), "texts",
         len(HIDDEN_JAVA_TEXTS), "exercise 9", len(tool_turns.CASES), "message lists",
         len(tool_turns.HIDDEN_CASES), in_order=True)
