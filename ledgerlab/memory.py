"""Memory with origins beyond pinned facts: summaries that cover stored turns, and evidence
that names its source.

- A ``Summary`` is text the application wrote about some stored turns (from a model or by
  hand: the library never calls a model), and ``covers``, the ids of those turns. Its text
  may carry any sentence of any turn it covers, so the journal deletes it when any one of
  them is deleted (``Journal.add_summary``, ``forget``, ``retain``). ``add_summary`` also
  takes a stored summary's id in ``covers`` (a rolling summary of summaries), for the turns
  that summary covers.
- A ``Compaction`` is a provider's own compaction item (OpenAI's encrypted ``compaction``
  item, Anthropic's ``compaction`` block) and ``covers``, the ids of the stored turns it
  stands for. It is a memory item like a Summary: given in ``summaries=``, sent in place of
  the turns it covers (never beside one), stored and deleted by the journal as a Summary is.
- ``Evidence`` is retrieved from outside the ledger (a document, a page, a search result);
  ``source`` names where it came from and travels with it, so an answer can cite it. It is
  given per request, never stored in the journal.

Both are frozen and checked when made; their reprs show sizes, counts and id tags, never
text (nor a source, which may be a private path or address).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from .checks import InvalidTurn, check_id, check_text, id_tag
from .steps import compact_json, json_object
from .turns import Fact

_SHOWN_COVERS = 3  # id tags a repr lists before it says how many more


def check_covers(covers: object) -> tuple[str, ...]:
    """The ids of the turns a summary covers, as a tuple: one or more ids, none twice."""
    if isinstance(covers, (str, bytes)) or not isinstance(covers, Sequence):
        raise TypeError(f"covers must be a list or tuple of turn ids, not "
                        f"{type(covers).__name__}")
    covers = tuple(check_id(turn_id, "covers item") for turn_id in covers)
    if not covers:
        raise ValueError("covers must name at least one turn")
    if len(set(covers)) != len(covers):
        twice = next(turn_id for turn_id in covers if covers.count(turn_id) > 1)
        raise ValueError(f"covers names {id_tag(twice)} more than once")
    return covers


@dataclass(frozen=True)
class Summary:
    """Text written about the stored turns ``covers`` names (their ids, one or more)."""

    id: str
    text: str
    covers: tuple[str, ...]
    # No request writes its line in fewer bytes: select skips a summary that cannot fit
    # without writing its line.
    _least_bytes: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        check_id(self.id)
        check_text(self.text, "text")
        object.__setattr__(self, "covers", check_covers(self.covers))
        # "[turns: ", the ids joined by ", ", "] ", the text: escaping only adds bytes.
        least = 8 + sum(map(len, self.covers)) + 2 * len(self.covers) + len(self.text.encode())
        object.__setattr__(self, "_least_bytes", least)

    def __repr__(self) -> str:
        # Ids and text may be private: tags and sizes only.
        shown = ", ".join(id_tag(turn_id) for turn_id in self.covers[:_SHOWN_COVERS])
        more = len(self.covers) - _SHOWN_COVERS
        return (f"Summary({id_tag(self.id)}, text={len(self.text.encode())} bytes, "
                f"covers={len(self.covers)} turns: {shown}{f', +{more}' if more > 0 else ''})")


# What each dialect's compaction item must hold (a minimal shape: the rest is the provider's,
# kept as given): OpenAI's ``compaction`` item (the Responses API reference: its
# ``encrypted_content``) and Anthropic's ``compaction`` block (its Messages API reference:
# ``content``, the summary, or null for a failed compaction; "Empty string content is not
# allowed").
COMPACTION_DIALECTS = ("anthropic-messages", "openai-responses")


@dataclass(frozen=True)
class Compaction:
    """A provider's compaction item, as it returned it, standing for the stored turns
    ``covers`` names: an OpenAI Responses ``compaction`` item (``encrypted_content``) or an
    Anthropic ``compaction`` block (``content``, signed fields kept as given). ``dialect`` is
    the one it belongs to: a request of another dialect leaves it out.

    Opaque: ``item`` may be given as a dict or JSON text and is kept as compact JSON text,
    sent back unchanged. Its repr shows sizes, counts and id tags only."""

    id: str
    item: str
    dialect: str
    covers: tuple[str, ...]
    _least_bytes: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        check_id(self.id)
        check_text(self.dialect, "dialect")
        if self.dialect not in COMPACTION_DIALECTS:
            raise InvalidTurn(f"a Compaction belongs to one of {', '.join(COMPACTION_DIALECTS)}"
                              f" (OpenAI Chat has no compaction items)")
        item = json_object(self.item, "item")
        if item.get("type") != "compaction":
            raise InvalidTurn('a compaction item\'s type must be "compaction"')
        if self.dialect == "openai-responses":
            if not isinstance(item.get("encrypted_content"), str) or not item["encrypted_content"]:
                raise InvalidTurn("an openai-responses compaction item needs its "
                                  "'encrypted_content', a non-empty string")
        elif "content" not in item or item["content"] == "" or not isinstance(
                item["content"], (str, type(None))):
            raise InvalidTurn("an anthropic-messages compaction block needs its 'content', a "
                              "non-empty string or null")
        object.__setattr__(self, "item", compact_json(item))
        object.__setattr__(self, "covers", check_covers(self.covers))
        object.__setattr__(self, "_least_bytes", len(self.item))

    @property
    def as_dict(self) -> dict:
        """The item as an object (a new one each time)."""
        return json.loads(self.item)

    def __repr__(self) -> str:
        if not isinstance(self.item, str):  # a failed __post_init__, shown in its traceback
            return f"Compaction({type(self.item).__name__})"
        shown = ", ".join(id_tag(turn_id) for turn_id in self.covers[:_SHOWN_COVERS])
        more = len(self.covers) - _SHOWN_COVERS
        return (f"Compaction({id_tag(self.id)}, {self.dialect}, item="
                f"{len(self.item.encode())} bytes, covers={len(self.covers)} turns: "
                f"{shown}{f', +{more}' if more > 0 else ''})")


@dataclass(frozen=True)
class Evidence:
    """Text retrieved from outside the ledger, and ``source``, where it came from."""

    id: str
    text: str
    source: str

    def __post_init__(self) -> None:
        check_id(self.id)
        check_text(self.text, "text")
        check_id(self.source, "source")  # a source is never empty: it is what gets cited

    def __repr__(self) -> str:
        return (f"Evidence({id_tag(self.id)}, text={len(self.text.encode())} bytes, "
                f"source={len(self.source.encode())} bytes)")


class Derived(NamedTuple):
    """What is derived from one stored turn, and deleted with it: the facts pinned from it
    and the summaries that cover it (``Journal.derived_from``)."""

    facts: tuple[Fact, ...]
    summaries: tuple[Summary | Compaction, ...]
