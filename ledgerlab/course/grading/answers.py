"""The answers' plain-data format, both ways: what a student's kernel hands back, and
what the grader rebuilds from it.

The grader never trusts what runs in a student's kernel, so the kernel hands back
answers, not verdicts: each exercise's answer variables as tagged plain data (ints,
floats, strings, lists, a ``Turn`` as its two texts, a function as its outputs on the
grading inputs), one line of JSON per exercise behind ``MARK``. ``plain`` and
``answers_json`` run in the kernel; ``from_plain`` rebuilds them, from untrusted JSON,
in the grader's own process, where ``judge`` checks them.
"""

from __future__ import annotations

import copy
import json
import numbers
import operator
import re

from ledgerlab import Turn

from ..exercises import GRADED

MARK = "LEDGERLAB-ANSWERS "  # starts the line of an answers cell's output that is read
# The largest int the grader checks, answer or function output. Every answer in the course is
# a count below a few thousand; checking a larger one costs the grader (exercise 2 builds a
# question of n smileys: n = 5*10**7 took 6 s and 622 MiB), and its feedback would echo it.
MAX_INT = 10**6


# --- In the student's kernel: the answers as plain data ----------------------------------

def plain(value: object, inputs: tuple = (), depth: int = 0) -> dict:
    """``value`` as tagged plain data, computed in the student's kernel.

    Exact builtin types only: an int subclass or a NumPy integer becomes the int it is
    (``operator.index``), and an object of any other type is only its type's name, so an
    object that equals everything is not an answer. A function is its outputs on ``inputs``.
    """
    if value is Ellipsis:
        return {"ellipsis": True}
    if value is None:
        return {"none": True}
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return {"int": operator.index(value)}
    kind = type(value)
    if kind is bool:
        return {"bool": value}
    if kind is float:
        return {"float": value}
    if kind is str:
        return {"str": value}
    if kind in (list, tuple) and depth < 3 and len(value) <= 1000:
        return {kind.__name__: [plain(item, (), depth + 1) for item in value]}
    if kind is Turn and value.plain:  # a question and an answer, as text (what exercise 1 takes)
        return {"turn": [value.question, value.answer]}
    if inputs and callable(value):
        outputs = []
        for argument in inputs:
            try:  # a copy: a function that changes its argument changes no other input
                outputs.append(plain(value(copy.deepcopy(argument)), (), depth + 1))
            except Exception as error:
                outputs.append({"raised": type(error).__name__[:60]})
        return {"function": outputs}
    return {"other": kind.__name__[:60]}


def answers_json(namespace: dict, name: str) -> str:
    """One exercise's answer variables from ``namespace``, as one line of JSON."""
    exercise = GRADED[name]
    found = {variable: plain(namespace[variable], exercise.inputs) if variable in namespace
             else {"missing": True} for variable in exercise.answers}
    return MARK + json.dumps({"exercise": name, "answers": found})


def answers_cell(name: str) -> str:
    """The cell the sandbox adds after the student's: it prints one exercise's answers."""
    return (f"from ledgerlab.course.grading.answers import answers_json as _answers_json\n"
            f"print(_answers_json(globals(), {name!r}))")


# --- In the grader: the answers rebuilt, nothing else ------------------------------------

class AnswerTooLarge(ValueError):
    """An int beyond MAX_INT in an answer: a wrong answer, never checked."""

    def __init__(self, digits: int) -> None:
        super().__init__(f"an int of {digits} digits")
        self.digits = digits


class _Replay:
    """A function answer as the sandbox measured it: its outputs on the grading inputs,
    rebuilt at once, so that an output too large to check is refused before any check."""

    def __init__(self, inputs: tuple, outputs: list) -> None:
        # Pairs, found by equality: an input may be a list (exercise 9's message lists).
        self._outputs = []
        for argument, output in zip(inputs, outputs):
            if isinstance(output, dict) and set(output) == {"raised"}:
                self._outputs.append((argument, _named(str(output["raised"]), Exception)))
            else:
                self._outputs.append((argument, from_plain(output)))

    def __call__(self, argument):
        found = [output for known, output in self._outputs
                 if type(known) is type(argument) and known == argument]
        if not found:
            raise LookupError("no output for this input")
        output = found[0]
        if isinstance(output, type) and issubclass(output, Exception):
            raise output()
        return output


def _named(name: str, base: type = object) -> type:
    """A class named ``name`` (cleaned): feedback that names a type names the student's."""
    return type(re.sub(r"\W", "", name)[:60] or "unreadable", (base,), {})


def from_plain(tagged: object, inputs: tuple = (), depth: int = 0) -> object:
    """The answer that ``plain`` tagged, rebuilt from untrusted JSON: only ints,
    floats, strings, lists, Turns and replayed functions; anything else is an opaque object.
    AnswerTooLarge for an int beyond MAX_INT."""
    if not isinstance(tagged, dict) or len(tagged) != 1 or depth > 4:
        return _named("unreadable")()
    (kind, value), = tagged.items()
    simple = {"int": int, "float": float, "str": str, "bool": bool}
    if kind == "int" and type(value) is int and abs(value) > MAX_INT:
        raise AnswerTooLarge(len(str(abs(value))))  # JSON holds at most 4,300 digits
    if kind in simple and type(value) is simple[kind]:
        return value
    if kind == "ellipsis":
        return Ellipsis
    if kind == "none":
        return None
    if kind in ("list", "tuple") and isinstance(value, list):
        items = [from_plain(item, (), depth + 1) for item in value]
        return items if kind == "list" else tuple(items)
    if kind == "turn" and isinstance(value, list) and len(value) == 2:
        return Turn(*value)  # InvalidText for a non-str: a wrong answer, said so
    if kind == "function" and isinstance(value, list) and inputs:
        return _Replay(inputs, value)
    return _named(str(value) if kind == "other" else "unreadable")()
