"""A class's roster: each student's variant of the graded exercises, and where it is filed.

``make assignment ROSTER=names.txt`` reads the roster (one name per line), derives each
student's variant key from the name and the teacher's secret (``exercises.variant_key``),
and records the keys in ``autograder/roster.json``: grading needs that file, not the secret.
A key whose variant has an answer the course's saved outputs show (a figure an earlier
notebook prints, or the article's own answer) is passed over for the name's next one, so
no student finds an answer by scrolling. Each student's notebooks go to
``students/<file name>/``, and a submission is graded on the variant of the file name it is
handed in under, ``<file name>.ipynb``, whatever key the notebook itself holds.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import unicodedata
from pathlib import Path

from ..exercises import ARTICLE, Variant, VariantError, expected, variant, variant_key
from ..exercises.variants import normalized

ROSTER_FILE = "roster.json"
MAX_STUDENTS = 5_000
MAX_NAME = 100  # characters
MAX_ATTEMPTS = 1_000  # keys tried per name before giving up (about two are needed)
SECRET_BYTES = 32
# A whole number as the course prints it: 1,234 or 1234, not part of 1.5 or of a longer number.
NUMBER = re.compile(r"(?<![\d.])(?<!\d,)\d{1,3}(?:,\d{3})+(?!\d|,\d)|(?<![\d.])(?<!\d,)\d+(?!\d|,\d)")


class RosterError(ValueError):
    """The roster or the secret cannot be used; nothing was written."""


def file_name(name: str) -> str:
    """The name a student's folder and submission are filed under: lowercase ASCII letters,
    digits and dashes (Zoë Ní Bhriain -> zoe-ni-bhriain)."""
    ascii_name = unicodedata.normalize("NFKD", normalized(name)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name).strip("-")


def read_roster(path: Path) -> list[str]:
    """The names in a roster file: one per line; blank lines and lines starting with # are
    skipped. Refused: no names, a name too long or with a control character, two names that
    are the same student (the same once trimmed and case folded) or share a file name."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RosterError(f"cannot read the roster ({type(error).__name__}): it is a text file "
                          f"in UTF-8, one name per line") from None
    names = [line.strip() for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if not names:
        raise RosterError("the roster has no names: one name per line")
    if len(names) > MAX_STUDENTS:
        raise RosterError(f"the roster has {len(names):,} names; at most {MAX_STUDENTS:,}")
    seen: dict[str, int] = {}
    for number, name in enumerate(names, start=1):
        if len(name) > MAX_NAME or not name.isprintable():
            raise RosterError(f"name {number} is longer than {MAX_NAME} characters or holds a "
                              f"control character")
        if not file_name(name):
            raise RosterError(f"name {number} has no letter or digit to file it under")
        if file_name(name) in seen:
            raise RosterError(f"names {seen[file_name(name)]} and {number} would be filed under "
                              f"the same name: make them differ in a letter or digit")
        seen[file_name(name)] = number
    return names


def read_secret(path: Path, *, create: bool = False) -> bytes:
    """The teacher's secret, from a file only the teacher can read. With ``create``, a file
    that does not exist is made (32 random bytes, as hex, mode 0600)."""
    path = Path(path)
    if create and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(fd, "w") as file:
            file.write(secrets.token_hex(SECRET_BYTES) + "\n")
    try:
        secret = path.read_bytes().strip()
    except OSError as error:
        raise RosterError(f"cannot read the secret file ({error.strerror})") from None
    if len(secret) < 16:
        raise RosterError("the secret file holds fewer than 16 bytes: too easy to guess")
    return secret


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


def shown_answers(v: Variant, shown: set[int]) -> list[str]:
    """The exercises of ``v`` whose answer a learner could read instead of work out: the
    article's own answer (what the course's figures lead to), or for an answer of three
    digits or more a number the course prints. Exercise 4's answer is a range: its ends
    (the mandatory request's UTF-16 units and bytes) must not show, nor any article budget
    fall in it. Small counts are printed everywhere, so only the article's are avoided."""
    article, answers = expected(ARTICLE), expected(v)
    found = []
    for name, right in answers.items():
        if name == "q4":
            ends = {right[0], right[-1] + 1}
            if ends & shown or set(right) & set(article[name]):
                found.append(name)
        elif right == article[name] or any(value >= 100 and value in shown for value in right):
            found.append(name)
    return found


def assign(names: list[str], secret: bytes, shown: set[int]) -> dict[str, dict[str, str]]:
    """file name -> {"name", "key"}: each student's first key whose answers do not show."""
    students = {}
    for name in names:
        for attempt in range(MAX_ATTEMPTS):
            key = variant_key(secret, name, attempt)
            if not shown_answers(variant(key), shown):
                break
        else:
            raise RosterError(f"no variant for {file_name(name)} after {MAX_ATTEMPTS} keys")
        students[file_name(name)] = {"name": name, "key": key}
    return students


def write_roster(autograder: Path, students: dict[str, dict[str, str]]) -> None:
    (Path(autograder) / ROSTER_FILE).write_text(json.dumps(students, indent=1,
                                                           ensure_ascii=False) + "\n")


def read_keys(autograder: Path) -> dict[str, str] | None:
    """file name -> key from an assignment's roster, or None for an assignment built without
    one (every submission is graded on the article's fixture)."""
    path = Path(autograder) / ROSTER_FILE
    if not path.is_file():
        return None
    students = json.loads(path.read_text())
    try:
        keys = {str(file): entry["key"] for file, entry in students.items()}
        for key in keys.values():
            variant(key)
    except (TypeError, KeyError, AttributeError, VariantError):
        raise RosterError(f"{ROSTER_FILE} is not one that make assignment wrote") from None
    return keys
