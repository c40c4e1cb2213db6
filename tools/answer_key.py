"""Write teacher/answer-key.md, the teacher's answer key, from ledgerlab.course.questions and the rubrics.

    python tools/answer_key.py
"""

from __future__ import annotations

from pathlib import Path

from ledgerlab.course.grading.rubrics import teacher_key

KEY = Path(__file__).resolve().parent.parent / "teacher" / "answer-key.md"

if __name__ == "__main__":
    KEY.write_text(teacher_key(), encoding="utf-8")
    print(f"wrote {KEY}")
