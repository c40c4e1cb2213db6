"""The feedback framework under the exercises and questions, as learntools' ``core``.

``Feedback`` is the outcome of a check (correct, not yet, not answered yet, with a
message that names the mistake); ``Exercise`` and ``Question`` pair a checker with a
hint and a solution; ``as_integral``, ``as_budget`` and ``not_whole`` are the type checks
every answer goes through. What is checked lives in ``exercises`` and ``questions``; how it is told
lives here.
"""

from __future__ import annotations

import ast
import html
import inspect
import math
import numbers
import operator
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from ledgerlab import InvalidText

from . import paths, progress
from .display import PlainText

Answer = int | str

class Feedback:
    """The outcome of a check: ``bool(feedback)`` is True when the answer is right.

    A notebook shows it as a coloured box that also starts with a word (Correct, Not yet,
    Not answered yet), so it does not rely on colour; terminals and nbval see the same
    word in the plain-text repr.
    """

    LABELS = {"correct": "Correct", "incorrect": "Not yet", "unanswered": "Not answered yet"}
    # Blue / vermillion / grey after Okabe-Ito, told apart by colour-blind readers as well;
    # each at least 4.5:1 (WCAG 1.4.3) on the background it is shown on: darker shades on a
    # light theme (white), lighter ones on a dark theme (JupyterLab's #111111 and #212121,
    # the site's #14181E). tests/course/test_contrast.py computes the ratios.
    COLOURS = {"correct": "#005A8C", "incorrect": "#B34700", "unanswered": "#5E5E5E"}
    DARK_COLOURS = {"correct": "#56B4E9", "incorrect": "#FF8A4D", "unanswered": "#ABABAB"}
    # The dark shades apply under JupyterLab's dark theme, the site's (pydata) dark theme
    # and VS Code's; where a <style> is stripped the light shade stays, in the style attribute.
    DARK_THEMES = ('[data-jp-theme-light="false"]', 'html[data-theme="dark"]', "body.vscode-dark")

    def __init__(self, status: str, message: str) -> None:
        if status not in self.LABELS:
            raise ValueError(f"status must be one of {sorted(self.LABELS)}")
        self.status, self.message = status, message

    def __bool__(self) -> bool:
        return self.status == "correct"

    def __repr__(self) -> str:
        return f"{self.LABELS[self.status]}: {self.message}"

    @classmethod
    def dark_css(cls) -> str:
        """The rule that switches each status to its dark shade under a dark theme."""
        rules = "".join(
            ", ".join(f"{theme} .ledgerlab-feedback-{status}" for theme in cls.DARK_THEMES)
            + f" {{ --ledgerlab-feedback-colour: {colour}; }}"
            for status, colour in cls.DARK_COLOURS.items())
        return f"<style>{rules}</style>"

    def _repr_html_(self) -> str:
        # The plain shade first: a sanitizer that drops var() still leaves it.
        light = self.COLOURS[self.status]
        colour = f"var(--ledgerlab-feedback-colour, {light})"
        return (f'{self.dark_css()}<div class="ledgerlab-feedback ledgerlab-feedback-{self.status}" '
                f'style="border-left: 6px solid {light}; border-left-color: {colour}; '
                f'padding: 4px 10px; margin: 2px 0">'
                f'<strong style="color: {light}; color: {colour}">'
                f'{self.LABELS[self.status]}:</strong> '
                f'{html.escape(self.message)}</div>')


def correct(message: str) -> Feedback:
    return Feedback("correct", message)


def wrong(message: str) -> Feedback:
    return Feedback("incorrect", message)


def as_integral(value: object) -> int | None:
    """``value`` as an int if it is a whole number of an integral type, else None.

    Python ints and NumPy integers (what a pandas DataFrame hands back) are accepted;
    bools and floats are not, even 24.0: the course's answers are counts of bytes or turns.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return operator.index(value)


# The largest whole float whose int is shown as an example: 1e308 as an int is 309 digits.
SHOWN_FLOAT = 10**6


def type_name(value: object) -> str:
    """The name of ``value``'s type as feedback gives it: at most 60 characters (a type
    can be given any name, of any length)."""
    return type(value).__name__[:60]


def not_whole(value: object, unit: str) -> Feedback:
    """The feedback for an answer that is not a whole number of ``unit``."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= SHOWN_FLOAT:
        return wrong(f"give a whole number of {unit}, e.g. {int(value)}, not {value!r}: "
                     f"sizes and counts are ints, and / divides to a float.")
    if isinstance(value, float):
        return wrong(f"give a whole number of {unit} (an int), not a float: sizes and counts "
                     f"are ints, and / divides to a float.")
    return wrong(f"give a whole number of {unit} (an int), not a {type_name(value)}.")


def as_budget(value: object) -> int | Feedback:
    """``value`` as a budget in bytes, or the feedback that says why it is not one."""
    budget = as_integral(value)
    if budget is None:
        return not_whole(value, "bytes")
    if budget <= 0:
        return wrong("a budget is a positive number of bytes.")
    return budget


UNANSWERED = Feedback("unanswered", "replace each ... with your answer, then run check() again.")


def recorded(item: str | None, feedback: Feedback) -> Feedback:
    """``feedback``, once its outcome is in the learner's progress file (``progress``): an
    answer checked, right or not, by the question's id; never the answer itself."""
    if item is not None and feedback.status != "unanswered" and progress.enabled():
        progress.record(item, bool(feedback))
    return feedback


def shown(item: str | None, kind: str, text: PlainText) -> PlainText:
    """``text``, a hint or a solution (``kind``) of question ``item``, once the learner's
    progress counts it shown, as ``recorded`` records a check."""
    if item is not None and progress.enabled():
        progress.record_shown(item, kind)
    return text

_hidden_solutions = False


def hide_solutions() -> None:
    """The graded edition: ``solution()`` explains that answers come later."""
    global _hidden_solutions
    _hidden_solutions = True


@lru_cache(maxsize=None)
def worked_solutions(path: Path | None = paths.solutions_file()) -> dict[str, str]:
    """Each exercise's worked solution by name, read as data; {} where the file is absent.

    The worked solutions live in the teacher's file of a checkout (the self-paced
    edition), not in the package: an installed package (the graded edition) and the
    grader's sandbox lack them (``paths``).
    """
    if path is None:
        return {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except OSError:
        return {}
    found = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and [getattr(t, "id", None) for t in node.targets] == ["SOLUTIONS"])
    return ast.literal_eval(found)


class Exercise:
    """One exercise: a checker plus the hint and solution texts.

    The checker's parameter names are the answers ``check`` takes, in order; the
    exercises notebook names its answer variables the same. With ``fixture`` (a function
    returning the fixture to check against, a student's variant) the checker and
    ``hidden`` take that fixture first: ``check`` passes ``fixture()``, a grader the
    fixture of the student a submission is filed under. ``hidden`` is an extra
    test for grading only: it gets the same answers once ``check`` has passed. An
    answer that is a function is graded by its outputs on ``inputs``, which the
    grader's sandbox computes (a function itself never leaves a student's kernel).
    ``name`` (``qN`` by default) is what a notebook calls it, the learner's progress
    records it by and ``teacher/solutions.py`` files its solution under; ``label``
    ("Exercise N" by default) is how it introduces itself.
    """

    def __init__(self, number: int, title: str, checker, hint: str, *, fixture=None,
                 hidden=None, inputs: tuple = (), name: str | None = None,
                 label: str | None = None) -> None:
        self.number, self.title = number, title
        self.name = f"q{number}" if name is None else name
        self.label = f"Exercise {number}" if label is None else label
        self._checker, self._hint, self._fixture = checker, hint, fixture
        self._hidden, self.inputs = hidden, tuple(inputs)
        self.answers = tuple(inspect.signature(checker).parameters)[1 if fixture else 0:]

    @property
    def solution_code(self) -> str:
        """The worked solution as code (it sets the answer variables and ends with the
        check), or "" where the teacher's file is not installed."""
        return worked_solutions().get(self.name, "")

    def check(self, *answer: object, fixture: object = None) -> Feedback:
        return recorded(self.name, self._check(answer, fixture))

    def _check(self, answer: tuple, fixture: object) -> Feedback:
        if len(answer) != len(self.answers):
            names = ", ".join(self.answers)
            return wrong(f"{self.name}.check takes {len(self.answers)} "
                         f"answer{'' if len(self.answers) == 1 else 's'} ({names}); "
                         f"you gave {len(answer)}.")
        if any(part is Ellipsis for part in answer):
            return UNANSWERED
        try:
            return self._checker(*self._given(fixture), *answer)
        except InvalidText as error:  # its message names a field and a size, never text
            return wrong(f"{error}. Every text must be valid Unicode.")
        except UnicodeError:  # its message would quote the offending character
            return wrong("a text in your answer is not valid Unicode (a lone surrogate?).")

    def grade(self, *answer: object, fixture: object = None) -> Feedback:
        """What a grader counts: ``check``, then the hidden test if there is one. Passed,
        the verdict is ``check``'s, with the tests it counts (exercise 3's "all 8 test
        texts"), and says the hidden ones pass too: the hidden test's own words would count
        only its own (its "all 7")."""
        feedback = self._check(answer, fixture)
        if feedback and self._hidden is not None:
            hidden = self._hidden(*self._given(fixture), *answer)
            if not hidden:
                return hidden
            return correct(f"{feedback.message} The grader's hidden tests, more of the same "
                           f"kind, pass too.")
        return feedback

    def _given(self, fixture: object) -> tuple:
        """The fixture argument the checker takes first, if it takes one."""
        if self._fixture is None:
            return ()
        return (self._fixture() if fixture is None else fixture,)

    def hint(self) -> PlainText:
        return shown(self.name, "hint", PlainText(f"Hint: {self._hint}"))

    def solution(self) -> PlainText:
        if _hidden_solutions or not self.solution_code:  # nothing shown: nothing recorded
            return PlainText("Solutions are hidden in this graded edition: your teacher shares "
                             "them after the deadline. check() and hint() still work.")
        return shown(self.name, "solution", PlainText(f"Solution:\n{self.solution_code}"))

    def __repr__(self) -> str:
        return f"{self.label}: {self.title} (check(), hint(), solution())"


# What a number one away from the answer hears, unless the question names that mistake: it
# says neither which way nor by how much the edge is missed beyond "one". Only where the
# plausible answers are many (a size in bytes or tokens): among a few small counts (0 to 3
# turns), "off by one" all but says which is right, so a neighbour of an answer below FEW
# hears the question's hint, and its likely mistakes are named by the question.
OFF_BY_ONE = ("off by one, and close. Recount the edges: something counted twice or missed "
              "(a byte, a line, a turn), or a limit on the wrong side (is the limit itself "
              "allowed?).")
FEW = 10
# A ratio's decimals that tell two mistakes apart (12.5 and 0.05; 0.1 / 2 is 0.05 here).
RATIO_DIGITS = 9
# No digit in it: for a question whose answer is 0, a digit would be a clue.
NEGATIVE = ("a count cannot be negative: every answer here is a number of bytes, tokens, "
            "turns, messages, facts or commits.")


class Question:
    """A question whose answer is a whole number or one of a few words.

    ``answer`` and ``mistakes`` are functions, called at check time: the answer,
    and a map from plausible wrong answers to what each one gets wrong. A number
    one away from an answer of ``FEW`` or more that ``mistakes`` does not name is told it
    is off by one; a negative number is refused as no count at all. ``ratio``: the answer is
    a ratio, not a count, so a float is read too (20.0 as 20), and ``mistakes`` may name
    floats (12.5), matched to ``RATIO_DIGITS`` decimals.
    """

    def __init__(self, prompt: str, answer: Callable[[], Answer], *, explanation: str,
                 hint: str, mistakes: Callable[[], Mapping[Answer, str]] = dict,
                 choices: Sequence[str] = (), ratio: bool = False) -> None:
        self.prompt, self._answer, self.explanation = prompt, answer, explanation
        self._hint, self._mistakes, self.choices = hint, mistakes, tuple(choices)
        self.ratio = ratio
        # Its id in the learner's progress ("predict04_first", "quiz04[2]"): given by
        # ``questions``, which names every question a notebook asks.
        self.progress_id: str | None = None

    def check(self, answer: object = Ellipsis) -> Feedback:
        return recorded(self.progress_id, self._judge(answer))

    def _judge(self, answer: object) -> Feedback:
        if answer is Ellipsis:
            return UNANSWERED
        given = self._read(answer)
        if isinstance(given, Feedback):
            return given
        expected = self._answer()
        if given == expected:
            return correct(self.explanation)
        known = next((message for mistake, message in self._mistakes().items()
                      if mistake == given or self.ratio and isinstance(given, float)
                      and round(mistake, RATIO_DIGITS) == round(given, RATIO_DIGITS)), None)
        if known:
            return wrong(known)
        if not self.choices and expected >= FEW and abs(given - expected) == 1:
            return wrong(OFF_BY_ONE)
        return wrong(f"not {given}. Hint: {self._hint}")

    def _read(self, answer: object) -> Answer | Feedback:
        """The answer in the form the question expects, or feedback saying what form that is."""
        if self.choices:
            word = answer.strip().lower() if isinstance(answer, str) else None
            if word not in self.choices:
                return wrong(f"answer with one of {', '.join(map(repr, self.choices))} (a str).")
            return word
        if self.ratio and isinstance(answer, float) and math.isfinite(answer):
            if answer < 0:
                return wrong(NEGATIVE)
            return int(answer) if answer.is_integer() else answer
        number = as_integral(answer)
        if number is None:
            return wrong(f"answer with a whole number, an int, not {type_name(answer)}: "
                         "the course counts whole bytes and whole turns.")
        if number < 0:
            return wrong(NEGATIVE)
        return number

    def hint(self) -> PlainText:
        return shown(self.progress_id, "hint", PlainText(f"Hint: {self._hint}"))

    def solution(self) -> PlainText:
        explanation = self.explanation[:1].upper() + self.explanation[1:]
        return shown(self.progress_id, "solution",
                     PlainText(f"Answer: {self._answer()}. {explanation}"))

    def __repr__(self) -> str:
        return f"{self.prompt}\n(check(...), hint(), solution())"


class Discussion:
    """A question to answer in words: no check, a model answer in ``solution()``."""

    def __init__(self, prompt: str, model_answer: str) -> None:
        self.prompt, self.model_answer = prompt, model_answer

    def solution(self) -> PlainText:
        return PlainText(f"A model answer: {self.model_answer}")

    def __repr__(self) -> str:
        return f"{self.prompt}\n(answer in words; solution() shows a model answer)"


class Questionnaire:
    """The questions that end a notebook, numbered from 1: ``quiz[1].check(...)``."""

    def __init__(self, title: str, questions: Sequence[Question | Discussion]) -> None:
        self.title, self.questions = title, tuple(questions)

    def __getitem__(self, number: int) -> Question | Discussion:
        if as_integral(number) is None or not 1 <= number <= len(self.questions):
            raise IndexError(f"questions are numbered 1 to {len(self.questions)}")
        return self.questions[number - 1]

    def __len__(self) -> int:
        return len(self.questions)

    def __repr__(self) -> str:
        lines = [f"Check your understanding: {self.title}"]
        for number, question in enumerate(self.questions, start=1):
            how = (f"check it: quiz[{number}].check(...)" if isinstance(question, Question)
                   else f"in words, in the cell after the checks; quiz[{number}].solution() shows a "
                        f"model answer")
            lines.append(f"{number}. {question.prompt}  ({how})")
        return "\n".join(lines)
