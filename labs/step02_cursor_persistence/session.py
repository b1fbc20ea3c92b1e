"""The session file: a header line, then one line per entry. The only module that touches disk.

The file is a ledger: lines are only ever appended, never rewritten. `Session.append_entry` is
the one way to write an entry, and `persist_new_messages` is the bridge from the loop's
in-memory list to the file: it writes what is new since a cursor, so the loop never has to know
about disk. The file is created by the first write, so a run that says nothing leaves nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

import orjson

from entries import Entry, MessageEntry, entry_id
from messages import Message

SESSION_VERSION = 1
# The writer refuses a longer line: step 03's reader skips lines over this size (a file that
# ends in 2 GB of garbage must not take 2 GB of memory), and a program must never write a file
# it cannot read back.
MAX_ENTRY_BYTES = 32 * 1024 * 1024


class SessionHeader(TypedDict):
    """First line of every session file: which format, which session, made when and where."""

    type: Literal["header"]
    version: int  # a reader refuses a version it does not know instead of misreading it
    id: str
    createdAt: str
    cwd: str


class SessionError(Exception):
    """A session file cannot be created, read or written; main.py prints it as one line."""


@dataclass(frozen=True)
class SessionReading:
    """What a read found in a session file."""

    header: SessionHeader
    entries: list[Entry]  # every entry, in file order


class Session:
    """A session file that entries are appended to."""

    def __init__(self, path: Path, header: SessionHeader) -> None:
        self.path = path
        self.header = header
        self.leaf_id: str | None = None  # the entry the next one hangs under
        self.exists = False  # False until the first write creates the file
        self._next_number = 1

    @classmethod
    def create(
        cls, directory: Path | str, *, session_id: str, created_at: str, cwd: str
    ) -> Session:
        """A new session in `directory/<session_id>.jsonl`. Nothing is written yet: the file
        appears with the first entry, so a run that saves nothing leaves no empty session
        behind."""
        header: SessionHeader = {
            "type": "header",
            "version": SESSION_VERSION,
            "id": session_id,
            "createdAt": created_at,
            "cwd": cwd,
        }
        path = Path(directory) / f"{session_id}.jsonl"
        _encode(path, header)  # refuse now what could never be written
        return cls(path, header)

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf.

        The one way to write: it picks the next id, hangs the entry under the leaf, writes it
        as one complete line in one write, and only then moves the leaf.
        """
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        entry: Entry = {"type": kind, "id": self._new_id(), "parentId": self.leaf_id, **fields}
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line.
        self._write_line(_encode(self.path, entry))
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))

    def _new_id(self) -> str:
        candidate = entry_id(self._next_number)
        self._next_number += 1
        return candidate

    def _write_line(self, line: bytes) -> None:
        if len(line) > MAX_ENTRY_BYTES:
            raise SessionError(
                f"cannot write {self.path}: an entry of {len(line):,} bytes is over the "
                f"{MAX_ENTRY_BYTES:,}-byte limit a reader accepts"
            )
        flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC
        if not self.exists:  # the first write creates the file, header first
            line = _encode(self.path, self.header) + line
            flags |= os.O_CREAT | os.O_EXCL  # never overwrite: old bytes stay a prefix forever
            _make_folder(self.path.parent)
        try:
            fd = os.open(self.path, flags, 0o644)
        except FileExistsError:
            raise SessionError(f"session file already exists: {self.path}") from None
        except FileNotFoundError:
            # Without O_CREAT a vanished file stays vanished: recreating it here would write
            # entries without a header, a file no reader accepts.
            raise SessionError(
                f"session file {self.path} is gone (deleted during the run?)"
            ) from None
        except OSError as error:
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        try:
            _write_all(fd, line)
        except OSError as error:
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        finally:
            os.close(fd)
        self.exists = True


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
    path = Path(path)
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as error:
        raise SessionError(f"cannot read {path}: {error.strerror}") from None
    if lines[-1] != b"":
        raise SessionError(f"{path} does not end in a complete line")
    try:
        records = [orjson.loads(line) for line in lines[:-1]]
    except orjson.JSONDecodeError as error:
        raise SessionError(f"{path} is not JSON Lines: {error}") from None
    if not records or not isinstance(records[0], dict) or records[0].get("type") != "header":
        raise SessionError(f"{path} does not start with a session header")
    header = cast(SessionHeader, records[0])
    if header.get("version") != SESSION_VERSION:
        raise SessionError(f"{path} has version {header.get('version')!r}, this step reads 1")
    for number, record in enumerate(records[1:], start=2):
        if not _is_entry(record):
            raise SessionError(f"{path}: line {number} is not an entry this step can show")
    return SessionReading(header, records[1:])


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


def _encode(path: Path, record: Mapping[str, Any]) -> bytes:
    try:
        return orjson.dumps(record) + b"\n"
    except orjson.JSONEncodeError as error:  # e.g. text that is not valid Unicode
        raise SessionError(f"cannot write {path}: {error}") from None


def _write_all(fd: int, data: bytes) -> None:
    """One write call writes a whole line to a regular file; loop only if the kernel cut it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SessionError(f"cannot create session folder {folder}: {error.strerror}") from None
