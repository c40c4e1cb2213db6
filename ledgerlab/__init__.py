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
    SummaryConflict,
    SummaryNotFound,
    TurnConflict,
    TurnNotFound,
    encode_record,
    examine,
    salvage,
)
from .memory import Evidence, Summary
from .rules import InvalidRequest, check_request
from .selector import BudgetError, Selection, byte_breakdown, select, select_reference
from .tokens import image_tokens, request_tokens, text_tokens, tool_tokens
from .wire import (DIALECTS, ENCODERS, Fact, Image, InvalidText, InvalidTurn, Tool, ToolCall,
                   ToolResult, Turn, messages, request_body, request_bytes)

__version__ = "0.1.0"

__all__ = [
    "BudgetError",
    "DEFAULT_MAX_BYTES",
    "DIALECTS",
    "ENCODERS",
    "Evidence",
    "Fact",
    "FactConflict",
    "FactNotFound",
    "Image",
    "InvalidRequest",
    "InvalidText",
    "InvalidTurn",
    "Journal",
    "JournalCorrupt",
    "JournalError",
    "JournalForked",
    "JournalFull",
    "JournalLocked",
    "JournalMoved",
    "OriginNotFound",
    "Selection",
    "Summary",
    "SummaryConflict",
    "SummaryNotFound",
    "Tool",
    "ToolCall",
    "ToolResult",
    "Turn",
    "TurnConflict",
    "TurnNotFound",
    "byte_breakdown",
    "check_request",
    "encode_record",
    "examine",
    "image_tokens",
    "messages",
    "request_body",
    "request_bytes",
    "request_tokens",
    "salvage",
    "select",
    "select_reference",
    "text_tokens",
    "tool_tokens",
]
