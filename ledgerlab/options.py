"""The options of a request, defined once: ``RequestOptions``.

``request_body``, ``request_bytes``, ``request_tokens``, ``select``, ``select_reference``
and ``byte_breakdown`` take these as keywords (``model=``, ``dialect=`` ...), each the
ones it uses (the groups below), or one checked ``options=RequestOptions(...)``. Each
public function is declared with ``takes_options``, which builds and checks a
``RequestOptions`` from its keywords once and gives the function the keywords'
signature, so ``help()`` and ``inspect.signature`` show them. Adding an option is one
field here, with its docstring, and its name in the groups that take it.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

from .checks import check_int, check_text
from .encoders import get_encoder
from .dialects import SHAPES, check_dialect, check_extra, refuse_for_dialect
from .tokens import check_tokenizer
from .memory import Compaction, Evidence, Summary
from .turns import Fact, Tool, check_steps, check_tools

DEFAULT_MODEL = "agnes-3.0-flash"
# The cache-stable rule's default cut: back to 60% of the budget, so about 40% of it is left
# for the calls that append before the next cut (issue 47's simulation).
LOW_WATER = 0.6


@dataclass(frozen=True)
class RequestOptions:
    """What a request is built and budgeted with, beside its system, turns and question.

    Every option is checked when the options are made (a clear TypeError or ValueError),
    except each fact, which is checked when it is written: ``select`` never looks at a
    fact after the first one that does not fit.
    """

    model: str = DEFAULT_MODEL
    """The body's ``model`` field; in ``anthropic-messages`` it also picks the tool-use system
    prompt that tools add to the token count (``dialects.anthropic.ANTHROPIC_TOOL_PROMPT``)."""
    encoder: str = "gson"
    """How the body is serialized: a name in ``ENCODERS`` (the Java reference's gson,
    httpx's or requests' ``json=``)."""
    dialect: str = "openai-chat"
    """The provider's shape: a name in ``DIALECTS``."""
    tools: Sequence[Tool] = ()
    """The tools every request carries (mandatory input), with distinct names: ``Tool``,
    or ``ProviderTool`` for an entry in the dialect's own shape."""
    current_steps: Sequence = ()
    """The tool rounds of the turn in progress, after the current question (mandatory
    input): ``Reasoning``, ``AssistantText``, ``ToolCall`` and ``ToolResult`` in whole rounds."""
    facts: Sequence[Fact] = ()
    """Pinned facts, in priority order: a second system message (OpenAI Chat), system text
    block (Anthropic) or developer message (Responses), one ``[origin] text`` line each.
    ``select`` refuses one it would send whose origin is not among the history's turn ids
    (``OriginNotInHistory``), where the history names its turns (``ids``, or its newest
    turn's ``Turn.id``)."""
    max_fact_bytes: int | None = None
    """The most bytes the facts may add to the body (None: no cap of their own)."""
    ids: Sequence[str] | None = None
    """The history's turn ids in order (``journal.ids()``: ``ids[i]`` is ``history[i]``'s),
    so ``select`` knows which turns a summary covers; required when there are summaries."""
    summaries: Sequence[Summary | Compaction] = ()
    """Summaries of stored turns: a system message (OpenAI) or text block (Anthropic)
    after the facts and the evidence, one ``[turns: id, id] text`` line each, oldest first;
    and a provider's ``Compaction`` items, sent as given before the turns in their own
    dialect (left out of another's). ``select`` sends one only where every turn it covers is
    dropped."""
    max_summary_bytes: int | None = None
    """The most bytes the summaries may add to the body (None: no cap of their own)."""
    evidence: Sequence[Evidence] = ()
    """Retrieved evidence, in the retriever's ranking: a system message (OpenAI) or text
    block (Anthropic) after the facts, one ``[source: where] text`` line each."""
    max_evidence_bytes: int | None = None
    """The most bytes the evidence may add to the body (None: no cap of their own)."""
    cache_breakpoints: bool = False
    """Mark the prefix the provider should cache, where the dialect takes marks
    (``anthropic-messages``: ``cache_control`` on the system's last block, or the last tool,
    and on the newest kept turn's last message; ``select`` counts their bytes in the budget).
    ValueError in a dialect whose provider caches on its own (OpenAI's)."""
    evidence_after_turns: bool = False
    """Send the evidence after the stored turns, just before the current question (a system
    message in OpenAI Chat, a developer message in Responses, a user message in Anthropic),
    not after the facts: evidence chosen for each question then leaves the bytes before it,
    the turns the provider has cached, unchanged."""
    reserve_tokens: int | None = None
    """Tokens kept for the reply: within ``max_tokens``, and Anthropic's required
    ``max_tokens`` field. None: the dialect's default (0 in OpenAI's dialects; 1024 in
    ``anthropic-messages``, whose body requires it: ``dialects.anthropic``)."""
    max_tokens: int | None = None
    """A token limit the request and the reserve must fit (None: bytes only)."""
    tokenizer: str = "o200k_base"
    """The tokenizer tokens are counted with: ``"o200k_base"`` or ``"cl100k_base"``."""
    extra: Mapping[str, object] | None = field(default=None, repr=False)
    """The application's own top-level fields of the body (``thinking``, ``stream``,
    ``tool_choice``, ``temperature``, ``metadata``...): a mapping of JSON values, written at
    the top level after the writer's own fields, their bytes measured like any other
    (mandatory input). Each must be one the dialect's API reference documents, of a JSON
    type it takes (``Shape.fields``), and not one the writer writes (``model``, the
    conversation, the system, ``tools``, Anthropic's ``max_tokens``:
    ``ReservedFieldError``). Kept as a checked copy (left out of the repr: its values may be
    private). Their tokens are not counted, except that Anthropic's ``tool_choice`` picks
    the tool-use system prompt's figure."""
    previous: object = None
    """The ``Selection`` of this conversation's last request (None: the first, or no cache to
    keep): ``select`` keeps its first kept turn while the request from there fits, so the
    provider's cache reads the same prefix again (the cache-stable rule, ``selector``)."""
    low_water: float = LOW_WATER
    """Where the cache-stable rule cuts when the request from ``previous``'s first turn no
    longer fits: the longest whole-turn suffix that fits ``low_water`` x the byte budget (and
    x the token limit's room), 0 < low_water <= 1. Without ``previous``, no effect."""

    def __post_init__(self) -> None:
        check_text(self.model, "model")
        get_encoder(self.encoder)
        check_dialect(self.dialect)
        object.__setattr__(self, "tools", check_tools(self.tools))
        object.__setattr__(self, "current_steps", check_steps(self.current_steps,
                                                              "current_steps"))
        for name in ("evidence_after_turns", "cache_breakpoints"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, not "
                                f"{type(getattr(self, name)).__name__}")
        if self.cache_breakpoints and not SHAPES[self.dialect].takes_cache_breakpoints:
            raise ValueError(f"cache_breakpoints: {self.dialect} takes no cache marks (its "
                             f"provider caches every request's prefix on its own)")
        # extra= first: its fields (the Responses API's store) may change the rounds' rules;
        # its cache marks and the tools' count with those cache_breakpoints writes
        object.__setattr__(self, "extra", check_extra(self.dialect, self.extra, self.tools,
                                                      self.current_steps,
                                                      self.cache_breakpoints))
        refuse_for_dialect(self.dialect, self.current_steps, self.tools, extra=self.extra)
        if type(self.facts) is not tuple and not isinstance(self.facts, Sequence):
            # an iterator, read once
            object.__setattr__(self, "facts", tuple(self.facts))
        if self.max_fact_bytes is not None:
            check_int(self.max_fact_bytes, "max_fact_bytes", minimum=0)
        if self.ids is not None:
            if isinstance(self.ids, (str, bytes)) or not isinstance(self.ids, Sequence):
                raise TypeError(f"ids must be a list or tuple of turn ids, not "
                                f"{type(self.ids).__name__}")
            object.__setattr__(self, "ids", tuple(self.ids))
        for name, kind in (("summaries", (Summary, Compaction)), ("evidence", Evidence)):
            items = getattr(self, name)
            if type(items) is tuple and not items:
                continue  # the default: nothing to check
            items = tuple(items)
            wrong = next((item for item in items if not isinstance(item, kind)), None)
            if wrong is not None:
                kinds = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple)
                                                         else (kind,)))
                raise TypeError(f"{name} must be {kinds}, not {type(wrong).__name__}")
            object.__setattr__(self, name, items)
        for name in ("max_summary_bytes", "max_evidence_bytes"):
            if getattr(self, name) is not None:
                check_int(getattr(self, name), name, minimum=0)
        if self.reserve_tokens is None:
            object.__setattr__(self, "reserve_tokens", SHAPES[self.dialect].default_reserve)
        check_int(self.reserve_tokens, "reserve_tokens", minimum=0)
        if self.max_tokens is not None:
            check_int(self.max_tokens, "max_tokens", minimum=1)
        check_tokenizer(self.tokenizer)
        for name in SHAPES[self.dialect].reply_fields:
            cap = self.extra.get(name)
            if self.max_tokens is not None and isinstance(cap, int) and cap > self.reserve_tokens:
                raise ValueError(f"extra's {name} ({cap}) is over reserve_tokens "
                                 f"({self.reserve_tokens}): the reply may take {cap} tokens, "
                                 f"so keep them within max_tokens with reserve_tokens={cap}")
        check_low_water(self.low_water)


def check_low_water(low_water: object) -> float:
    """Return ``low_water`` if it is a real number above 0 and at most 1."""
    if isinstance(low_water, bool) or not isinstance(low_water, numbers.Real):
        raise TypeError(f"low_water must be a number, not {type(low_water).__name__}")
    if not 0 < low_water <= 1:  # NaN fails this too
        raise ValueError(f"low_water must be above 0 and at most 1, got {low_water}")
    return low_water


# Which options each kind of function takes.
WIRE = ("model", "encoder", "dialect", "tools", "current_steps", "facts", "reserve_tokens",
        "evidence", "summaries", "evidence_after_turns", "cache_breakpoints", "extra")
BREAKDOWN = ("model", "encoder", "dialect", "tools", "current_steps", "reserve_tokens",
             "facts", "evidence", "summaries", "evidence_after_turns", "cache_breakpoints",
             "extra")
COUNT = ("tokenizer", "facts", "tools", "current_steps", "evidence", "summaries", "dialect",
         "model", "extra")
SELECT = ("facts", "max_fact_bytes", "model", "encoder", "dialect", "tools", "current_steps",
          "max_tokens", "reserve_tokens", "tokenizer", "ids", "summaries", "max_summary_bytes",
          "evidence", "max_evidence_bytes", "evidence_after_turns", "cache_breakpoints",
          "previous", "low_water", "extra")

_FIELDS = {field.name: field for field in fields(RequestOptions)}


def takes_options(*names: str):
    """Make ``function(..., options)`` a public function taking the options ``names`` as
    keywords (or ``options=``, a RequestOptions), with their defaults in its signature."""
    unknown = set(names) - set(_FIELDS)
    if unknown:
        raise AssertionError(f"not options: {sorted(unknown)}")  # a mistake in this package

    def wrap(function):
        own = [parameter for parameter in inspect.signature(function).parameters.values()
               if parameter.name != "options"]
        keywords = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                      default=_FIELDS[name].default,
                                      annotation=_FIELDS[name].type) for name in names]
        keywords.append(inspect.Parameter("options", inspect.Parameter.KEYWORD_ONLY,
                                          default=None, annotation="RequestOptions | None"))

        @functools.wraps(function)
        def public(*args, options: RequestOptions | None = None, **given):
            chosen = {name: given.pop(name) for name in names if name in given}
            if options is None:
                options = RequestOptions(**chosen)
            elif chosen or not isinstance(options, RequestOptions):
                raise TypeError(f"{function.__name__}() takes options= (a RequestOptions) "
                                f"or option keywords, not both")
            return function(*args, **given, options=options)

        public.__signature__ = inspect.signature(function).replace(parameters=own + keywords)
        return public

    return wrap
