"""The line format of a summaries file, ``<path>.summaries``: the journal's line
(``records``) with the payload ``{"id":...,"text":...,"covers":[...]}``, ``covers`` the ids
of the stored turns the summary covers (one or more, none twice; a summary that named
another when it was added lists that one's turns)."""

from __future__ import annotations

from dataclasses import dataclass

from ..checks import InvalidText
from ..memory import Summary
from .arguments import check_type
from .records import Kind, check_strings, encode_line

SUMMARY_KEYS = ["id", "text", "covers"]


@dataclass(frozen=True)
class SummaryRecord:
    """One decoded line of a summaries file."""

    id: str
    summary: Summary
    sha256: str

    @property
    def item(self) -> Summary:
        return self.summary

    def __repr__(self) -> str:
        return f"SummaryRecord({self.summary!r}, sha256={self.sha256[:12]})"


def encode_summary(summary: Summary) -> bytes:
    """The summaries file's line for one summary, newline included."""
    check_type(summary, "summary", Summary, "a Summary")
    return encode_line({"id": summary.id, "text": summary.text, "covers": list(summary.covers)})


def _summary_record(pairs: list, digest: str) -> SummaryRecord:
    check_strings(pairs[:2], "")
    summary_id, text, covers = (value for _, value in pairs)
    # A JSON object decodes to a subclass of list: only a plain list is an array.
    if type(covers) is not list or not all(isinstance(turn_id, str) for turn_id in covers):
        raise ValueError("payload covers must be an array of strings")
    try:
        summary = Summary(summary_id, text, tuple(covers))
    except (InvalidText, ValueError) as error:
        raise ValueError(f"payload field is invalid: {error}") from None
    return SummaryRecord(summary.id, summary, digest)


SUMMARIES = Kind("summaries file", "summaries", SUMMARY_KEYS, _summary_record)
