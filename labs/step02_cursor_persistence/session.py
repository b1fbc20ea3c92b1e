"""A session: a header, then one entry per line, each appended as a child of the leaf.

This is the idea; the bytes are session_file.py's, the only module that touches the disk.
`Session.append_entry` is the one way to write an entry, and `persist_new_messages` is the
bridge from the loop's in-memory list to the file: it writes what is new since a cursor, so the
loop never has to know about disk.

The file is a ledger: lines are only ever appended, never rewritten. It is created by the first
write, so a run that says nothing leaves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from entries import DAMAGED, Entry, MessageEntry
from entry_index import EntryIndex
from messages import Message
from session_file import (  # the names marked F401 are here for callers: errors, the format
    SESSION_VERSION,  # noqa: F401
    SessionError,
    SessionFile,
    SessionHeader,
    SessionInUse,  # noqa: F401
    UnusableSessionFile,  # noqa: F401
    encode,
    new_header,
    read_lines,
)


@dataclass(frozen=True)
class SessionReading:
    """What a read found in a session file."""

    header: SessionHeader
    by_id: dict[str, Entry]  # every entry, of every kind, by id, in file order

    @property
    def entries(self) -> list[Entry]:
        """The entries in file order (in this step, the conversation's order too)."""
        return list(self.by_id.values())

    @property
    def leaf_id(self) -> str | None:
        """The leaf: the last usable entry (never what the reader left of a damaged line)."""
        kept = (key for key, entry in reversed(self.by_id.items()) if entry["type"] != DAMAGED)
        return next(kept, None)


class Session:
    """A session file that entries are appended to, and the entries it holds."""

    def __init__(self, file: SessionFile, header: SessionHeader) -> None:
        self.file = file
        self.header = header
        self.entries = EntryIndex()  # by id: what this run wrote, and what others appended
        self.leaf_id: str | None = None  # the entry the next one hangs under
        self.written = 0  # entries this run appended, of every kind

    @classmethod
    def create(
        cls,
        directory: Path | str,
        *,
        session_id: str,
        created_at: str,
        cwd: str,
        lock: bool = False,
        fsync: bool = False,
    ) -> Session:
        """A new session in `directory/<session_id>.jsonl`. Nothing is written yet: the file
        appears with the first entry, so a run that saves nothing leaves no empty session
        behind."""
        header = new_header(session_id, created_at, cwd)
        path = Path(directory) / f"{session_id}.jsonl"
        return cls(SessionFile.new(path, header, lock=lock, fsync=fsync), header)

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def exists(self) -> bool:
        """False until the first write creates the file."""
        return self.file.exists

    @property
    def locked(self) -> bool:
        return self.file.locked

    def close(self) -> None:
        """Let go of the lock, if held."""
        self.file.close()

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf.

        The one way to write: it picks the next unique id, hangs the entry under the leaf,
        writes it as one complete line in one write, and only then moves the leaf.
        """
        # Stop here: another program may have appended (a script, a tool; a lock keeps out
        # only the runs that take it). Its lines are indexed first, so that their ids are taken.
        for batch in self.file.lines_added():
            self.entries.add_lines(batch)
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        if kind == DAMAGED:  # the reader's stand-in for a line it could not use, never written
            raise ValueError(f"append_entry never writes a {DAMAGED!r} entry: it holds nothing")
        new_id = self.entries.new_id()  # one no line of the file has
        entry: Entry = {"type": kind, "id": new_id, "parentId": self.leaf_id, **fields}
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line. Its
        # key order (type, id first) lets `EntryIndex` index the line without parsing it.
        self.file.append(encode(self.path, entry))
        self.written += 1
        self.entries[entry["id"]] = entry
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))


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
    """Read a whole session file strictly: any line that is not an entry refuses it (step 03
    makes reading tolerant, and the program able to resume)."""
    entries = EntryIndex()
    with read_lines(Path(path)) as lines:
        for batch in lines.batches:
            entries.add_lines(batch)
        by_id = dict(entries.items())  # parses and checks every entry
    if entries.damaged:
        lines = "line is not an entry" if entries.damaged == 1 else "lines are not entries"
        raise SessionError(f"{path}: {entries.damaged} {lines} this step can show")
    return SessionReading(lines.header, by_id)
