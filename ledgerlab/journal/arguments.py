"""What the journal's public functions take: a wrong type is a TypeError that names the
argument (never its value: it may be conversation text), and the Turn ``commit`` stores."""

from __future__ import annotations

import os
from typing import TypeVar

from ..checks import check_id, check_text, id_tag
from ..turns import Turn
from .errors import TurnIdMismatch

T = TypeVar("T")


def check_type(value: T, name: str, kinds: type | tuple[type, ...], expected: str) -> T:
    """``value`` if it is one of ``kinds``; else a TypeError naming the argument and what it
    must be (never the value: it may be conversation text)."""
    if not isinstance(value, kinds):
        raise TypeError(f"{name} must be {expected}, not {type(value).__name__}")
    return value


def check_path(path: object, name: str) -> str:
    """``path`` (a str or an os.PathLike naming a str) as a str; else a TypeError naming the
    argument, or a ValueError for an empty path (which the OS would read as the current
    folder)."""
    named = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not check_type(named, name, str, "a str or os.PathLike path"):
        raise ValueError(f"{name} is empty: give the path of a file")
    return named


def check_name(value: object, name: str) -> str:
    """An id or a text argument: a wrong type is a TypeError naming ``name``; a str that
    UTF-8 cannot encode stays InvalidText."""
    return check_text(check_type(value, name, str, "a str"), name)


def turn_to_commit(turn_id: object, question: object, answer: object, steps: object) -> Turn:
    """The Turn ``commit`` stores, carrying ``turn_id`` as the turns ``history`` returns do:
    the Turn given, or one made of a question, an answer and steps."""
    check_id(check_name(turn_id, "turn_id"), "turn_id")
    if isinstance(question, Turn):
        if answer is not None or steps:
            raise TypeError("commit takes a Turn or a question with its answer, not both: the "
                            "Turn holds its answer and steps")
        if question.id is None:
            return Turn(question.question, question.answer, question.steps, id=turn_id)
        if question.id != turn_id:
            raise TurnIdMismatch(f"the Turn carries the id {id_tag(question.id)}, not "
                                 f"{id_tag(turn_id)}: a turn has one id; nothing written")
        return question
    check_type(question, "question", (str, tuple), "a str, a tuple of parts or a Turn")
    if answer is None:
        raise TypeError("commit needs the answer with a question (or a Turn in its place)")
    check_type(answer, "answer", str, "a str")
    return Turn(question, answer, steps, id=turn_id)  # validates the texts, parts and rounds

