"""The journal: a durable, append-only ledger of confirmed turns and the facts pinned from them.

One job per module, imported one way (each only from those above it):

- ``errors``: what the journal raises;
- ``arguments``: what its public functions take (a wrong type is a TypeError naming the
  argument), and the Turn ``commit`` stores;
- ``records``: the line format (``encode_record``, ``encode_turn``, ``decode_record``,
  ``examine``, ``scan``);
- ``summaries``: the summaries file's payload (``encode_summary``);
- ``files``: the files on disk, their lock, and the writes a crash cannot tear;
- ``store``: one file of records as a Journal holds it (load, append, rewrite);
- ``salvage``: copying what verifies out of a journal that refuses to open (and what
  a killed salvage leaves, which opening a Journal clears);
- ``ledger``: ``Journal``, its guarantees, and what opening writes.

The names below are the ones ``ledgerlab.journal`` has always offered.
"""

from ..checks import id_tag
from .errors import (
    FactConflict,
    FactNotFound,
    JournalCorrupt,
    JournalError,
    JournalForked,
    JournalFull,
    JournalLocked,
    JournalMoved,
    OriginNotFound,
    SummaryConflict,
    SummaryNotFound,
    TurnConflict,
    TurnIdMismatch,
    TurnNotFound,
)
from .files import (
    FACTS_REWRITE_SUFFIX,
    FACTS_SUFFIX,
    REWRITE_SUFFIX,
    SUMMARIES_SUFFIX,
    fsync_directory,
)
from .ledger import DEFAULT_MAX_BYTES, Journal
from .records import (
    FACT_KEYS,
    FACTS,
    RECORD_KEYS,
    RICH_KEYS,
    TURNS,
    FactRecord,
    LineStatus,
    Record,
    decode_record,
    describe_tail,
    encode_fact,
    encode_record,
    encode_turn,
    examine,
    overwritten_newline,
    scan,
)
from .rich import PART_KEYS, STEP_KEYS
from .salvage import LostLine, Salvaged, salvage
from .summaries import SUMMARIES, SUMMARY_KEYS, SummaryRecord, encode_summary

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FACTS",
    "FACTS_REWRITE_SUFFIX",
    "FACTS_SUFFIX",
    "FACT_KEYS",
    "FactConflict",
    "FactNotFound",
    "FactRecord",
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "JournalForked",
    "JournalFull",
    "JournalLocked",
    "JournalMoved",
    "LineStatus",
    "LostLine",
    "OriginNotFound",
    "PART_KEYS",
    "RECORD_KEYS",
    "RICH_KEYS",
    "REWRITE_SUFFIX",
    "Record",
    "STEP_KEYS",
    "SUMMARIES",
    "SUMMARIES_SUFFIX",
    "SUMMARY_KEYS",
    "Salvaged",
    "SummaryConflict",
    "SummaryNotFound",
    "SummaryRecord",
    "TURNS",
    "TurnConflict",
    "TurnIdMismatch",
    "TurnNotFound",
    "decode_record",
    "describe_tail",
    "encode_fact",
    "encode_record",
    "encode_summary",
    "encode_turn",
    "examine",
    "fsync_directory",
    "id_tag",
    "overwritten_newline",
    "salvage",
    "scan",
]
