"""ledgerlab: keep the durable ledger of a conversation apart from the request you project from it."""

from .journal import (
    FactConflict,
    FactNotFound,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalFull,
    JournalLocked,
    OriginNotFound,
    TurnConflict,
    TurnNotFound,
)
from .selector import BudgetError, Selection, byte_breakdown, select, select_reference
from .tokens import request_tokens
from .wire import ENCODERS, Fact, InvalidText, Turn, request_bytes

__version__ = "0.1.0"

__all__ = [
    "BudgetError",
    "ENCODERS",
    "Fact",
    "FactConflict",
    "FactNotFound",
    "InvalidText",
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "JournalFull",
    "JournalLocked",
    "OriginNotFound",
    "Selection",
    "Turn",
    "TurnConflict",
    "TurnNotFound",
    "byte_breakdown",
    "request_bytes",
    "request_tokens",
    "select",
    "select_reference",
]
