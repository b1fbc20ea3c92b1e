"""A session: a header, then one entry per line, each appended as a child of the leaf.

This is the idea; the bytes are session_file.py's, the only module that touches the disk. The
file is a ledger: lines are only ever appended, never rewritten. `Session.append_entry` is the
one way to write an entry, and `persist_new_messages` is the bridge from the loop's in-memory
list to the file: it writes what is new since a cursor, so the loop never has to know about
disk. The file is created by the first write, so a run that says nothing leaves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import orjson

from entries import Entry, MessageEntry, entry_id
from messages import Message
from session_file import (  # the names marked F401 are here for callers: errors, the format
    MAX_ENTRY_BYTES,  # noqa: F401
    SESSION_VERSION,  # noqa: F401
    SessionError,
    SessionFile,
    SessionHeader,
    encode,
    new_header,
    read_lines,
)


@dataclass(frozen=True)
class SessionReading:
    """What a read found in a session file."""

    header: SessionHeader
    entries: list[Entry]  # every entry, in file order


class Session:
    """A session file that entries are appended to."""

    def __init__(self, file: SessionFile, header: SessionHeader) -> None:
        self.file = file
        self.header = header
        self.leaf_id: str | None = None  # the entry the next one hangs under
        self._next_number = 1

    @classmethod
    def create(
        cls, directory: Path | str, *, session_id: str, created_at: str, cwd: str
    ) -> Session:
        """A new session in `directory/<session_id>.jsonl`. Nothing is written yet: the file
        appears with the first entry, so a run that saves nothing leaves no empty session
        behind."""
        header = new_header(session_id, created_at, cwd)
        path = Path(directory) / f"{session_id}.jsonl"
        return cls(SessionFile.new(path, header), header)

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def exists(self) -> bool:
        """False until the first write creates the file."""
        return self.file.exists

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf.

        The one way to write: it picks the next id, hangs the entry under the leaf, writes it
        as one complete line in one write, and only then moves the leaf.
        """
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        entry: Entry = {"type": kind, "id": self._new_id(), "parentId": self.leaf_id, **fields}
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line.
        self.file.append(encode(self.path, entry))
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))

    def _new_id(self) -> str:
        candidate = entry_id(self._next_number)
        self._next_number += 1
        return candidate


def persist_new_messages(session: Session, messages: Sequence[Message], persisted: int) -> int:
    """Append `messages[persisted:]` to the session and return the new cursor.

    The cursor is "how many messages of the list are already in the file". Call this after
    each turn with the cursor it returned last time; calling it twice writes nothing twice.
    """
    if not 0 <= persisted <= len(messages):
        raise ValueError(f"cursor {persisted} is outside the {len(messages)} messages")
    for message in messages[persisted:]:
        session.append_message(message)
    return len(messages)


def read_session(path: Path | str) -> SessionReading:
    """Read a whole session file strictly: any damage refuses it (step 03 makes reading
    tolerant, and the program able to resume)."""
    entries: list[Entry] = []
    with read_lines(Path(path)) as lines:
        for number, line in enumerate(lines.lines(), start=2):
            try:
                record = orjson.loads(line) if isinstance(line, bytes) else None  # else TooLong
            except orjson.JSONDecodeError:
                raise SessionError(f"{path} is not JSON Lines: line {number}") from None
            if not _is_entry(record):
                raise SessionError(f"{path}: line {number} is not an entry this step can show")
            entries.append(cast(Entry, record))
    return SessionReading(lines.header, entries)


def _is_entry(record: object) -> bool:
    """A dict with a string type and id, a parentId that is a string or null, and, for a
    message entry, a message the model and the renderer can use without crashing."""
    if not isinstance(record, dict):
        return False
    kind, parent = record.get("type"), record.get("parentId")
    if not isinstance(kind, str) or not isinstance(record.get("id"), str):
        return False
    if parent is not None and not isinstance(parent, str):
        return False
    return kind != "message" or _is_message(record.get("message"))


def _is_message(value: object) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("content"), list):
        return False
    for block in value["content"]:
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return False
        if block["type"] == "text" and not isinstance(block.get("text"), str):
            return False
        if block["type"] == "toolCall" and not (
            isinstance(block.get("id"), str)
            and isinstance(block.get("name"), str)
            and isinstance(block.get("arguments"), dict)
        ):
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
