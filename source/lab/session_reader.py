# >>file prod
"""A session file read in bounded memory, however long its lines: the reading half of the
JSONL store.

A line is split on `\n` alone; a line over MAX_ENTRY_BYTES is read past in bounded pieces and
kept as its first bytes (TooLong); a FIFO named *.jsonl is refused, never waited on. Reading
never writes.
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

import orjson

from session_format import SessionError, SessionHeader, UnusableSessionFile
from session_header import MAX_HEADER_BYTES, parse_header

# A line longer than this is skipped and counted, never read whole: a file that ends in 2 GB of
# NUL bytes must not take 2 GB of memory. The writer refuses to write such a line, so the
# program never writes a file it cannot read back.
MAX_ENTRY_BYTES = 32 * 1024 * 1024
_READ_CHUNK = 4 * 1024 * 1024  # under MAX_ENTRY_BYTES: a line whole in one chunk is never too long
_HEAD_BYTES = 4096  # what is kept of a line too long to read: where the writer puts the id


@dataclass(frozen=True)
class TooLong:
    """A line over MAX_ENTRY_BYTES, read past in bounded pieces. Its content is lost, but not
    its first bytes: the id there is still taken, and a new entry must never be given it."""

    head: bytes


Line = bytes | TooLong


@dataclass(frozen=True)
class FileLines:
    """A session file being read: its header, checked, and the lines after it."""

    header: SessionHeader
    batches: Iterator[list[Line]]  # the lines, a chunk at a time
    whole: bool  # from the first line after the header on (False: from a later line)
    identity: tuple[int, int]  # (device, inode) of the file read
    size: int  # its size in bytes when it was opened
    _file: BinaryIO

    def lines(self) -> Iterator[Line]:
        """The same lines one at a time, for a reader that may stop at the first it wants."""
        for batch in self.batches:
            yield from batch

    def position(self) -> int:
        """How many bytes of the file have been read."""
        return self._file.tell()


@contextmanager
def read_lines(path: Path, start: int = 0) -> Iterator[FileLines]:
    """Open `path` to read it as a session: a regular file (UnusableSessionFile otherwise)
    whose first line is a header this program reads; its lines from `start` on (a line's
    first byte), or all of them. Never writes."""
    with open_for_reading(path) as file, _memory_for(path), _collector_paused():
        header = parse_header(path, _read_first_line(path, file))
        whole = start <= file.tell()
        file.seek(max(start, file.tell()))
        found = os.fstat(file.fileno())
        identity = (found.st_dev, found.st_ino)
        batches = line_batches(path, file)
        yield FileLines(header, batches, whole, identity, found.st_size, file)


def read_header(path: Path) -> SessionHeader:
    """Read only the first line: enough to tell whether a file can be a session."""
    with open_for_reading(path) as file:
        return parse_header(path, _read_first_line(path, file))


def line_batches(path: Path, file: BinaryIO) -> Iterator[list[Line]]:
    """The lines left in `file`, a chunk's worth at a time, split on b"\\n" only (without
    it), each at most MAX_ENTRY_BYTES long. A longer line comes out as TooLong: it is read past
    in bounded pieces, never held whole. Each chunk is split by one C call."""
    # Stop here: bytes.split(b"\n") splits on b"\n" and nothing else. str.splitlines() would
    # also split on \x85, U+2028 and U+2029, which JSON leaves unescaped in strings: a
    # message holding one would become two broken lines.
    pending = b""  # the unfinished last line of the chunks read so far
    head: bytes | None = None  # its first bytes, once it is known to be too long
    try:
        while chunk := file.read(_READ_CHUNK):
            lines: list[Line] = chunk.split(b"\n")  # type: ignore[assignment]
            tail = cast(bytes, lines.pop())  # the start of a line the next chunk goes on with
            if lines:  # the unfinished line ends in this chunk: the first line here
                first = pending + cast(bytes, lines[0]) if head is None else b""
                if head is not None or len(first) > MAX_ENTRY_BYTES:
                    lines[0] = TooLong(first[:_HEAD_BYTES] if head is None else head)
                else:
                    lines[0] = first
                pending, head = tail, None
                yield lines  # every other line is whole in the chunk: shorter than the bound
            elif head is None:
                pending += tail
            if head is None and len(pending) > MAX_ENTRY_BYTES:  # let it go; keep its start
                pending, head = b"", pending[:_HEAD_BYTES]
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    if pending or head is not None:  # the last line, without its \n: torn, or complete but unended
        yield [pending if head is None else TooLong(head)]


@contextmanager
def _memory_for(path: Path) -> Iterator[None]:
    """Running out of memory is not damage. A line that could not be parsed for want of memory
    is a good line, and skipping it as damaged would resume a shorter conversation and hang
    new entries off the wrong leaf; refusing the file would make --continue pass it over. So
    it is an error, with nothing read and nothing written. (An entry parsed later, on first
    use, raises MemoryError as it is, and is not dropped either: main.py says so in one line.)"""
    try:
        yield
    except MemoryError:
        raise SessionError(f"not enough memory to read {path}") from None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Reading a long session makes millions of small dicts and lists, and Python's cycle
    collector would stop again and again to scan them, though parsed JSON holds no cycles.
    Pausing it while reading and replaying makes resuming a 100,000-entry session about a
    third faster."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def open_for_reading(path: Path) -> BinaryIO:
    """Open a regular file. A FIFO named *.jsonl would block a plain open() forever, so open
    without blocking and look at what was opened before reading a byte."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise UnusableSessionFile(path, f"not a session ({what})")
    return os.fdopen(fd, "rb")


def _read_first_line(path: Path, file: BinaryIO) -> bytes:
    try:
        return file.readline(MAX_HEADER_BYTES)
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None


def parse_json(line: bytes) -> Any:
    """The JSON value on one line, or None if it is not JSON (torn, garbage, not UTF-8). A
    trailing \\r (a CRLF file) is JSON whitespace: such a line still reads."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as error:
        if str(error).startswith("Not enough memory"):  # orjson says so as a decode error
            raise MemoryError from None
        return None
