"""The session file as bytes: the only module that touches the disk.

What a line *means* is entries.py's and session.py's business; this module knows the file as
a header line and then lines that each end in `\\n`, and keeps every promise about its bytes:

- The first append creates the file, header first, and never overwrites one (O_EXCL).
- The file is private: only its owner may read it (0600), and a folder made for it (0700).
- A line is appended whole, in one write, at the end of the file (O_APPEND).
- A line goes after a `\\n` of its own if the file ends in a fragment (a crash, a full disk).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypedDict, cast

import orjson

SESSION_VERSION = 1
# Stop here: a session holds everything said, tool output and pasted secrets included. Only its
# owner may read it, whatever the umask, and only its owner may list the folder made for it.
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


class SessionHeader(TypedDict):
    """First line of every session file: which format, which session, made when and where."""

    type: Literal["header"]
    version: int  # a reader refuses a version it does not know instead of misreading it
    id: str
    createdAt: str
    cwd: str


class SessionError(Exception):
    """A session file cannot be created, read or written; main.py prints it as one line."""


class UnusableSessionFile(SessionError):
    """A file that cannot be a session (empty, no header, another version), named, with why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def new_header(session_id: str, created_at: str, cwd: str) -> SessionHeader:
    return {
        "type": "header",
        "version": SESSION_VERSION,
        "id": session_id,
        "createdAt": created_at,
        "cwd": cwd,
    }


def encode(path: Path, record: Mapping[str, Any]) -> bytes:
    """One record as one line. orjson escapes newlines inside strings, so it is always one."""
    try:
        return orjson.dumps(record) + b"\n"
    except orjson.JSONEncodeError as error:  # e.g. text that is not valid Unicode
        raise SessionError(f"cannot write {path}: {error}") from None


class SessionFile:
    """The file a run appends to. Created by its first append, unless it exists already."""

    def __init__(self, path: Path, header: SessionHeader | None, *, exists: bool) -> None:
        self.path = path
        self.exists = exists  # False until the first append creates the file
        # Written by the append that creates the file, as it is then: a field set on the header
        # before the first save (a fork's parent, say) is written with it.
        self._header = header

    def append(self, line: bytes) -> None:
        """Append one whole line (it ends in `\\n`); the first append writes the header first."""
        flags = _APPEND_FLAGS
        creating = not self.exists
        if creating:  # the first write creates the file, header first
            line = encode(self.path, cast(SessionHeader, self._header)) + line
            flags |= os.O_CREAT | os.O_EXCL  # never overwrite: old bytes stay a prefix forever
            _make_folder(self.path.parent)
        try:
            fd = os.open(self.path, flags, PRIVATE_FILE)
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
            if creating:
                os.fchmod(fd, PRIVATE_FILE)  # the umask may have taken more away than asked
            if not creating:
                line = self._after_the_last_line(fd, line)
            _write_all(fd, line)
        except OSError as error:
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        finally:
            os.close(fd)
        self.exists = True

    def _after_the_last_line(self, fd: int, line: bytes) -> bytes:
        """`line`, with a `\\n` first if the file does not end in one now.

        Stop here: what the file ends in is read from the file, at the moment of writing, not
        remembered from the open or from this run's last write: a write of this run may have
        been cut short, and another run may have appended since and been killed halfway
        through a line. Gluing onto a fragment would cost this entry.
        """
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a fragment: end it, keep it, move on
            return b"\n" + line
        return line


# --- Reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileLines:
    """A session file as read: its header, checked, and every line after it (no `\\n`)."""

    header: SessionHeader
    lines: list[bytes]


def read_lines(path: Path) -> FileLines:
    """Read `path` as a session: a file whose first line is a header this program reads
    (UnusableSessionFile otherwise). Never writes."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    # Stop here: split on b"\n" and nothing else. str.splitlines() would also split on \x85,
    # U+2028 and U+2029, which JSON leaves unescaped in strings: one message, two broken lines.
    first, *lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()  # what follows the last line's \n: no line at all
    return FileLines(_parse_header(path, first), lines)


def read_header(path: Path) -> SessionHeader:
    """Enough of a file to tell whether it can be a session (UnusableSessionFile if not)."""
    try:  # its first line alone: --continue must not read what a resume from the end skips
        with path.open("rb") as file:
            return _parse_header(path, file.readline().removesuffix(b"\n"))
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None


@dataclass(frozen=True)
class LinesFromTheEnd:
    """A session file's header, checked, and its other lines in blocks: the block at the end
    of the file first, each block's lines in file order. The file is read only as far back as
    blocks are taken."""

    header: SessionHeader
    blocks: Generator[list[bytes], None, None]  # close() it to stop reading early


def read_lines_from_the_end(path: Path) -> LinesFromTheEnd:
    """Read `path` as a session, from its end (UnusableSessionFile if it cannot be one)."""
    try:
        file = path.open("rb")
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    first = file.readline()
    try:
        header = _parse_header(path, first.removesuffix(b"\n"))
    except UnusableSessionFile:
        file.close()
        raise
    return LinesFromTheEnd(header, _blocks_from_the_end(file, start=len(first)))


FIRST_BLOCK = 1 << 20  # bytes: a megabyte holds the last turns of most sessions


def _blocks_from_the_end(file: BinaryIO, start: int) -> Generator[list[bytes], None, None]:
    """The lines after `start`, a block at a time from the end, each block twice the last: a
    short read when little is needed, few blocks when all of it is."""
    with file:
        end, size, carried = file.seek(0, os.SEEK_END), FIRST_BLOCK, b""
        while end > start:
            begin = max(start, end - size)
            file.seek(begin)
            data = file.read(end - begin) + carried
            end, size = begin, size * 2
            if begin > start:  # Stop here: the first line may have begun in the block before.
                cut = data.find(b"\n") + 1 or len(data)
                carried, data = data[:cut], data[cut:]  # it goes back with that block, whole
            lines = data.split(b"\n")
            if not lines[-1]:
                lines.pop()  # what follows the last line's \n: no line at all
            yield lines


def list_session_files(directory: Path | str) -> list[Path]:
    """Every `*.jsonl` name in `directory`, most recently modified first: usable or not (that
    takes opening them; the caller names each one it passes over). A missing folder has none."""
    try:
        names = [path for path in Path(directory).iterdir() if path.name.endswith(".jsonl")]
    except FileNotFoundError:
        return []
    except OSError as error:
        raise SessionError(f"cannot list {directory}: {error.strerror}") from None
    # Two files with the same time go by name: session ids sort by creation time.
    return sorted(names, key=lambda path: (_modified_ns(path), path.name), reverse=True)


def _modified_ns(path: Path) -> int:
    """When a file was last written; 0 if its time cannot be read (a dangling link)."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _parse_header(path: Path, first_line: bytes) -> SessionHeader:
    if not first_line:
        raise UnusableSessionFile(path, "not a session (empty file)")
    record = parse_json(first_line)
    if not isinstance(record, dict) or record.get("type") != "header":
        raise UnusableSessionFile(path, "not a session (no header line)")
    if "version" not in record:
        raise UnusableSessionFile(path, "not a session (the header has no version)")
    version = record["version"]
    if type(version) is not int:  # 1.0, true and "1" are not the integer 1
        shown = orjson.dumps(version).decode()
        raise UnusableSessionFile(
            path, f"not a session (the header's version {shown} is not an integer)"
        )
    if version != SESSION_VERSION:
        raise UnusableSessionFile(
            path, f"unsupported version {version} (this program reads version {SESSION_VERSION})"
        )
    for field in ("id", "createdAt", "cwd"):
        if not isinstance(record.get(field), str):
            raise UnusableSessionFile(path, f"not a session (the header's {field} is not a string)")
    return cast(SessionHeader, record)


def parse_json(line: bytes) -> Any:
    """The JSON value on one line, or None if it is not JSON (torn, garbage, not UTF-8). A
    trailing \\r (a CRLF file) is JSON whitespace: such a line still reads."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def _write_all(fd: int, data: bytes) -> None:
    """One write call writes a whole line to a regular file; loop only if the kernel cut it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _make_folder(folder: Path) -> None:
    """Create the session folder, private, if it is missing; one that is there stays as it is."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(PRIVATE_FOLDER)
        folder.chmod(PRIVATE_FOLDER)  # the umask may have taken more away than asked
    except FileExistsError:
        pass  # there already, or made by another program a moment ago: not this run's to change
    except OSError as error:
        raise SessionError(f"cannot create session folder {folder}: {error.strerror}") from None


# Read and write: the writer reads the file's last byte before each line.
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
