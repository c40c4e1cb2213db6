"""The line format of a summaries file, ``<path>.summaries``: the journal's line
(``records``) with the payload ``{"id":...,"text":...,"covers":[...]}``, ``covers`` the ids
of the stored turns the summary covers (one or more, none twice; a summary that named
another when it was added lists that one's turns); or, for a provider's compaction item,
``{"id":...,"covers":[...],"dialect":...,"item":...}``, ``item`` its JSON text exactly as
ledgerlab keeps it."""

from __future__ import annotations

from dataclasses import dataclass

from ..checks import InvalidText, InvalidTurn
from ..memory import Compaction, Summary
from .arguments import check_type
from .records import Kind, check_strings, encode_line

SUMMARY_KEYS = ["id", "text", "covers"]
COMPACTION_KEYS = ["id", "covers", "dialect", "item"]


@dataclass(frozen=True)
class SummaryRecord:
    """One decoded line of a summaries file."""

    id: str
    summary: Summary | Compaction
    sha256: str

    @property
    def item(self) -> Summary | Compaction:
        return self.summary

    def __repr__(self) -> str:
        return f"SummaryRecord({self.summary!r}, sha256={self.sha256[:12]})"


def encode_summary(summary: Summary | Compaction) -> bytes:
    """The summaries file's line for one summary or compaction item, newline included."""
    check_type(summary, "summary", (Summary, Compaction), "a Summary or a Compaction")
    if isinstance(summary, Compaction):
        return encode_line({"id": summary.id, "covers": list(summary.covers),
                            "dialect": summary.dialect, "item": summary.item})
    return encode_line({"id": summary.id, "text": summary.text, "covers": list(summary.covers)})


def _summary_record(pairs: list, digest: str) -> SummaryRecord:
    fields = dict(pairs)
    keys = [key for key, _ in pairs]
    if keys not in (SUMMARY_KEYS, COMPACTION_KEYS):
        raise ValueError(f"payload is not an {{{', '.join(SUMMARY_KEYS)}}} or "
                         f"{{{', '.join(COMPACTION_KEYS)}}} object")
    check_strings([pair for pair in pairs if pair[0] != "covers"], "")
    covers = fields["covers"]
    # A JSON object decodes to a subclass of list: only a plain list is an array.
    if type(covers) is not list or not all(isinstance(turn_id, str) for turn_id in covers):
        raise ValueError("payload covers must be an array of strings")
    try:
        if keys == SUMMARY_KEYS:
            summary = Summary(fields["id"], fields["text"], tuple(covers))
        else:
            summary = Compaction(fields["id"], fields["item"], fields["dialect"],
                                 tuple(covers))
            if summary.item != fields["item"]:  # what ledgerlab writes, exactly
                raise ValueError("payload item is not compact JSON")
    except (InvalidText, InvalidTurn, ValueError) as error:
        raise ValueError(f"payload field is invalid: {error}") from None
    return SummaryRecord(summary.id, summary, digest)


# A summary's keys, or a compaction item's (``_summary_record`` takes exactly one of the two).
SUMMARIES = Kind("summaries file", "summaries", ["id"], _summary_record,
                 ("text", "covers", "dialect", "item"))
