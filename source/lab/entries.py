# >>file 02
# >> 02 until 03
# """What a session's entries are, and what a line must hold to be one. Pure: no disk here.
#
# Every entry has a `type`, an `id` unique within its file, and a `parentId`: the entry it hangs
# under. In this step every entry hangs under the one written before it, so the file is a chain;
# the parentId is there from the start so that a later step can let entries branch.
#
# Each kind of entry is handled here, in one place: its TypedDict, what its line must hold to be
# used (`parse_entry`) and how it is shown (one `case` in `summarize`).
# """
# << 02 until 03
# >> 03
"""What a session's entries are, and what a line must hold to be one. Pure: no disk here.

Every entry has a `type`, an `id` unique within its file, and a `parentId`: the entry it hangs
under. The conversation is not the file's lines in order; it is the path from the leaf (the
entry the next one will hang under) up through the parents to the first entry. While every
entry hangs under the one before it the two agree, which is exactly why reading by line order
looks right until the day it is not.

Each kind of entry is handled here, in one place: its TypedDict, what its line must hold to be
used (`parse_entry`) and how it is shown (one `case` in `summarize`).
What it adds to the conversation is one `case` in `build_context`.
"""
# << 03

from __future__ import annotations

# >> 03
import re
from collections.abc import Mapping

# << 03
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

# >> prod
from entry_checks import is_message, is_optional_str

# << prod
from messages import Message, preview

# >> 03
from messages import answered_in_memory

# << 03
# >> 04
from messages import shortened

# << 04
# >> 06
from messages import summary_message

# << 06
from session_file import parse_json

# >> prod
from terminal_text import printable

# << prod


class MessageEntry(TypedDict):
    """An entry that wraps a message. `id` and `parentId` are the file's: the model never sees
    them."""

    type: Literal["message"]
    id: str
    parentId: str | None  # the entry this one hangs under, None for the first
    message: Message


# >> 04


class ModelChangeEntry(TypedDict):
    """From this entry down the path, `model` answers. Recorded as an entry, not kept in the
    header, because a session can switch models as often as it likes: the file records what
    happened, in the order it happened."""

    type: Literal["model_change"]
    id: str
    parentId: str | None
    model: str  # the name of the model switched to


# << 04
# >> 05


class BranchEntry(TypedDict):
    """The leaf moved: this entry hangs under the entry moved to (`parentId`), and becomes the
    leaf itself. Written down, not kept in memory, so that the last entry of the file is always
    the leaf: a move survives a restart, and a reader that knows nothing of branches (step 03,
    step 04) still walks from the last entry through this one to the right conversation."""

    type: Literal["branch"]
    id: str
    parentId: str  # the entry moved to; the conversation continues from there
    fromId: str | None  # the leaf moved away from (for people: the conversation ignores it)


# << 05
# >> 06


class CompactionEntry(TypedDict):
    """What the model no longer needs, replaced by a summary: from this entry down the path,
    the model is given `summary`, then the path's messages from `firstKeptId` on. Nothing
    before is rewritten or removed: a /branch to an entry before it gets the whole history."""

    type: Literal["compaction"]
    id: str
    parentId: str | None
    summary: str  # what the model is given instead of the messages it replaces
    firstKeptId: str | None  # the first entry on the path kept as it is; None keeps nothing


# << 06


# What a reader hands on: a dict with a string type and id, maybe more; a kind it does not know
# (a later step's, a hand edit) is kept, and shown as unknown.
Entry = dict[str, Any]
# >> prod
# What the reader makes of a damaged line whose id and parentId it can still read: an entry of
# this kind, holding nothing else, that no program writes. The walk goes through it, so the
# conversation loses only what that line held (entry_index.py).
DAMAGED = "damaged"
# << prod


# --- Entry ids: the one place that knows their shape ---------------------------------------
# >> 03

MAX_ID_DIGITS = 18  # e1 .. e999999999999999999: more than any session will ever hold
_NUMBERED_ID = re.compile(rf"e([1-9][0-9]{{0,{MAX_ID_DIGITS - 1}}})")
# << 03


def entry_id(number: int) -> str:
    """The id of the `number`-th entry a program wrote: e1, e2, ..."""
    return f"e{number}"


# >> 03


def id_number(entry_id: str) -> int:
    """e7 -> 7. Any other shape counts as 0: ids are data, and 4,000 digits never reach int()."""
    match = _NUMBERED_ID.fullmatch(entry_id)
    return int(match.group(1)) if match else 0


# << 03


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
    # >> prod
    if kind == DAMAGED:
        raise NotAnEntry("a kind only the reader makes")  # in a file, it is damage
    # << prod
    if not isinstance(entry_id_, str):
        raise NotAnEntry("no id")
    if "parentId" not in record or (parent is not None and not isinstance(parent, str)):
        raise NotAnEntry("no parentId")  # a key lost to one flipped byte is never a new root
    # >> 02 until prod
    # if kind == "message" and not _is_message(record.get("message")):
    # << 02 until prod
    # >> prod
    if kind == "message" and not is_message(record.get("message")):
        # << prod
        raise NotAnEntry("no message a model could be given")
    # >> 04
    if kind == "model_change" and not isinstance(record.get("model"), str):
        raise NotAnEntry("a model change without a model's name")
    # << 04
    # >> 05
    if kind == "branch" and (
        # >> 05 until prod
        # parent is None or "fromId" not in record or not _is_optional_str(record["fromId"])
        # << 05 until prod
        # >> prod
        parent is None or "fromId" not in record or not is_optional_str(record["fromId"])
        # << prod
    ):
        raise NotAnEntry("a branch without the entry it moved to, or from")
    # << 05
    # >> 06
    if kind == "compaction" and (
        not isinstance(record.get("summary"), str)
        or "firstKeptId" not in record
        # >> 06 until prod
        # or not _is_optional_str(record["firstKeptId"])
        # << 06 until prod
        # >> prod
        or not is_optional_str(record["firstKeptId"])
        # << prod
    ):
        raise NotAnEntry("a compaction without its summary, or what it keeps")
    # << 06
    # >> 02 until 03
    # return record  # a kind we do not know passes through
    # << 02 until 03
    # >> 03
    return record  # a kind we do not know passes through; build_context follows its parentId
    # << 03


# >> 02 until prod
# def _is_message(value: object) -> bool:
#     """Enough of a message that the model and the renderer can use it without crashing."""
#     if not isinstance(value, dict) or not isinstance(content := value.get("content"), list):
#         return False
#     for block in content:
#         if not isinstance(block, dict):
#             return False
#         match block.get("type"):
#             case "text":
#                 if not isinstance(block.get("text"), str):
#                     return False
#             case "toolCall":
#                 if not (
#                     isinstance(block.get("id"), str)
#                     and isinstance(block.get("name"), str)
#                     and isinstance(block.get("arguments"), dict)
#                 ):
#                     return False
#             case str():
#                 pass  # a block kind this step does not show: kept, never rendered
#             case _:
#                 return False
#     match value.get("role"):
#         case "user":
#             return True
#         case "assistant":
#             return value.get("stopReason") in ("stop", "toolUse")
#         case "toolResult":
#             return (
#                 isinstance(value.get("toolCallId"), str)
#                 and isinstance(value.get("toolName"), str)
#                 and isinstance(value.get("isError"), bool)
#             )
#     return False
# << 02 until prod


# >> 05 until prod
#
#
# def _is_optional_str(value: object) -> bool:
#     return value is None or isinstance(value, str)
#
#
# << 05 until prod
# >> 03


# --- The conversation: a walk from the leaf --------------------------------------------------


@dataclass(frozen=True)
class ChainBreak:
    """Where the walk up from the leaf had to stop before reaching a first entry."""

    entry_id: str  # the last entry the walk reached
    parent_id: str  # the parent it names
    reason: Literal["missing", "cycle"]  # no usable entry has that id / it was already visited

    def __str__(self) -> str:
        if self.reason == "missing":
            return f"{self.entry_id} hangs under {self.parent_id}, which is not in the file"
        return f"{self.entry_id} hangs under {self.parent_id}, which is already on the path"


@dataclass(frozen=True)
class Context:
    """What the model is given: rebuilt from the entries on the path from the leaf."""

    messages: list[Message]
    # >> 04
    model: str | None = None  # the last model_change on the path; None: the program's default
    # << 04
    chain_break: ChainBreak | None = None  # set when the path stops short of a first entry


@dataclass(frozen=True)
class ActivePath:
    """The entries from the first one down to the leaf, and where the walk stopped short."""

    entries: list[Entry]
    chain_break: ChainBreak | None


def path_to_leaf(entries: Mapping[str, Entry], leaf_id: str | None) -> ActivePath:
    # >> 03 until 06
    # """Walk parentId up from `leaf_id`, then reverse: the path in conversation order.
    #
    # Line order is never consulted. The visited set is what makes the walk safe on a damaged
    # file: a parent cycle ends it instead of looping forever, and so does a missing parent.
    # """
    # << 03 until 06
    # >> 06
    """Walk parentId up from `leaf_id`, then reverse: the path in conversation order.

    Line order is never consulted. The visited set is what makes the walk safe on a damaged
    file: a parent cycle ends it instead of looping forever, and so does a missing parent.
    The walk also ends at the first entry the latest compaction on the path keeps (at the
    compaction itself if it keeps nothing): what came before is in its summary.
    """
    # << 06
    path: list[Entry] = []
    visited: set[str] = set()
    chain_break = None
    # >> 06
    kept_from: str | None = None  # set by the first compaction met: the latest on the path
    # << 06
    entry = None if leaf_id is None else entries.get(leaf_id)
    while entry is not None:
        path.append(entry)
        visited.add(entry["id"])
        parent = entry["parentId"]
        # >> 06
        if kept_from is None and entry["type"] == "compaction":
            kept_from = entry["id"] if entry["firstKeptId"] is None else entry["firstKeptId"]
        if entry["id"] == kept_from:
            break  # the summary holds the rest: a resume need not read it (session.py)
        # << 06
        if parent is None:
            break
        entry = None if parent in visited else entries.get(parent)  # looked up once
        if entry is None:  # Stop here: never loop, never guess where an orphan hangs.
            reason: Literal["missing", "cycle"] = "cycle" if parent in visited else "missing"
            chain_break = ChainBreak(path[-1]["id"], parent, reason)
    path.reverse()
    return ActivePath(path, chain_break)


def build_context(entries: Mapping[str, Entry], leaf_id: str | None) -> Context:
    """Replay: a pure function of (entries, leaf). Each kind adds what it means, in one match."""
    path = path_to_leaf(entries, leaf_id)
    messages: list[Message] = []
    # >> 04
    model = None
    # << 04
    # >> 06
    summary = None
    # << 06
    for entry in path.entries:
        match entry["type"]:
            case "message":
                messages.append(entry["message"])
            # >> 04
            case "model_change":
                model = entry["model"]  # the last one on the path wins, not the last in the file
            # << 04
            # >> 05
            case "branch":
                pass  # a leaf move adds nothing: its parentId already led the walk past it
            # << 05
            # >> 06
            case "compaction":
                summary = entry["summary"]  # the walk began at what it keeps; it goes first
            # << 06
            case _:
                pass  # a kind this step does not know: its parentId was followed, that is all
    # >> 06
    if summary is not None:
        messages.insert(0, summary_message(summary))
    # << 06
    # >> 03 until prod
    # # A run killed between two saves, or a path that starts past a damaged line, can hold a
    # # tool call without its result, or a result without its call: pair them up.
    # << 03 until prod
    # >> prod
    # A damaged line on the path may have held a tool call's result, or the call: pair them up.
    # << prod
    # >> 03 until 04
    # return Context(answered_in_memory(messages), path.chain_break)
    # << 03 until 04
    # >> 04 until prod
    # return Context(answered_in_memory(messages), model, path.chain_break)
    # << 04 until prod
    # >> prod
    # The calls the path ends on are left to Chat.resume, which writes their answer.
    return Context(answered_in_memory(messages, at_the_end=False), model, path.chain_break)
    # << prod


# << 03


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
        # >> 04 until prod
        # case "model_change":
        #     return EntrySummary("model", shortened(f"→ {entry['model']}", width), True)
        # << 04 until prod
        # >> 05 until prod
        # case "branch":
        #     came_from = entry["fromId"] or "-"
        #     return EntrySummary("branch", f"back to {entry['parentId']} from {came_from}", True)
        # << 05 until prod
        # >> 06 until prod
        # case "compaction":
        #     kept = entry["firstKeptId"] or "nothing"
        #     return EntrySummary("compaction", f"a summary; keeps {kept} on", True)
        # << 06 until prod
        # >> prod
        case "model_change":
            return EntrySummary("model", shortened(f"→ {printable(entry['model'])}", width), True)
        case "branch":
            came_from = printable(entry["fromId"] or "-")
            return EntrySummary(
                "branch", f"back to {printable(entry['parentId'])} from {came_from}", True
            )
        case "compaction":
            kept = printable(entry["firstKeptId"] or "nothing")
            return EntrySummary("compaction", shortened(f"a summary; keeps {kept} on", width), True)
        case "damaged":  # DAMAGED: what the reader left of a line it could not use
            return EntrySummary("damaged", "(a damaged line: what it held is lost)", True)
        # << prod
        case other:
            # >> 02 until prod
            # return EntrySummary(other, "", False)
            # << 02 until prod
            # >> prod
            return EntrySummary(printable(other), "", False)
            # << prod
