"""The session file: a header line, then one line per entry. The only module that touches disk.

The file is a ledger: lines are only ever appended, never rewritten. `Session.append` is the one
way to write a message, and `persist_new_messages` is the bridge from the loop's in-memory list
to the file: it writes what is new since a cursor, so the loop never has to know about disk.

Reading is tolerant: a crash can tear the last line, an editor can add a blank line, a newer
program can add entry kinds. `read_session` skips and counts the lines it cannot use, skips
unknown entry kinds silently, and refuses only a file that cannot be a session at all.
`Session.open` replays a file into a message list, and `find_latest_session` picks the file
`--continue` resumes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypedDict

import orjson

from messages import Message

SESSION_VERSION = 1
MAX_HEADER_BYTES = 64 * 1024  # a header is a few hundred bytes; a longer first line is not one


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


# The kinds this step writes. A reader also meets kinds it does not know (a later step's),
# so what it reads back is typed loosely: a dict with a string "type" and "id".
SessionEntry = MessageEntry
Entry = dict[str, Any]


class SessionError(Exception):
    """A session file cannot be created or read; main.py prints it as one `error:` line."""


class UnusableSessionFile(SessionError):
    """A file that cannot be a session: empty, no header, or a version this program cannot read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class SessionReading:
    """What a tolerant read found in a session file."""

    header: SessionHeader
    entries: list[Entry]  # every usable entry, of every kind, in file order
    skipped: int  # lines that were blank, not UTF-8, not JSON or not an entry
    needs_newline: bool  # the file does not end in \n (a torn last line): write one first

    @property
    def messages(self) -> list[Message]:
        """The conversation to replay: the message entries' messages, in file order."""
        return [entry["message"] for entry in self.entries if entry["type"] == "message"]


class Session:
    """An open session file that messages are appended to."""

    def __init__(
        self,
        path: Path,
        header: SessionHeader,
        last_id: str | None,
        last_number: int,
        needs_newline: bool = False,
    ) -> None:
        self.path = path
        self.header = header
        self.last_id = last_id  # the parent of the next entry
        self.last_number = last_number  # the largest N of an id e<N>; the next id is e<N + 1>
        self.needs_newline = needs_newline  # the file ends in a torn line: start a fresh one

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
        return cls(path, header, last_id=None, last_number=0)

    @classmethod
    def open(cls, path: Path | str) -> Resumed:
        """Open an existing session to append to it, and replay its messages.

        Nothing is re-run: tool results are messages in the file, so the history comes back
        exactly as it was. The session's own pointers are restored from what was read: the
        parent of the next entry, and a number that makes the next id unique.
        """
        path = Path(path)
        reading = read_session(path)
        # Don't trust line counts: skipped lines and foreign kinds exist. Take the largest id.
        numbers = [_id_number(entry["id"]) for entry in reading.entries]
        session = cls(
            path,
            reading.header,
            last_id=reading.entries[-1]["id"] if reading.entries else None,
            last_number=max(numbers, default=0),
            needs_newline=reading.needs_newline,
        )
        return Resumed(session, reading.messages, reading.skipped)

    def append(self, message: Message) -> MessageEntry:
        """Write one message as one line, chaining it under the previous entry."""
        entry: MessageEntry = {
            "type": "message",
            "id": f"e{self.last_number + 1}",
            "parentId": self.last_id,
            "message": message,
        }
        # Stop here: one write of one complete line, in append mode. orjson escapes newlines
        # inside strings, so a message can never break the one-line-per-entry rule.
        line = orjson.dumps(entry) + b"\n"
        if self.needs_newline:  # never glue onto a torn fragment: end it, keep it, move on
            line = b"\n" + line
        try:
            with self.path.open("ab") as file:
                file.write(line)
        except OSError as error:
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        self.needs_newline = False
        self.last_number += 1
        self.last_id = entry["id"]
        return entry


class Resumed(NamedTuple):
    """What `Session.open` gives back: the session, the conversation so far, lines skipped."""

    session: Session
    messages: list[Message]
    skipped: int


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


def read_header(path: Path | str) -> SessionHeader:
    """Read only the first line: enough to tell whether a file can be a session."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            first = file.readline(MAX_HEADER_BYTES)
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    return _parse_header(path, first)


def read_session(path: Path | str) -> SessionReading:
    """Read a whole session file, skipping and counting the lines it cannot use.

    Refuses (UnusableSessionFile) only a file that cannot be a session: empty, no header line,
    or an unsupported version. Never writes.
    """
    path = Path(path)
    entries: list[Entry] = []
    skipped = 0
    line = b""
    try:
        with path.open("rb") as file:
            header = _parse_header(path, file.readline(MAX_HEADER_BYTES))
            line = b"\n"  # the header line ended in \n, or _parse_header would have refused
            # Stop here: a file opened in binary mode yields lines split on b"\n" and nothing
            # else. str.splitlines() would also split on \x85, U+2028 and U+2029, which JSON
            # leaves unescaped in strings: a message holding one would become two broken lines.
            for line in file:
                entry = _parse_entry(line)
                if entry is None:
                    skipped += 1
                else:
                    entries.append(entry)
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    return SessionReading(header, entries, skipped, needs_newline=not line.endswith(b"\n"))


def list_session_files(directory: Path | str) -> list[Path]:
    """The regular `*.jsonl` files in `directory`, most recently modified first.

    Usable or not: that takes reading them. A missing folder simply has none.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return []
    try:
        candidates = [path for path in directory.glob("*.jsonl") if path.is_file()]
        # Two files with the same time go by name: session ids sort by creation time.
        candidates.sort(key=lambda path: (path.stat().st_mtime_ns, path.name), reverse=True)
    except OSError as error:
        raise SessionError(f"cannot list {directory}: {error.strerror}") from None
    return candidates


def find_latest_session(
    directory: Path | str,
) -> tuple[Path | None, list[UnusableSessionFile]]:
    """The most recently modified usable session in `directory`, and the files passed over.

    Each file newer than the winner that turns out unusable is returned with its reason, so
    the caller can warn about it instead of silently resuming something older. Only the
    header is read here; `Session.open` reads the rest.
    """
    passed_over: list[UnusableSessionFile] = []
    for path in list_session_files(directory):
        try:
            read_header(path)
        except UnusableSessionFile as error:
            passed_over.append(error)
            continue
        return path, passed_over
    return None, passed_over


def _parse_header(path: Path, first_line: bytes) -> SessionHeader:
    if not first_line:
        raise UnusableSessionFile(path, "not a session (empty file)")
    record = _loads(first_line) if first_line.endswith(b"\n") else None
    if not isinstance(record, dict) or record.get("type") != "header":
        raise UnusableSessionFile(path, "not a session (no header line)")
    version = record.get("version")
    if version is None:
        raise UnusableSessionFile(path, "not a session (the header has no version)")
    if version != SESSION_VERSION or isinstance(version, bool):
        raise UnusableSessionFile(
            path, f"unsupported version {version} (this program reads version {SESSION_VERSION})"
        )
    return record  # type: ignore[return-value]


def _parse_entry(line: bytes) -> Entry | None:
    """The entry on one line, or None if the line is not one (blank, torn, garbage...)."""
    record = _loads(line)
    if not isinstance(record, dict):
        return None
    kind, entry_id, parent = record.get("type"), record.get("id"), record.get("parentId")
    if not isinstance(kind, str) or kind == "header" or not isinstance(entry_id, str):
        return None
    if parent is not None and not isinstance(parent, str):
        return None
    if kind == "message" and not _is_message(record.get("message")):
        return None
    return record  # a kind we do not know passes through; replaying it is someone else's job


def _loads(line: bytes) -> Any:
    """orjson reads bytes: invalid UTF-8 is a JSONDecodeError like any other broken line.
    A trailing \\r (a CRLF file) is JSON whitespace, so such a line still reads."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def _is_message(value: object) -> bool:
    """Enough of a message that the model and the renderer can use it without crashing."""
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


_ID = re.compile(r"e(\d+)")


def _id_number(entry_id: str) -> int:
    """e7 -> 7; an id of another shape (a later step's, a hand edit) counts as 0."""
    match = _ID.fullmatch(entry_id)
    return int(match.group(1)) if match else 0
