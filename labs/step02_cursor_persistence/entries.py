"""What a session's entries are. Pure: no disk here.

Every entry has a `type`, an `id` unique within its file, and a `parentId`: the entry it hangs
under. In this step every entry hangs under the one written before it, so the file is a chain;
the parentId is there from the start so that a later step can let entries branch.

Each kind of entry is handled here, in one place: its TypedDict, what its line must hold to be
used (`parse_entry`) and one `case` in `summarize` (how it is shown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from messages import Message, preview, printable
from session_file import parse_json


class MessageEntry(TypedDict):
    """An entry that wraps a message. `id`/`parentId` are for the file; the model never sees
    them."""

    type: Literal["message"]
    id: str
    parentId: str | None  # the entry this one hangs under, None for the first
    message: Message


# The kinds this step writes. A reader also meets kinds it does not know (a later step's, a
# hand edit): it keeps them, and shows them as unknown.
SessionEntry = MessageEntry
Entry = dict[str, Any]  # what a reader hands on: a dict with a string type and id, maybe more
# What the reader makes of a damaged line whose id and parentId it can still read: an entry of
# this kind, holding nothing else, that no program writes. The walk goes through it, so the
# conversation loses only what that line held (entry_index.py).
DAMAGED = "damaged"


# --- Entry ids: the one place that knows their shape ---------------------------------------

MAX_ID_DIGITS = 18  # e1 .. e999999999999999999: more than any session will ever hold
_NUMBERED_ID = re.compile(rf"e([1-9][0-9]{{0,{MAX_ID_DIGITS - 1}}})")


def entry_id(number: int) -> str:
    """The id of the `number`-th entry a program wrote: e1, e2, ..."""
    return f"e{number}"


def id_number(entry_id: str) -> int:
    """e7 -> 7. An id of any other shape counts as 0: ids in a file are data, not numbers to
    trust, so `e` followed by 4,000 digits is never handed to int()."""
    match = _NUMBERED_ID.fullmatch(entry_id)
    return int(match.group(1)) if match else 0


# --- What a line must hold to be an entry ----------------------------------------------------
# The checks run once per entry, the first time it is used (see entry_index.py): whatever
# passes here reaches the model and the renderer, so each field they use is checked.


def parse_entry(line: bytes) -> Entry | None:
    """The entry on one line, or None if the line is not one (blank, torn, garbage...)."""
    record = parse_json(line)
    if not isinstance(record, dict):
        return None
    kind, entry_id_, parent = record.get("type"), record.get("id"), record.get("parentId")
    if not isinstance(kind, str) or kind in ("header", DAMAGED) or not isinstance(entry_id_, str):
        return None  # (a "damaged" entry is the reader's own: in a file, it is damage)
    if "parentId" not in record or (parent is not None and not isinstance(parent, str)):
        return None  # a key lost to one flipped byte is damage, never a new root
    if kind == "message" and not _is_message(record.get("message")):
        return None
    return record  # a kind we do not know passes through


def _is_message(value: object) -> bool:
    """Enough of a message that the model and the renderer can use it without crashing."""
    if not isinstance(value, dict) or not isinstance(content := value.get("content"), list):
        return False
    for block in content:
        if not isinstance(block, dict):
            return False
        match block.get("type"):
            case "text":
                if not isinstance(block.get("text"), str):
                    return False
            case "toolCall":
                if not (
                    isinstance(block.get("id"), str)
                    and isinstance(block.get("name"), str)
                    and isinstance(block.get("arguments"), dict)
                ):
                    return False
            case str():
                pass  # a block kind this step does not show: kept, never rendered
            case _:
                return False
    match value.get("role"):
        case "user":
            return True
        case "assistant":
            return value.get("stopReason") in ("stop", "toolUse")
        case "toolResult":
            return (
                isinstance(value.get("toolCallId"), str)
                and isinstance(value.get("toolName"), str)
                and isinstance(value.get("isError"), bool)
            )
    return False


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
