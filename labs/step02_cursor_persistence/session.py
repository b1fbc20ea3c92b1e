"""A session: a header, then one entry per line, each appended as a child of the leaf.

This is the idea; the bytes are session_file.py's, the only module that touches the disk.
`Session.append_entry` is the one way to write an entry; `persist_new_messages`, the bridge from
the loop's list to the file, writes what is new since a cursor. The file is a ledger, only ever
appended to, and created by the first write: a run that says nothing leaves nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from entries import Entry, MessageEntry, NotAnEntry, entry_id, parse_entry
from messages import Message
from session_file import (  # the names marked F401 are here for callers: errors, the format
    SESSION_VERSION,  # noqa: F401
    SessionError,  # noqa: F401
    SessionFile,
    SessionHeader,
    UnusableSessionFile,
    encode,
    new_header,
    read_lines,
)


@dataclass(frozen=True)
class SessionReading:
    """What a read found in a session file."""

    header: SessionHeader
    by_id: dict[str, Entry]  # every usable entry, of every kind, by id, in file order
    leaf_id: str | None  # where the conversation ends: the file's last usable entry

    @property
    def entries(self) -> list[Entry]:
        """The usable entries in file order (which need not be the conversation's order)."""
        return list(self.by_id.values())


class Session:
    """A session file that entries are appended to, and the entries it holds."""

    def __init__(self, file: SessionFile, header: SessionHeader) -> None:
        self.file = file
        self.header = header
        self.entries: dict[str, Entry] = {}  # by id: what this run wrote
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
    ) -> Session:
        """A new session in `directory/<session_id>.jsonl`, written by its first entry: a run that
        saves nothing leaves no empty session behind."""
        header = new_header(session_id, created_at, cwd)
        path = Path(directory) / f"{session_id}.jsonl"
        return cls(SessionFile(path, header, exists=False), header)

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def exists(self) -> bool:
        """False until the first write creates the file."""
        return self.file.exists

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf: the one way
        to write. It picks the next unique id, hangs the entry under the leaf, writes it as one
        whole line in one write, and only then moves the leaf."""
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        new_id = entry_id(len(self.entries) + 1)  # this run wrote every entry of the file
        entry: Entry = {"type": kind, "id": new_id, "parentId": self.leaf_id, **fields}
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line.
        self.file.append(encode(self.path, entry))
        self.written += 1
        self.entries[entry["id"]] = entry
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))


def persist_new_messages(session: Session, messages: Sequence[Message], persisted: int) -> int:
    """Append `messages[persisted:]` to the session and return the new cursor: how many
    messages of the list are in the file. Give it back next time; twice writes nothing twice."""
    if not 0 <= persisted <= len(messages):
        raise ValueError(f"cursor {persisted} is outside the {len(messages)} messages")
    for message in messages[persisted:]:
        session.append_message(message)
    return len(messages)


def read_session(path: Path | str) -> SessionReading:
    """Read a whole session file strictly: a line that is not an entry refuses the file,
    naming the line and the reason (step 03 makes reading tolerant). Never writes."""
    by_id: dict[str, Entry] = {}
    lines = read_lines(Path(path))
    for number, line in enumerate(lines.lines, start=2):  # line 1 is the header
        try:
            entry = parse_entry(line)
        except NotAnEntry as damage:
            raise UnusableSessionFile(Path(path), f"line {number}: {damage}") from None
        if entry["id"] in by_id:
            raise UnusableSessionFile(
                Path(path), f"line {number}: the id {entry['id']} is already taken"
            )
        by_id[entry["id"]] = entry
    return SessionReading(lines.header, by_id, next(reversed(by_id), None))
