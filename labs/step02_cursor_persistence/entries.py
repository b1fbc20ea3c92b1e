"""What a session's entries are. Pure: no disk here.

Every entry has a `type`, an `id` unique within its file, and a `parentId`: the entry it hangs
under. In this step every entry hangs under the one written before it, so the file is a chain;
the parentId is there from the start so that a later step can let entries branch.

Each kind of entry is handled here, in one place: its TypedDict and one `case` in `summarize`
(how it is shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from messages import Message, preview, printable


class MessageEntry(TypedDict):
    """An entry that wraps a message. `id`/`parentId` are for the file; the model never sees
    them."""

    type: Literal["message"]
    id: str
    parentId: str | None  # the entry this one hangs under, None for the first
    message: Message


# The kinds this step writes, and what a reader hands on: a dict with a string type and id.
SessionEntry = MessageEntry
Entry = dict[str, Any]


# --- Entry ids: the one place that knows their shape ---------------------------------------


def entry_id(number: int) -> str:
    """The id of the `number`-th entry a program wrote: e1, e2, ..."""
    return f"e{number}"


# --- How an entry is shown (tables, graphs) -------------------------------------------------


@dataclass(frozen=True)
class EntrySummary:
    """One entry for people: a short kind (a message's role, else the entry's type) and text."""

    kind: str
    text: str
    known: bool  # False for a kind this step does not know


def summarize(entry: Entry, width: int = 40) -> EntrySummary:
    match entry["type"]:
        case "message":
            return EntrySummary(entry["message"]["role"], preview(entry["message"], width), True)
        case other:
            return EntrySummary(printable(other), "", False)
