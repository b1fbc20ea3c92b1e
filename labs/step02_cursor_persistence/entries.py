"""What a session's entries are, and what a line must hold to be one. Pure: no disk here.

Every entry has a `type`, an `id` unique within its file, and a `parentId`: the entry it hangs
under. In this step every entry hangs under the one written before it, so the file is a chain;
the parentId is there from the start so that a later step can let entries branch.

Each kind of entry is handled here, in one place: its TypedDict, what its line must hold to be
used (`parse_entry`) and how it is shown (one `case` in `summarize`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from messages import Message, preview
from session_file import parse_json


class MessageEntry(TypedDict):
    """An entry that wraps a message. `id` and `parentId` are the file's: the model never sees
    them."""

    type: Literal["message"]
    id: str
    parentId: str | None  # the entry this one hangs under, None for the first
    message: Message


# What a reader hands on: a dict with a string type and id, maybe more; a kind it does not know
# (a later step's, a hand edit) is kept, and shown as unknown.
Entry = dict[str, Any]


# --- Entry ids: the one place that knows their shape ---------------------------------------


def entry_id(number: int) -> str:
    """The id of the `number`-th entry a program wrote: e1, e2, ..."""
    return f"e{number}"


# --- What a line must hold to be an entry ----------------------------------------------------
# Whatever passes here reaches the model and the renderer, so each field they use is checked.


class NotAnEntry(ValueError):
    """A line that cannot be used as an entry; the message says why, in a few words."""


def parse_entry(line: bytes) -> Entry:
    """The entry on one line; NotAnEntry if the line is not one (blank, torn, garbage...)."""
    if not line.strip():
        raise NotAnEntry("a blank line")
    record = parse_json(line)
    if not isinstance(record, dict):
        raise NotAnEntry("not a JSON object")
    kind, entry_id_, parent = record.get("type"), record.get("id"), record.get("parentId")
    if not isinstance(kind, str):
        raise NotAnEntry("no type")
    if kind == "header":
        raise NotAnEntry("a second header")
    if not isinstance(entry_id_, str):
        raise NotAnEntry("no id")
    if "parentId" not in record or (parent is not None and not isinstance(parent, str)):
        raise NotAnEntry("no parentId")  # a key lost to one flipped byte is never a new root
    if kind == "message" and not _is_message(record.get("message")):
        raise NotAnEntry("no message a model could be given")
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
            return EntrySummary(other, "", False)
