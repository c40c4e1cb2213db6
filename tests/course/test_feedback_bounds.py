"""What feedback echoes of an answer is bounded and inert: a float of 309 digits is not
written out, and a type's name is never Markdown on the feedback page."""

import re

from markdown_it import MarkdownIt

from ledgerlab.course import exercises, feedback
from ledgerlab.course.exercises import GRADED
from ledgerlab.course.grading import judge, reports


def longest_digits(text):
    return max(map(len, re.findall(r"\d+", text)), default=0)


def test_a_huge_float_answer_is_not_echoed_in_full():
    for value in (1e308, -1e300, 1e7):
        message = exercises.q2.check(value).message
        assert longest_digits(message) < 10, message
        assert "not a float" in message
    assert "e.g. 400, not 400.0" in exercises.q4.check(400.0).message  # a small one still is


def test_a_type_name_is_bounded():
    odd = type("T" * 10_000, (), {})()
    assert len(feedback.not_whole(odd, "bytes").message) < 200


def test_a_type_name_on_the_feedback_page_is_never_emphasis_or_html():
    verdicts = {name: feedback.UNANSWERED for name in GRADED}
    verdicts["q2"] = judge.judge("q2", {"n": {"other": "__init__"}})
    verdicts["q4"] = judge.judge("q4", {"java_budget": {"other": "_a_b_"}})
    result = judge.Graded("ada.ipynb", verdicts, "", 1.0)
    page = reports.feedback_page(result, {name: 1 for name in GRADED})
    html = MarkdownIt("commonmark").render(page)
    assert "<strong>init</strong>" not in html and "<em>" not in html
    assert "not a __init__." in re.sub(r"<[^>]+>", "", html)
    assert "not a _a_b_." in re.sub(r"<[^>]+>", "", html)
