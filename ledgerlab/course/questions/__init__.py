"""Predictions and check-your-understanding questions for the lessons, notebooks 01 to 12.

A notebook asks before it shows: the learner writes an answer in place of ``...``
and ``check(answer)`` says whether it is right. Every expected answer is computed
from the library when it is checked, never typed in here, so a question cannot
drift from the code it is about. Plausible wrong answers (the wrong unit, a
packing answer, the request instead of the ledger) map to the misconception they
reveal; the feedback names it without giving the answer, which only
``solution()`` shows. The framework is ``ledgerlab.course.feedback``.

``predict02``, ``quiz04`` and so on are the objects the notebooks use, importable from
here; each is defined in its lesson's module, ``ledgerlab.course.lessons.<name>``, named for
its notebook (``the_boundary_table`` holds 04's), and gathered here.
The teacher's answer key, ``teacher/answer-key.md``, is ``answer_key()`` followed by the
rubrics (``grading.rubrics.teacher_key``). Nothing here
draws: the questions measure with ``ledgerlab.course.measures`` (and ``toolturns``) and
never load matplotlib.
"""

from __future__ import annotations

from ..feedback import Discussion, Question, Questionnaire
from ..lessons.prompt_caching import (predict12_cuts, predict12_model, predict12_prefix,
                                      predict12_slider, quiz12)
from ..syllabus import heading

# Each lesson's own, in the course's order: lessons/<name>.py, named for its notebook.
from ..lessons.storage_vs_context import predict01, quiz01
from ..lessons.bad_slice_vs_whole_turn import predict02, predict02_count, quiz02
from ..lessons.the_length_trap import predict03, quiz03
from ..lessons.the_boundary_table import predict04, predict04_first, predict04_second, quiz04
from ..lessons.the_ledger import predict05, predict05_narrow, predict05_torn, predict05_wide, quiz05
from ..lessons.the_costs_of_a_ledger import predict06, quiz06
from ..lessons.two_limits import predict07, predict07_tokens, quiz07
from ..lessons.pinned_facts import predict08, predict08_turns, quiz08
from ..lessons.summaries_and_evidence import predict09, predict09_forget, predict09_room, quiz09
from ..lessons.tool_turns import (predict10, predict10_dialect, predict10_extra, predict10_tools,
                                  quiz10)
from ..lessons.images_loops_and_reasoning import (predict11_image, predict11_loop,
                                                  predict11_reasoning, quiz11)

__all__ = ["answer_key", "NOTEBOOK_QUESTIONS",
           "predict01", "quiz01", "predict02", "predict02_count", "quiz02", "predict03", "quiz03",
           "predict04_first", "predict04_second", "predict04", "quiz04", "predict05_narrow",
           "predict05", "predict05_wide", "predict05_torn", "quiz05", "predict06", "quiz06",
           "predict07", "predict07_tokens", "quiz07", "predict08", "predict08_turns", "quiz08",
           "predict09", "predict09_room", "predict09_forget", "quiz09",
           "predict10", "predict10_tools", "predict10_dialect", "predict10_extra", "quiz10",
           "predict11_image", "predict11_loop", "predict11_reasoning", "quiz11",
           "predict12_model", "predict12_cuts", "predict12_slider", "predict12_prefix", "quiz12"]


def _name_for_progress() -> None:
    """Give each question the id the learner's progress records it by (``progress``): its
    name here, ``quiz04[2]`` for a quiz's question."""
    for name in __all__:
        part = globals().get(name)
        if isinstance(part, Questionnaire):
            for number, question in enumerate(part.questions, start=1):
                if isinstance(question, Question):
                    question.progress_id = f"{name}[{number}]"
        elif isinstance(part, Question):
            part.progress_id = name


_name_for_progress()

# --- The teacher's answer key ------------------------------------------------------------

NOTEBOOK_QUESTIONS = {  # each notebook's heading, from the course's manifest (syllabus.py)
    heading(1): (("Predict", predict01), ("Quiz", quiz01)),
    heading(2): (("Predict", predict02_count), ("Think about it", predict02), ("Quiz", quiz02)),
    heading(3): (("Predict", predict03), ("Quiz", quiz03)),
    heading(4): (("Predict", predict04_first), ("Predict", predict04_second),
                 ("Predict", predict04), ("Quiz", quiz04)),
    heading(5): (("Predict", predict05_narrow), ("Predict", predict05),
                 ("Predict", predict05_wide), ("Predict", predict05_torn), ("Quiz", quiz05)),
    heading(6): (("Predict", predict06), ("Quiz", quiz06)),
    heading(7): (("Predict", predict07), ("Predict", predict07_tokens), ("Quiz", quiz07)),
    heading(8): (("Predict", predict08), ("Predict", predict08_turns), ("Quiz", quiz08)),
    heading(9): (("Predict", predict09), ("Predict", predict09_room),
                ("Predict", predict09_forget), ("Quiz", quiz09)),
    heading(10): (("Predict", predict10), ("Predict", predict10_tools),
                 ("Predict", predict10_dialect), ("Predict", predict10_extra), ("Quiz", quiz10)),
    heading(11): (("Predict", predict11_image), ("Predict", predict11_loop),
                 ("Predict", predict11_reasoning), ("Quiz", quiz11)),
    heading(12): (("Predict", predict12_model), ("Predict", predict12_cuts),
                  ("Predict", predict12_slider), ("Predict", predict12_prefix), ("Quiz", quiz12)),
}


def _key_row(label: str, item: Question | Discussion) -> str:
    if isinstance(item, Discussion):
        answer = f"in words. {item.model_answer[:1].upper()}{item.model_answer[1:]}"
    else:
        answer = f"**{item._answer()}**. {item.explanation[:1].upper()}{item.explanation[1:]}"
    cell = lambda text: text.replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return f"| {cell(label)} | {cell(item.prompt)} | {cell(answer)} |"


def answer_key() -> str:
    """Every prediction and quiz question with its answer, computed from the library now:
    ``teacher/answer-key.md`` is this text (``python tools/answer_key.py`` writes it, and a test
    fails when it drifts)."""
    lines = ["# Answer key: predictions and check-your-understanding questions", "",
             "For teachers. Generated from `ledgerlab/course/questions/` by "
             "`python tools/answer_key.py`; every answer is computed from the library, and "
             "`make test` fails if this file drifts from it. Exercise answers are in "
             "`notebooks/14-solutions.ipynb`.", ""]
    for notebook, parts in NOTEBOOK_QUESTIONS.items():
        lines += [f"## {notebook}", "", "| where | question | answer |", "|---|---|---|"]
        for label, part in parts:
            if isinstance(part, Questionnaire):
                lines += [_key_row(f"quiz[{n}]", q) for n, q in enumerate(part.questions, 1)]
            else:
                lines.append(_key_row(label, part))
        lines.append("")
    return "\n".join(lines)
