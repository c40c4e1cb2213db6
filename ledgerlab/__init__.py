"""ledgerlab: keep the durable ledger of a conversation apart from the request you project from it.

Every name an application or a notebook uses from the library is here (what the two
commands print with, and how they run, is ``ledgerlab.console``'s). Importing ledgerlab loads no
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
    TurnIdMismatch,
    TurnNotFound,
    encode_record,
    examine,
    salvage,
)
from .checks import InvalidText, InvalidTurn, check_text, utf16_units
from .documents import Document
from .encoders import ENCODERS, get_encoder
from .images import Image
from .dialects import (DIALECTS, LIMITS, InvalidRequest, ProviderLimitError,
                       ReservedFieldError, TokenCount, check_request)
from .memory import Compaction, Evidence, Summary
from .options import DEFAULT_MODEL, RequestOptions
from .memory_sections import CoverNotInHistory, OriginNotInHistory
from .selector import (BudgetError, Selection, byte_breakdown, cache_stable_rule,
                       request_tokens, select, select_reference, whole_turn_rule)
from .prompt_cache import (BilledRequest, Difference, UnreadableRequest, cheapest_starts,
                           first_difference, provider_cache, request_parts, simulate_bill)
from .tokens import PER_MESSAGE, REPLY_PRIMING, image_tokens, text_tokens, tool_tokens
from .steps import AssistantText, ProviderItem, Reasoning, ToolCall, ToolResult
from .turns import Fact, ProviderTool, Tool, Turn, fact_line
from .request import messages, request_body, request_bytes

__version__ = "0.1.0"

__all__ = [
    "AssistantText",
    "BilledRequest",
    "BudgetError",
    "Compaction",
    "CoverNotInHistory",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MODEL",
    "DIALECTS",
    "Difference",
    "Document",
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
    "LIMITS",
    "OriginNotFound",
    "OriginNotInHistory",
    "PER_MESSAGE",
    "ProviderItem",
    "ProviderLimitError",
    "ProviderTool",
    "REPLY_PRIMING",
    "Reasoning",
    "RequestOptions",
    "ReservedFieldError",
    "Selection",
    "Summary",
    "SummaryConflict",
    "SummaryNotFound",
    "TokenCount",
    "Tool",
    "ToolCall",
    "ToolResult",
    "Turn",
    "TurnConflict",
    "TurnIdMismatch",
    "TurnNotFound",
    "UnreadableRequest",
    "byte_breakdown",
    "cache_stable_rule",
    "cheapest_starts",
    "check_request",
    "check_text",
    "encode_record",
    "examine",
    "fact_line",
    "first_difference",
    "get_encoder",
    "image_tokens",
    "messages",
    "provider_cache",
    "request_body",
    "request_bytes",
    "request_parts",
    "request_tokens",
    "salvage",
    "select",
    "select_reference",
    "simulate_bill",
    "text_tokens",
    "tool_tokens",
    "utf16_units",
    "whole_turn_rule",
]
