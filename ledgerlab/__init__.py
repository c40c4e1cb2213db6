"""ledgerlab: keep the durable ledger of a conversation apart from the request you project from it.

Every name a notebook uses from the library is here. Importing ledgerlab loads no
plotting, notebook or tokenizer package (tiktoken is imported when tokens are first
counted): the library runs where those are missing.
"""

from .journal import (
    DEFAULT_MAX_BYTES,
    FactConflict,
    FactNotFound,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalForked,
    JournalFull,
    JournalLocked,
    JournalMoved,
    OriginNotFound,
    TurnConflict,
    TurnNotFound,
    encode_record,
    examine,
    salvage,
)
from .selector import BudgetError, Selection, byte_breakdown, select, select_reference
from .tokens import request_tokens, text_tokens
from .wire import ENCODERS, Fact, InvalidText, Turn, messages, request_bytes

__version__ = "0.1.0"

__all__ = [
    "BudgetError",
    "DEFAULT_MAX_BYTES",
    "ENCODERS",
    "Fact",
    "FactConflict",
    "FactNotFound",
    "InvalidText",
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "JournalForked",
    "JournalFull",
    "JournalLocked",
    "JournalMoved",
    "OriginNotFound",
    "Selection",
    "Turn",
    "TurnConflict",
    "TurnNotFound",
    "byte_breakdown",
    "encode_record",
    "examine",
    "messages",
    "request_bytes",
    "request_tokens",
    "salvage",
    "select",
    "select_reference",
    "text_tokens",
]
