"""A session file read in bounded memory, however long its lines: the reading half of the
JSONL store.

A line is split on `\n` alone; a line over MAX_ENTRY_BYTES is read past in bounded pieces and
kept as its first bytes (TooLong); a FIFO named *.jsonl is refused, never waited on. Each batch
of lines says where each one begins (Placed), and the file read stays open to give a line back
by that place (`FileLines.line_at`): a reader may keep a number instead of a line it does not
need yet. Reading never writes.
"""

from __future__ import annotations

import gc
import operator
import os
import stat
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate, repeat
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
# Read at a time to give lines back: a walk asks for many lines near each other, so a block
# holds a few dozen. Not a megabyte: where the path is a twentieth of the lines (a user who
# often goes back), most of such a block is lines the walk skips, read for nothing. (Measured
# with tools/session_bench.py's sessions: each resumes faster with 32 KiB than with 1 MiB.)
_BLOCK = 32 * 1024


@dataclass(frozen=True)
class TooLong:
    """A line over MAX_ENTRY_BYTES, read past in bounded pieces. Its content is lost, but not
    its first bytes: the id there is still taken, and a new entry must never be given it."""

    head: bytes


Line = bytes | TooLong


class Placed(list[Line]):
    """A batch of lines that also says where each one begins in its store (`at`, one number a
    line: a byte of the file, a row of a database). Kept instead of a line, a number costs 8
    bytes, and the store gives the line back by it (storage.py, 9)."""

    __slots__ = ("at",)

    def __init__(self, lines: Iterable[Line], at: array[int]) -> None:
        super().__init__(lines)
        self.at = at


@dataclass(frozen=True)
class FileLines:
    """A session file being read: its header, checked, and the lines after it."""

    header: SessionHeader
    batches: Iterator[Placed]  # the lines, a chunk at a time, each with where it begins
    whole: bool  # from the first line after the header on (False: from a later line)
    identity: tuple[int, int]  # (device, inode) of the file read
    size: int  # its size in bytes when it was opened
    _file: BinaryIO
    # The line that begins at a position (a batch's `at`), read again from this file, even if
    # its name now names another one; also once the reading is over (LineReader.line_at).
    line_at: Callable[[int], bytes]

    def lines(self) -> Iterator[Line]:
        """The same lines one at a time, for a reader that may stop at the first it wants."""
        for batch in self.batches:
            yield from batch

    def position(self) -> int:
        """How many bytes of the file have been read."""
        return self._file.tell()


class LineReader:
    """A file kept open to read a line again by where it begins, a block at a time.

    A walk from the leaf asks for a parent a few lines before its child, so a block holds the
    lines around the one asked for, most of them before it (after it, for a reader that goes
    forward through the file). The descriptor closes when the reader is let go of.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self._path, self._fd = path, fd
        self._closer = weakref.finalize(self, os.close, fd)
        self._start, self._block, self._last = 0, b"", 0

    def line_at(self, position: int) -> bytes:
        """The bytes from `position` to the next \\n, or to the end of the file; at most
        MAX_ENTRY_BYTES and a little more (a longer line is damage, as when it was first read)."""
        at = position - self._start
        if at < 0 or (end := self._block.find(b"\n", at)) == -1:  # not in the block held
            self._start = max(0, position - _BLOCK) if position < self._last else position
            at, self._last = position - self._start, position
            try:
                self._block = os.pread(self._fd, _BLOCK + _HEAD_BYTES, self._start)
                if (end := self._block.find(b"\n", at)) == -1:  # longer, or the last line
                    return self._longer_line(position, self._block[at:])
            except OSError as error:
                raise UnusableSessionFile(self._path, f"cannot read: {error.strerror}") from None
        return self._block[at:end]

    def _longer_line(self, position: int, start: bytes) -> bytes:
        """The line at `position`, of which the block holds only the `start`: read on in pieces
        that double, from twice _HEAD_BYTES up to a chunk. A line of 10 kB, a tool's long
        output say, then costs a read of 8 KiB, not of a whole chunk (4 MiB)."""
        line, piece = start, 2 * _HEAD_BYTES
        while len(line) <= MAX_ENTRY_BYTES:
            if not (more := os.pread(self._fd, piece, position + len(line))):
                break  # the last line, without its \n
            if (end := more.find(b"\n")) != -1:
                return (line + more[:end])[: MAX_ENTRY_BYTES + 1]
            line += more
            piece = min(2 * piece, _READ_CHUNK)
        return line[: MAX_ENTRY_BYTES + 1]


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
        try:
            kept = LineReader(path, os.dup(file.fileno()))
        except OSError as error:
            raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
        yield FileLines(header, batches, whole, identity, found.st_size, file, kept.line_at)


def read_header(path: Path) -> SessionHeader:
    """Read only the first line: enough to tell whether a file can be a session."""
    with open_for_reading(path) as file:
        return parse_header(path, _read_first_line(path, file))


def line_batches(path: Path, file: BinaryIO) -> Iterator[Placed]:
    """The lines left in `file`, a chunk's worth at a time, split on b"\\n" only (without
    it), each at most MAX_ENTRY_BYTES long, and where each begins in the file. A longer line
    comes out as TooLong: it is read past in bounded pieces, never held whole. Each chunk is
    split by one C call, and its lines' places summed by a few more."""
    # Stop here: bytes.split(b"\n") splits on b"\n" and nothing else. str.splitlines() would
    # also split on \x85, U+2028 and U+2029, which JSON leaves unescaped in strings: a
    # message holding one would become two broken lines.
    pending = b""  # the unfinished last line of the chunks read so far
    head: bytes | None = None  # its first bytes, once it is known to be too long
    try:
        begins = file.tell()  # where the unfinished line begins
        while chunk := file.read(_READ_CHUNK):
            lines: list[Line] = chunk.split(b"\n")  # type: ignore[assignment]
            tail = cast(bytes, lines.pop())  # the start of a line the next chunk goes on with
            if lines:  # the unfinished line ends in this chunk: the first line here
                first = pending + cast(bytes, lines[0]) if head is None else b""
                # Each line begins one byte past the end of the one before it (its \n): a
                # running sum of the lengths, plus one each, gives every line's place.
                lengths = map(operator.add, map(len, lines), repeat(1))
                at = array("q", accumulate(lengths, initial=file.tell() - len(chunk)))
                at[0] = begins  # the first line began in an earlier chunk
                begins = at.pop()  # and so does the next one: here
                if head is not None or len(first) > MAX_ENTRY_BYTES:
                    lines[0] = TooLong(first[:_HEAD_BYTES] if head is None else head)
                else:
                    lines[0] = first
                pending, head = tail, None
                # Every other line is whole in the chunk: shorter than the bound.
                yield Placed(lines, at)
            elif head is None:
                pending += tail
            if head is None and len(pending) > MAX_ENTRY_BYTES:  # let it go; keep its start
                pending, head = b"", pending[:_HEAD_BYTES]
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    if pending or head is not None:  # the last line, without its \n: torn, or complete but unended
        yield Placed([pending if head is None else TooLong(head)], array("q", [begins]))


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
    third faster. (gc.freeze() after the read would spare the collector's later scans too,
    but it freezes everything alive in the process, and a frozen cycle is never freed.)"""
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
