"""A class's roster: each student's variant of the graded exercises, and where it is filed.

``make assignment ROSTER=names.txt`` reads the roster (one name per line), derives each
student's variant key from the name and the teacher's secret (``exercises.variant_key``),
and records the keys in ``autograder/roster.json``: grading needs that file, not the secret.
A key whose variant has an answer the course's saved outputs show (a figure an earlier
notebook prints, the article's own answer, or the self-paced edition's, which 14-solutions
prints) is passed over for the name's next one, so no student finds an answer by scrolling.
Each student's notebooks go to ``students/<file name>/``, and a submission is graded on the
variant of the file name it is handed in under, ``<file name>.ipynb``, whatever key the
notebook itself holds.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import unicodedata
from functools import cache
from pathlib import Path

from ..exercises import ARTICLE, SELF_PACED, Variant, variant, variant_key
from ..exercises.variants import normalized
from ..lessons.images_loops_and_reasoning import reasoned_figures
from ..lessons.pinned_facts import facts_figures
from ..lessons.prompt_caching import cache_figures
from ..lessons.summaries_and_evidence import summary_figures
from ..lessons.the_boundary_table import grow_answer, java_gap, requests_full
from ..lessons.the_ledger import reopened, torn_journal
from ..lessons.two_limits import window_figures
from .files import FileTooLarge, NotRegularFile, path_argument, read_regular

ROSTER_FILE = "roster.json"
MAX_STUDENTS = 5_000
MAX_NAME = 100  # characters
# A submission is <file name>.ipynb, and a file name has at most 255 bytes: 86 CJK
# characters (3 bytes each), or 100 ligatures that NFKC makes 300 letters, pass MAX_NAME.
MAX_FILE_BYTES = 255 - len(".ipynb")
# Every character str.splitlines ends a line at, but the line feed (and a CRLF's CR).
SEPARATORS = frozenset("\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
MAX_ATTEMPTS = 1_000  # keys tried per name before giving up (about two are needed)
SECRET_BYTES = 32
# What is read of the teacher's files, at most: 5,000 names of 100 four-byte characters are
# 2 MB; the secret make assignment writes is 65 bytes; roster.json, about 750 bytes a student.
MAX_ROSTER_BYTES = 4 * 1024**2
MAX_SECRET_BYTES = 4 * 1024
MAX_ROSTER_JSON_BYTES = 16 * 1024**2
NOT_REGULAR = "not a regular file (a pipe, a device or a folder)"
# A whole number as the course prints it: 1,234 or 1234. The lookarounds keep the digits of
# 1.5 or of "12,34" from reading as numbers of their own, and "(12, 7)" reads as 12 and 7.
NUMBER = re.compile(r"(?<![\d.])(?<!\d,)\d{1,3}(?:,\d{3})+(?!\d|,\d)|(?<![\d.])(?<!\d,)\d+(?!\d|,\d)")


class RosterError(ValueError):
    """The roster or the secret cannot be used; nothing was written."""


def file_name(name: str) -> str:
    """The name a student's folder and submission are filed under: lowercase letters, digits
    and dashes, in ASCII where every letter has an ASCII form (Zoë Ní Bhriain ->
    zoe-ni-bhriain), else in the name's own script (李小龙 -> 李小龙)."""
    name = normalized(name)
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    if all(unicodedata.normalize("NFKD", char).encode("ascii", "ignore")
           for char in name if char.isalpha()):
        name = ascii_name
    return re.sub(r"[\W_]+", "-", name).strip("-")


def read_roster(path: Path) -> list[str]:
    """The names in a roster file: one per line; blank lines and lines starting with # are
    skipped, and runs of spaces (a no-break space pasted from a spreadsheet too) are one
    space; lines end at a line feed or CRLF, and a leading BOM is skipped. Refused, by line
    number and never by name: no names, a name too long (in characters, or its file name
    in bytes), with a control character or another line separator, two names that would
    be filed under one name. Only a regular file is read (a link to one followed), of at
    most MAX_ROSTER_BYTES."""
    path = path_argument(path, "path")
    try:
        # Bytes, not read_text: it ends lines at a CR.
        text = read_regular(path, MAX_ROSTER_BYTES).decode("utf-8")
    except NotRegularFile:
        raise RosterError(f"the roster is {NOT_REGULAR}: it is a text file in UTF-8, one name "
                          f"per line") from None
    except FileTooLarge:
        raise RosterError(f"the roster is larger than {MAX_ROSTER_BYTES:,} bytes: it is one "
                          f"name per line, for at most {MAX_STUDENTS:,} students") from None
    except (OSError, UnicodeDecodeError) as error:
        raise RosterError(f"cannot read the roster ({type(error).__name__}): it is a text file "
                          f"in UTF-8, one name per line") from None
    text = text.removeprefix("\ufeff")  # Excel's "CSV UTF-8" starts with a BOM
    # Lines end at a line feed (or CRLF) only: the other characters str.splitlines ends a
    # line at (U+2028, U+0085, \x1c, \v, ...) would make one name two students.
    raw = [line.removesuffix("\r") for line in text.split("\n")]
    for number, line in enumerate(raw, start=1):
        if any(char in SEPARATORS for char in line):
            raise RosterError(f"line {number}: a name with a line or record separator in it "
                              f"(one name per line, lines ending in a line feed)")
    lines = [(number, " ".join(line.split())) for number, line in enumerate(raw, start=1)]
    names = [(number, name) for number, name in lines if name and not name.startswith("#")]
    if not names:
        raise RosterError("the roster has no names: one name per line")
    if len(names) > MAX_STUDENTS:
        raise RosterError(f"the roster has {len(names):,} names; at most {MAX_STUDENTS:,}")
    seen: dict[str, int] = {}
    for number, name in names:
        if len(name) > MAX_NAME:
            raise RosterError(f"line {number}: a name longer than {MAX_NAME} characters")
        if not name.isprintable():
            raise RosterError(f"line {number}: a name with a control or formatting character")
        filed = file_name(name)
        if not filed:
            raise RosterError(f"line {number}: a name with no letter or digit to file it under")
        if len(filed.encode("utf-8")) > MAX_FILE_BYTES:
            raise RosterError(f"line {number}: a name whose folder name would be longer than "
                              f"{MAX_FILE_BYTES} bytes in UTF-8 (a file name has at most 255, "
                              f"with .ipynb): shorten it")
        if filed in seen:
            raise RosterError(f"lines {seen[filed]} and {number} would be filed under the same "
                              f"name: make them differ in a letter or digit")
        seen[filed] = number
    return [name for _, name in names]


def read_secret(path: Path, *, create: bool = False) -> bytes:
    """The teacher's secret, from a file only the teacher can read. With ``create``, a file
    that does not exist is made (32 random bytes, as hex, mode 0600). Only a regular file
    is read (a link to one followed), of at most MAX_SECRET_BYTES."""
    path = path_argument(path, "path")
    if not isinstance(create, bool):
        raise TypeError(f"create must be a bool, not {type(create).__name__}")
    if create and not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as error:  # a link to nowhere, a folder that cannot be made
            raise RosterError(f"cannot make the secret file ({error.strerror})") from None
        with open(fd, "w") as file:
            file.write(secrets.token_hex(SECRET_BYTES) + "\n")
    try:
        secret = read_regular(path, MAX_SECRET_BYTES).strip()
    except NotRegularFile:
        raise RosterError(f"the secret file is {NOT_REGULAR}: make assignment writes it as "
                          f"a file of 64 hex digits") from None
    except FileTooLarge:
        raise RosterError(f"the secret file is larger than {MAX_SECRET_BYTES:,} bytes: it is "
                          f"not one make assignment wrote (64 hex digits)") from None
    except OSError as error:
        raise RosterError(f"cannot read the secret file ({error.strerror})") from None
    if len(secret) < 16:
        raise RosterError("the secret file holds fewer than 16 bytes: too easy to guess")
    return secret


def readable_by_others(path: Path) -> bool:
    """Whether the secret file's mode lets another user read it (then anyone with their own
    key could try secrets offline, and make a classmate's key from the right one)."""
    return bool(os.stat(path).st_mode & 0o077)


def shown_numbers(notebooks: list[dict]) -> set[int]:
    """Every whole number in the outputs of the course's notebooks (text, HTML and JSON
    outputs, not the images), as a learner who runs or scrolls them sees it: 1,234 is 1234."""
    numbers = set()
    for notebook in notebooks:
        for cell in notebook.get("cells", []):
            for output in cell.get("outputs", []):
                texts = [output.get("text", "")]
                texts += [value for kind, value in output.get("data", {}).items()
                          if not kind.startswith("image/")]
                for text in texts:
                    if isinstance(text, list):  # a notebook file's lines
                        text = "".join(text)
                    elif not isinstance(text, str):  # a JSON output
                        text = json.dumps(text)
                    text = re.sub(r"base64,[A-Za-z0-9+/=]+", "", text)  # an image in HTML
                    numbers.update(int(found.replace(",", "")) for found in NUMBER.findall(text))
    return numbers


def expected(v: Variant) -> dict[str, tuple]:
    """The right answers on ``v`` of the exercises whose answer is a value, exercise 1 aside
    (its history is the learner's own). Grading's, not the learner's: it is no check."""
    return {"q2": (grow_answer(v),), "q4": (java_gap(v).start,), "q5": (requests_full(v),),
            "q6": reopened(torn_journal(v)), "q7": (window_figures(v)["answer"],),
            "q8": (facts_figures(v)["answer"],), "q10": (summary_figures(v)["answer"],),
            "q11": (reasoned_figures(v)["answer"],), "q12": (cache_figures(v.key)["answer"],)}


@cache
def _published_answers() -> tuple[dict[str, tuple], ...]:
    """The answers anyone can read: the article's (what the lessons' figures lead to) and the
    self-paced edition's (14-solutions prints them). A journal opened and requests made:
    once per process."""
    return expected(ARTICLE), expected(SELF_PACED)


def shown_answers(v: Variant, shown: set[int]) -> list[str]:
    """The exercises of ``v`` whose answer a learner could read instead of work out: the
    article's or the self-paced edition's own answer, or for an answer of three digits or
    more a number the course prints. Small counts (turns, smileys) are printed everywhere,
    so for them only the published answers are avoided."""
    answers = expected(v)
    return [name for name, right in answers.items()
            if any(right == published[name] for published in _published_answers())
            or any(value >= 100 and value in shown for value in right)]


def _keys(secret: bytes, name: str):
    """The name's keys in the order they are tried, made as they are asked for."""
    return (variant_key(secret, name, attempt) for attempt in range(MAX_ATTEMPTS))


def assign(names: list[str], secret: bytes, shown: set[int],
           previous: dict[str, dict[str, str]] | None = None) -> dict[str, dict[str, str]]:
    """file name -> {"name", "key"}: each student's first key whose answers do not show.

    A student in ``previous`` (the roster of the build this one replaces) under the same name
    keeps the key they have, if this secret makes it: their handed-out notebook holds it, so
    a rebuild (a late student added, the course pulled again) must not re-key them, even if
    the course now prints one of their answers."""
    students = {}
    for name in names:
        had = (previous or {}).get(file_name(name), {})
        if had.get("name") == name and had.get("key") in _keys(secret, name):  # still this secret's
            key = had["key"]
        else:
            key = next((key for key in _keys(secret, name)
                        if not shown_answers(variant(key), shown)), None)
            if key is None:
                raise RosterError(f"no variant for {file_name(name)} after {MAX_ATTEMPTS} keys")
        students[file_name(name)] = {"name": name, "key": key}
    return students


def write_roster(autograder: Path, students: dict[str, dict[str, str]]) -> None:
    (Path(autograder) / ROSTER_FILE).write_text(json.dumps(students, indent=1,
                                                           ensure_ascii=False) + "\n")


def read_students(autograder: Path) -> dict[str, dict[str, str]] | None:
    """file name -> {"name", "key"} from an assignment's roster, or None for an assignment
    built without one (every submission is graded on the self-paced edition's variant)."""
    path = path_argument(autograder, "autograder") / ROSTER_FILE
    try:
        data = read_regular(path, MAX_ROSTER_JSON_BYTES)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise RosterError(f"{ROSTER_FILE} is {NOT_REGULAR}") from None
    except FileTooLarge:
        raise RosterError(f"{ROSTER_FILE} is larger than {MAX_ROSTER_JSON_BYTES:,} bytes: "
                          f"not one that make assignment wrote") from None
    except OSError as error:
        raise RosterError(f"cannot read {ROSTER_FILE} ({error.strerror})") from None
    try:
        students = json.loads(data.decode("utf-8"))
        for file, entry in students.items():
            if not (isinstance(file, str) and isinstance(entry["name"], str)):
                raise TypeError
            variant(entry["key"])
    except (ValueError, TypeError, KeyError, AttributeError):  # VariantError and JSON's too
        raise RosterError(f"{ROSTER_FILE} is not one that make assignment wrote") from None
    if not students:
        raise RosterError(f"{ROSTER_FILE} has no students")
    return students


def read_keys(autograder: Path) -> dict[str, str] | None:
    """file name -> key, as ``read_students`` reads them."""
    students = read_students(autograder)
    return None if students is None else {file: entry["key"] for file, entry in students.items()}
