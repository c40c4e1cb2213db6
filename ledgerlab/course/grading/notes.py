"""The note on a notebook that holds another student's variant key: the teacher's words,
and the student's.

The teacher reads whose key it is (grades.csv, the summary): a copy, or a file handed in
under the wrong name. The student's feedback page says only that the key is not theirs:
naming the classmate would tell a copier whose work was recognised, and a classmate's
name is not the copier's to read.
"""

from __future__ import annotations

import re

# Roster file names are letters, digits and dashes (roster.file_name), so the note is found
# again exactly: no file name can hold the words around it.
_OTHER_KEY = re.compile(r"the notebook holds (?:no student|[\w-]+(?:, [\w-]+)*)'s variant key, "
                        r"not [\w-]+'s: graded on [\w-]+'s")
FOR_STUDENT = ("the notebook holds a variant key that is not yours: graded on your own "
               "variant, the one of the name it is handed in under")


def other_key(owners: list[str], filed: str) -> str:
    """The teacher's note: whose key the notebook holds (``owners``, roster file names; none
    for a key no student has), and whose variant it was graded on."""
    whose = f"{', '.join(owners)}'s" if owners else "no student's"
    return f"the notebook holds {whose} variant key, not {filed}'s: graded on {filed}'s"


def for_student(note: str) -> str:
    """``note`` as the student's feedback page gives it: a key note names no one."""
    return _OTHER_KEY.sub(FOR_STUDENT, note)
