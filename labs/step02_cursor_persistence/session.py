"""The session file: a header line, then one line per message. The only module that touches disk.

The file is a ledger: lines are only ever appended, never rewritten. `Session.append` is the one
way to write a message, and `persist_new_messages` is the bridge from the loop's in-memory list
to the file: it writes what is new since a cursor, so the loop never has to know about disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypedDict

import orjson

from messages import Message

SESSION_VERSION = 1


class SessionHeader(TypedDict):
    """First line of every session file: which format, which session, made when and where."""

    type: Literal["header"]
    version: int  # a reader refuses a version it does not know instead of misreading it
    id: str
    createdAt: str
    cwd: str


class MessageEntry(TypedDict):
    """An entry wraps a message. id/parentId are for the file; the model never sees them."""

    type: Literal["message"]
    id: str
    parentId: str | None  # the entry this one hangs under, None for the first
    message: Message


SessionEntry = MessageEntry


class SessionError(Exception):
    """A session file cannot be created or read; main.py prints it as one `error:` line."""


class Session:
    """An open session file that messages are appended to."""

    def __init__(self, path: Path, header: SessionHeader, last_id: str | None, count: int) -> None:
        self.path = path
        self.header = header
        self.last_id = last_id  # the parent of the next entry
        self.count = count  # entries written so far; the next id is e<count + 1>

    @classmethod
    def create(
        cls, directory: Path | str, *, session_id: str, created_at: str, cwd: str
    ) -> Session:
        """Create `directory/<session_id>.jsonl` holding only the header.

        An existing file is an error, never overwritten: old bytes stay a prefix forever.
        """
        directory = Path(directory)
        header: SessionHeader = {
            "type": "header",
            "version": SESSION_VERSION,
            "id": session_id,
            "createdAt": created_at,
            "cwd": cwd,
        }
        path = directory / f"{session_id}.jsonl"
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = error.strerror
            raise SessionError(f"cannot create session folder {directory}: {reason}") from None
        try:
            with path.open("xb") as file:  # "x": fail if it exists
                file.write(orjson.dumps(header) + b"\n")
        except FileExistsError:
            raise SessionError(f"session file already exists: {path}") from None
        except OSError as error:
            raise SessionError(f"cannot create session file {path}: {error.strerror}") from None
        return cls(path, header, last_id=None, count=0)

    def append(self, message: Message) -> MessageEntry:
        """Write one message as one line, chaining it under the previous entry."""
        entry: MessageEntry = {
            "type": "message",
            "id": f"e{self.count + 1}",
            "parentId": self.last_id,
            "message": message,
        }
        # Stop here: one write of one complete line, in append mode. orjson escapes newlines
        # inside strings, so a message can never break the one-line-per-entry rule.
        line = orjson.dumps(entry) + b"\n"
        try:
            with self.path.open("ab") as file:
                file.write(line)
        except OSError as error:
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        self.count += 1
        self.last_id = entry["id"]
        return entry


def persist_new_messages(session: Session, messages: Sequence[Message], persisted: int) -> int:
    """Append `messages[persisted:]` to the session and return the new cursor.

    The cursor is "how many messages of the list are already in the file". Call this after
    each turn with the cursor it returned last time; calling it twice writes nothing twice.
    """
    if not 0 <= persisted <= len(messages):
        raise ValueError(f"cursor {persisted} is outside the {len(messages)} messages")
    for message in messages[persisted:]:
        session.append(message)
    return len(messages)


def read_session(path: Path | str) -> tuple[SessionHeader, list[SessionEntry]]:
    """Read a whole session file strictly (step 03 makes reading tolerant of damage)."""
    path = Path(path)
    try:
        lines = path.read_bytes().splitlines()
    except OSError as error:
        raise SessionError(f"cannot read {path}: {error.strerror}") from None
    try:
        records = [orjson.loads(line) for line in lines]
    except orjson.JSONDecodeError as error:
        raise SessionError(f"{path} is not JSON Lines: {error}") from None
    if not records or not isinstance(records[0], dict) or records[0].get("type") != "header":
        raise SessionError(f"{path} does not start with a session header")
    header: SessionHeader = records[0]
    if header.get("version") != SESSION_VERSION:
        raise SessionError(f"{path} has version {header.get('version')}, this step reads 1")
    entries: list[SessionEntry] = [
        record
        for record in records[1:]
        if isinstance(record, dict) and record.get("type") == "message"  # skip unknown kinds
    ]
    return header, entries
