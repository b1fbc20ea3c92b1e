"""The ledger: a JSON Lines session file where every append adds one line at the end.

Line 1 is a header (format version, session id, creation time, working directory); every
later line is one entry wrapping one message. Appending never touches the bytes already
written, so a crash can damage at most the line being written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Self

import orjson

from messages import Message

FORMAT_VERSION = 1

Entry = dict[str, Any]


class UnreadableLedger(Exception):
    """The file cannot be a session: it is empty, has no header, or an unknown version."""


class IncompleteWrite(OSError):
    """The kernel took only part of a line: the file now ends in a torn line.

    A `write` may return fewer bytes than it was given (a full disk, a file size limit).
    The append must then fail: a store that acknowledged the line would promise a message
    the file does not hold.
    """


class LedgerStore:
    """Append-only session file: one `write` of one JSON line per entry.

    The file stays open in append mode ("ab"): the operating system puts every write at the
    current end of the file, whatever else happened to the file.
    """

    def __init__(self, path: Path, file: BinaryIO) -> None:
        self.path = Path(path)
        self._file = file
        self.entry_count = 0
        self.last_id: str | None = None  # the entry the next one hangs under

    @classmethod
    def create(
        cls,
        path: Path,
        *,
        session_id: str = "session",
        created_at: str = "1970-01-01T00:00:00.000Z",
        cwd: str | None = None,
    ) -> Self:
        """Start a new session file with its header line.

        The id, the time and the directory are passed in (not read from a clock) so that a
        demo or a test produces the same bytes every run.
        """
        # buffering=0: each write() below is one system call, so what Python calls "one
        # write" is exactly what the kernel receives; nothing waits in a Python buffer.
        file = open(path, "ab", buffering=0)  # noqa: SIM115 (kept open; close() closes it)
        store = cls(path, file)
        header = {
            "type": "header",
            "version": FORMAT_VERSION,
            "id": session_id,
            "createdAt": created_at,
            "cwd": cwd if cwd is not None else os.getcwd(),
        }
        store._write_line(header)
        return store

    def next_entry_id(self) -> str:
        """The id the next entry gets: e1, e2, ... unique within the file."""
        return f"e{self.entry_count + 1}"

    def append(self, message: Message) -> int:
        """Append one message entry. Returns the number of bytes written."""
        entry = {
            "type": "message",
            "id": self.next_entry_id(),
            "parentId": self.last_id,
            "message": message,
        }
        return self.write_entry(entry)

    def write_entry(self, entry: Entry) -> int:
        """Append any entry (it must carry a fresh `id`). Returns the bytes written."""
        written = self._write_line(entry)
        self.entry_count += 1
        self.last_id = entry["id"]
        return written

    def _write_line(self, record: dict[str, Any]) -> int:
        # orjson never emits a raw newline (a "\n" inside a text becomes the two characters
        # \ and n), so one record is always exactly one line.
        line = orjson.dumps(record) + b"\n"
        write_whole_line(self._file, line, self.path)
        return len(line)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ReopeningLedgerStore(LedgerStore):
    """The same ledger, written the way steps 02 on write it: open, one write, close.

    Nothing stays open between appends, so a program can keep many sessions without holding
    a file handle for each. The price is an `open` and a `close` on every append; notebook 01
    section 2 measures it against the ledger that keeps its file open.
    """

    @classmethod
    def create(cls, path: Path, **header: Any) -> Self:
        """Start a new session file with its header line, and hold nothing open after it."""
        store = super().create(path, **header)  # its header goes through _write_line below
        store._file.close()  # the file create() opened: this store never writes through it
        return store

    def _write_line(self, record: dict[str, Any]) -> int:
        line = orjson.dumps(record) + b"\n"
        # Append mode puts the write at the end of the file, as in LedgerStore; the only
        # difference is that the file is opened and closed around every single line.
        with open(self.path, "ab", buffering=0) as file:
            write_whole_line(file, line, self.path)
        return len(line)


def write_whole_line(file: BinaryIO, line: bytes, path: Path) -> None:
    """Write `line` with ONE system call, and fail unless the kernel took all of it.

    One write means the line goes out whole or, if the process dies inside it, torn at the
    end of the file. With buffering=0, `write` returns what the kernel accepted, which can be
    less than asked when the disk is full or a size limit is reached.
    """
    written = file.write(line)  # ONE write: the line goes out whole or torn
    if written != len(line):  # Stop here: a short write must not be acknowledged
        raise IncompleteWrite(
            f"{Path(path).name}: only {written} of {len(line)} bytes of the line were written;"
            " the file now ends in a torn line"
        )


@dataclass
class LedgerReading:
    """What a tolerant read recovers from a session file."""

    header: dict[str, Any]
    entries: list[Entry] = field(default_factory=list)  # the message entries, in file order
    other_entries: list[Entry] = field(default_factory=list)  # kinds this reader skips
    bad_lines: int = 0  # complete lines that are blank, not JSON or not an entry
    torn_tail: bool = False  # the last line has no "\n": a write that never finished

    @property
    def messages(self) -> list[Message]:
        return [entry["message"] for entry in self.entries]


def read_ledger(path: Path) -> LedgerReading:
    """Read a session file, keeping every complete line that parses.

    A torn last line costs that line alone; only a file with no valid header is refused.
    """
    data = Path(path).read_bytes()
    lines = data.split(b"\n")
    # After the final "\n" split() leaves b"". Anything else there is a line cut mid-write.
    tail = lines.pop()
    if not lines:
        raise UnreadableLedger("no complete header line" if tail else "the file is empty")
    header = _parse(lines[0])
    if header is None or header.get("type") != "header":
        raise UnreadableLedger("the first line is not a header")
    if header.get("version") != FORMAT_VERSION:
        raise UnreadableLedger(f"unsupported version {header.get('version')!r}")

    reading = LedgerReading(header=header, torn_tail=bool(tail))
    for line in lines[1:]:
        record = _parse(line)
        if record is None or "type" not in record or "id" not in record:
            reading.bad_lines += 1
        elif record["type"] == "message":
            reading.entries.append(record)
        else:
            reading.other_entries.append(record)  # a kind from the future: skip, don't fail
    return reading


def _parse(line: bytes) -> dict[str, Any] | None:
    """One line as a JSON object, or None when it is not one."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
