"""The article's headline figures are predicted before they are shown, and nothing above a
prediction gives its answer away (notebooks 03, 04 and 05).

04 asks for the 408-byte budget's request and what happens at 139 bytes before its table and
its error; 05 asks for the narrow and wide budgets (264 and 480 bytes) before it selects with
them. Each answer is computed from the library when it is checked (``questions``); these tests
hold the notebooks to it: the answer is not printed or stated at or above the prediction, and is
shown just below it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledgerlab.course import questions
from ledgerlab.course.feedback import FEW
from sentences import says

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PREDICTING = ["03", "04", "05"]
CHECK = re.compile(r"^my_answer = \.\.\.\n(predict\w+)\.check\(my_answer\)$")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?![\w])")
# A word answer is named by other words too: select's refusal is BudgetError, "rejected" in
# the explorers and tables.
SAME_AS = {"refuse": ("refus", "reject", "BudgetError")}


def cells(number: str) -> list[dict]:
    return json.loads(next(NOTEBOOKS.glob(f"{number}-*.ipynb")).read_text())["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def shown(cell: dict) -> str:
    """What a cell shows a reader: a markdown cell's text, a code cell's outputs."""
    if cell["cell_type"] == "markdown":
        return source(cell)
    texts = []
    for output in cell.get("outputs", []):
        texts.append("".join(output.get("text", "")))
        texts += ["".join(value) for mime, value in output.get("data", {}).items()
                  if mime.startswith("text/")]
        texts.append(f"{output.get('ename', '')}: {output.get('evalue', '')}")
    return "\n".join(texts)


def predictions(number: str) -> list[tuple[int, int, object]]:
    """(index of the Predict markdown, index of the check cell, question) for each prediction."""
    found, notebook = [], cells(number)
    for index, cell in enumerate(notebook):
        match = CHECK.match(source(cell)) if cell["cell_type"] == "code" else None
        if match:
            prompt = max(i for i in range(index) if notebook[i]["cell_type"] == "markdown")
            assert "**Predict" in source(notebook[prompt]), (number, index + 1)
            found.append((prompt, index, getattr(questions, match.group(1))))
    return found


ALL = [(number, *found) for number in PREDICTING for found in predictions(number)]


def test_the_headline_figures_are_each_asked_for():
    asked = {number: [question._answer() for _, _, question in predictions(number)]
             for number in PREDICTING}
    # 04's refusal at 139 bytes is asked as the bytes three calls (139, 140, 235) send in all:
    # 0 + 140 + 235, a number a single "Not yet" does not give away as three words would.
    assert asked == {"03": [140], "04": [308, 0 + 140 + 235, 0], "05": [264, 3, 480, 3]}


@pytest.mark.parametrize("number, prompt, check, question", ALL,
                         ids=[f"{n}·{c + 1}" for n, _, c, _ in ALL])
def test_nothing_at_or_above_a_prediction_gives_its_answer(number, prompt, check, question):
    """A number the answer is appears in no text or output up to the check; a word answer (the
    choices are listed in the prompt itself) in none above the prompt. Counts below FEW (0 to 3
    turns) are left out: they appear in every notebook by chance, and the premise of a
    prediction often states them ("three acknowledged turns")."""
    notebook, answer = cells(number), question._answer()
    if isinstance(answer, str):
        words = (answer, *SAME_AS.get(answer, ()))
        for index in range(prompt):
            for word in words:
                assert not re.search(rf"\b{word}", shown(notebook[index]), re.I), \
                    (f"{number} · {index + 1}", word)
    elif answer >= FEW:
        for index in range(check + 1):
            numbers = {int(n.replace(",", "")) for n in NUMBER.findall(shown(notebook[index]))}
            assert answer not in numbers, f"{number} · {index + 1} shows {answer}"


@pytest.mark.parametrize("number, prompt, check, question", ALL,
                         ids=[f"{n}·{c + 1}" for n, _, c, _ in ALL])
def test_each_answer_is_shown_soon_after_its_prediction(number, prompt, check, question):
    notebook, answer = cells(number), question._answer()
    after = "\n".join(shown(cell) for cell in notebook[check + 1:check + 6])
    if question is questions.predict04_second:
        assert "BudgetError: the mandatory input" in after
    elif isinstance(answer, int) and answer >= FEW:
        assert re.search(rf"\b{answer}\b", after), (number, answer)


def test_the_step_chart_comes_after_every_prediction_of_the_boundary_table():
    """The step chart states every budget's outcome ("0 from 140, 1 from 235"): at 04 · 14 it
    answered the 234-byte prediction before it was asked."""
    notebook = cells("04")
    last_check = max(check for _, check, _ in predictions("04"))
    charts = [index for index, cell in enumerate(notebook)
              if "Step chart of turns retained" in shown(cell)]
    assert charts and min(charts) > last_check


def test_the_length_trap_leaves_gsons_outcomes_at_the_tables_budgets_to_04():
    """03 compares encoders by what they keep at the article's budgets: under requests only,
    so that it does not answer 04's predictions (what Gson's request keeps and sends)."""
    for index, cell in enumerate(cells("03")):
        text = shown(cell) if cell["cell_type"] == "code" else ""
        assert "Marked budgets (gson)" not in text, f"03 · {index + 1}"
        assert not ("gson" in text and "rejected" in text), f"03 · {index + 1}"
    assert any("Marked budgets (requests)" in shown(cell) for cell in cells("03"))


def test_the_article_states_these_figures_and_the_notebooks_show_them():
    boundary = "\n".join(shown(cell) for cell in cells("04") if cell["cell_type"] == "code")
    for figure in ("140", "235", "308", "408"):
        assert re.search(rf"^{figure}\s", boundary, re.M), figure  # a row of the table
    says(boundary, "mandatory input", "140 bytes", "budget", "139 bytes", in_order=True)
    ledger = "\n".join(shown(cell) for cell in cells("05") if cell["cell_type"] == "code")
    assert "bytes=264, budget=264" in ledger and "bytes=480, budget=480" in ledger


# --- The questions themselves: the article's figures pass, the likely mistakes are named ---

@pytest.mark.parametrize("question, answer", [
    (questions.predict04_first, 308), (questions.predict04_second, 375),
    (questions.predict05_narrow, 264), (questions.predict05_wide, 480),
])
def test_the_new_predictions_accept_the_articles_figures(question, answer):
    assert question.check(answer) and question.solution().startswith(f"Answer: {answer}. ")


@pytest.mark.parametrize("question, given, named", [
    (questions.predict04_first, 408, "ceiling"),         # the budget as a target
    (questions.predict04_first, 235, "only the newest"),
    (questions.predict04_first, 140, "mandatory input alone"),
    (questions.predict04_first, 266, "envelope"),        # a part left out
    (questions.predict04_first, 168, "two turns alone"),
    (questions.predict04_first, 309, "miscounted"),
    (questions.predict04_first, 307, "miscounted"),
    (questions.predict04_first, 2, "counts turns"),
    (questions.predict03, 138, "nothing for the emoji"),     # 114 + 24: the emoji forgotten
    (questions.predict03, 138, "the full stop 。 is one too"),  # or the 。 forgotten
    (questions.predict03, 142, "on top of its 2 UTF-16 units"),  # the emoji counted +4
    (questions.predict04_second, 514, "cut inside a message"),  # the first call trimmed
    (questions.predict04_second, 515, "ceiling"),  # the first call over its budget
    (questions.predict05_narrow, 365, "both turns"),
    (questions.predict05_narrow, 258, "turn one, the older"),
    (questions.predict05_narrow, 157, "mandatory input alone"),
    (questions.predict05_narrow, 107, "turn two alone"),
    (questions.predict05_narrow, 222, "envelope"),
    (questions.predict05_narrow, 214, "leaves out the question"),
    (questions.predict05_wide, 264, "narrow request"),
    (questions.predict05_wide, 365, "step 2's full request"),
    (questions.predict05_wide, 375, "leaves out turn three"),
    (questions.predict05_wide, 379, "leaves out turn one"),
    (questions.predict05_wide, 530, "both questions"),     # the old question kept as well
    (questions.predict05_wide, 470, "step 2's question"),
    (questions.predict05_wide, 481, "off by one"),
    (questions.predict05_wide, 429, "to step 2's narrow request"),  # the old question kept
    (questions.predict05_wide, 420, "leaves out the question"),
    (questions.quiz04[1], 408, "ceiling"),
    (questions.quiz04[1], 428, "full request now"),
    (questions.quiz04[1], 308, "before the answer grew"),
    (questions.quiz04[1], 235, "as it was"),
])
def test_the_likely_mistakes_are_named(question, given, named):
    feedback = question.check(given)
    assert feedback.status == "incorrect" and named in feedback.message, feedback.message


def test_the_named_mistakes_are_the_fixtures_sums_not_typed_numbers():
    # Each is the answer less what the learner forgot: computed from the fixture's parts.
    from ledgerlab.course.lessons import the_ledger, the_length_trap
    from ledgerlab import utf16_units

    body = the_length_trap._mandatory_body()
    units = utf16_units(body)
    assert (units, questions.predict03._answer()) == (114, 140)
    chinese = sum(1 for char in body if len(char.encode()) == 3)
    assert chinese == 12 and "。" in body and "🙂" in body
    assert set(the_length_trap._length_trap_mistakes()) == {units + 2 * chinese,
                                                            units + 2 * chinese + 4}
    before, now = the_ledger._scenario_parts(2), the_ledger._scenario_parts(4)
    narrow = before["envelope"] + before["system"] + before["turns"][1] + before["question"]
    wide = the_ledger._wide_mistakes()
    assert narrow + now["turns"][2] + now["question"] == 429 and 429 in wide
    assert sum(now["turns"]) + now["envelope"] + now["system"] == 420 and 420 in wide
    assert len(wide) == 10  # no two mistakes share a sum, so none hides another


def test_the_new_predictions_are_in_the_answer_key_in_notebook_order():
    listed = dict(questions.NOTEBOOK_QUESTIONS)
    assert [part for _, part in listed["04 · The boundary table"]][:3] == [
        questions.predict04_first, questions.predict04_second, questions.predict04]
    assert [part for _, part in listed["05 · The ledger"]][:4] == [
        questions.predict05_narrow, questions.predict05, questions.predict05_wide,
        questions.predict05_torn]
    for number in ("04", "05"):
        order = [question for _, _, question in predictions(number)]
        key = [part for name, parts in listed.items() if name.startswith(number)
               for _, part in parts if part in order]
        assert key == order, number


# --- 05's tail rule, shown -------------------------------------------------------------

def test_the_tail_rule_is_shown_cutting_and_refusing():
    notebook = cells("05")
    opened = [shown(cell) for cell in notebook if "(3, 556, 526)" in shown(cell)]
    assert opened, "the torn tail's 30 bytes cut on opening: 556 bytes, then 526"
    refused = [cell for cell in notebook if cell["cell_type"] == "code"
               and any(o.get("ename") == "JournalCorrupt" and "newline was overwritten"
                       in o.get("evalue", "") for o in cell.get("outputs", []))]
    assert len(refused) == 1
    assert refused[0]["metadata"].get("tags") == ["raises-exception"]
