"""A rubric for each question answered in words, in the teacher's key."""

from pathlib import Path

from ledgerlab.course.grading import rubrics
from ledgerlab.course.written import BY_ID

KEY = Path(__file__).resolve().parents[2] / "teacher" / "answer-key.md"


def test_every_question_in_words_has_a_rubric_in_the_teachers_key():
    assert set(rubrics.RUBRICS) == set(BY_ID)
    key = KEY.read_text(encoding="utf-8")
    for question in BY_ID.values():
        assert f"### {question.id}: {question.title}, question {question.number} " \
               f"({rubrics.points(question.id)} points)" in key
        assert all(f"- {idea} (1 point)" in key for idea in rubrics.RUBRICS[question.id])
