"""``Graded``: one submission's result, what ``judge`` makes and ``reports`` writes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..feedback import Feedback


@dataclass(frozen=True)
class Graded:
    """One submission's verdicts, and why none was made if it could not be graded."""

    submission: str
    verdicts: dict[str, Feedback]
    note: str  # "" when the notebook ran to the end
    seconds: float
    written: dict[str, str] = field(default_factory=dict)  # the answers in words, not scored
    # Why none of it was graded (not a notebook, nothing handed in, a run that stopped before
    # any answer came back), "" when it was: a technical failure, said as one on every page
    # and gradebook comment, never as exercises left unanswered.
    failure: str = ""
    # Whether the platform marked the file late (Canvas's LATE in its name, Moodle's
    # worksheet, kept by collect): True or False, None where nothing says (Moodle's names
    # alone, a plain file, nothing handed in).
    late: bool | None = None
    # False for the row of a student who handed nothing in: a failure that still scores 0.
    handed_in: bool = True

    @property
    def has_score(self) -> bool:
        """Whether it has a score: it was graded, or nothing was handed in (0 by the course's
        rule). A file that could not be graded (not a notebook, malformed, damaged in the
        download, a run that stopped before any answer came back) has none: its grade is left
        blank wherever a teacher reads or imports it, never a 0 for answers no one judged."""
        return not self.failure or not self.handed_in

    def score(self, points: dict[str, int]) -> dict[str, int]:
        return {name: points[name] * bool(self.verdicts[name]) for name in points}
