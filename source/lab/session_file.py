# >>file 02
# >> 02 until 03
# """The session file as bytes: the only module that touches the disk.
#
# What a line *means* is entries.py's and session.py's business; this module knows the file as
# a header line and then lines that each end in `\\n`, and keeps every promise about its bytes:
#
# - The first append creates the file, header first, and never overwrites one (O_EXCL).
# - The file is private: only its owner may read it (0600), and a folder made for it (0700).
# - A line is appended whole, in one write, at the end of the file (O_APPEND).
# """
# << 02 until 03
# >> 03 until prod
# """The session file as bytes: the only module that touches the disk.
#
# What a line *means* is entries.py's and session.py's business; this module knows the file as
# a header line and then lines that each end in `\\n`, and keeps every promise about its bytes:
#
# - The first append creates the file, header first, and never overwrites one (O_EXCL).
# - The file is private: only its owner may read it (0600), and a folder made for it (0700).
# - A line is appended whole, in one write, at the end of the file (O_APPEND).
# - A line goes after a `\\n` of its own if the file ends in a fragment (a crash, a full disk).
# """
# << 03 until prod
# >> prod
"""The session file as bytes: the only module that touches the disk.

What a line *means* is entries.py's and session.py's business; this module knows the file as
a header line and then lines that each end in `\\n`, and keeps every promise about its bytes:

- The first append creates the file, header first, and never overwrites one (O_EXCL).
- The file is private: only its owner may read it (0600), and a folder made for it (0700).
- A line is appended whole, in one write, at the end of the file (O_APPEND).
- A line goes after a `\\n` of its own if the file ends in a fragment (a crash, a full disk).
- A file replaced or cut short during the run is refused, never written to in its place.
- Every line is read in bounded memory, however long the lines of the file are.
- A writer can hold an advisory lock on its file, and can ask the disk to keep each line.

The production step switches on what a real agent needs, in a line: `lock=True` (two runs
can then continue one session), `fsync=True` with `--fsync`. The crash lab runs the faults
each defence answers.
"""
# << prod

from __future__ import annotations

# >> prod
import errno
import fcntl
import gc
import json

# << prod
import os

# >> prod
import re
import stat

# << prod
# >> 02 until 06
# from collections.abc import Mapping
# << 02 until 06
# >> 06 until prod
# from collections.abc import Generator, Mapping
# << 06 until prod
# >> prod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress

# << prod
from dataclasses import dataclass
from pathlib import Path

# >> 02 until 06
# from typing import Any, Literal, TypedDict, cast
# << 02 until 06
# >> 06 until prod
# from typing import Any, BinaryIO, Literal, TypedDict, cast
# << 06 until prod
# >> prod
from typing import Any, BinaryIO, Literal, TypedDict, cast

# << prod
import orjson

# >> prod
from messages import shortened

# << prod

SESSION_VERSION = 1
# >> prod
MAX_HEADER_BYTES = 64 * 1024  # a header is a few hundred bytes; a longer first line is not one
# A line longer than this is skipped and counted, never read whole: a file that ends in 2 GB of
# NUL bytes must not take 2 GB of memory. The writer refuses to write such a line, so the
# program never writes a file it cannot read back.
MAX_ENTRY_BYTES = 32 * 1024 * 1024
_READ_CHUNK = 4 * 1024 * 1024  # under MAX_ENTRY_BYTES: a line whole in one chunk is never too long
_HEAD_BYTES = 4096  # what is kept of a line too long to read: where the writer puts the id
# << prod
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


# >> prod
class SessionInUse(SessionError):
    """Another run holds the session's lock: two writers would both append the next id."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is in use by another run; run without --continue to start a new session"
        )
        self.path = path


# << prod


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

    # >> 02 until prod
    # def __init__(self, path: Path, header: SessionHeader | None, *, exists: bool) -> None:
    #     self.path = path
    #     self.exists = exists  # False until the first append creates the file
    #     # Written by the append that creates the file, as it is then: a field set on the header
    #     # before the first save (a fork's parent, say) is written with it.
    #     self._header = header
    #
    # << 02 until prod
    # >> prod
    def __init__(
        self, path: Path, header: SessionHeader | None, *, exists: bool, fsync: bool
    ) -> None:
        self.path = path
        self.exists = exists  # False until the first append creates the file
        self.fsync = fsync  # after each write, wait until the disk has it (slow; notebook 06)
        # Written by the append that creates the file, as it is then: a field set on the header
        # before the first save (a fork's parent, say) is written with it.
        self._header = header
        self._lock_fd: int | None = None  # holds the lock on the file while this run writes
        self._lock_on_create = False  # take the lock when the first append creates the file
        # Which file this is (device, inode) and how far it has been read or written: a file
        # replaced or cut short during the run is refused, and what lies past that point
        # was appended by someone else.
        self._file: tuple[int, int] | None = None
        self._size = 0

    @classmethod
    def new(
        cls, path: Path, header: SessionHeader, *, lock: bool = False, fsync: bool = False
    ) -> SessionFile:
        """A file to create at the first append. Refused now, before any turn, if it could
        never be written: nothing is created, so a run that saves nothing leaves nothing.
        With `lock`, the file is locked the moment it is created, before its first byte."""
        encode(path, header)  # refuse now what could never be written
        _check_creatable(path)
        file = cls(path, header, exists=False, fsync=fsync)
        file._lock_on_create = lock
        return file

    @classmethod
    def existing(cls, path: Path, *, lock: bool = False, fsync: bool = False) -> SessionFile:
        """A file to append to, once `reading` has read it. With `lock`, locked now, before
        anything is read, until `close` (SessionInUse if another run holds it)."""
        file = cls(path, None, exists=True, fsync=fsync)
        if lock:
            file._lock_fd = _hold_lock(path)
        return file

    @contextmanager
    def reading(self, start: int = 0) -> Iterator[FileLines]:
        """Read the file (see `read_lines`), and remember which file it was and how far it
        was read: lines past that point were appended by someone else (`lines_added`). Then
        check that it can be appended to: learn now, not after the user's first turn."""
        with read_lines(self.path, start) as lines:
            if self._file is not None and lines.identity != self._file:  # read again, later
                raise SessionError(f"session file {self.path} was replaced during the run")
            # Stop here: a file rewritten in place keeps its identity. Read again shorter than
            # it was, and its next append would be checked against this read, not the last one.
            if self._file is not None and lines.size < self._size:
                raise SessionError(f"session file {self.path} was cut short during the run")
            yield lines
            self._file, self._size = lines.identity, lines.position()
        _check_appendable(self.path)

    @property
    def locked(self) -> bool:
        """True while this run holds the lock on the file."""
        return self._lock_fd is not None

    def close(self) -> None:
        """Let go of the lock, if held. (A process that dies lets go of it too: the kernel
        drops every lock of a process that ends, however it ends.)"""
        if self._lock_fd is not None:
            _unlock(self._lock_fd)
            self._lock_fd = None

    # << prod
    def append(self, line: bytes) -> None:
        """Append one whole line (it ends in `\\n`); the first append writes the header first."""
        # >> prod
        if len(line) > MAX_ENTRY_BYTES:
            raise SessionError(
                f"cannot write {self.path}: an entry of {len(line):,} bytes is over the "
                f"{MAX_ENTRY_BYTES:,}-byte limit a reader accepts"
            )
        # << prod
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
        # >> prod
        written = False
        # << prod
        try:
            if creating:
                os.fchmod(fd, PRIVATE_FILE)  # the umask may have taken more away than asked
            # >> prod
            if creating and self._lock_on_create:  # locked before its first byte is written
                self._lock_fd = _lock(self.path, fd)
            # << prod
            # >> 03
            if not creating:
                line = self._after_the_last_line(fd, line)
            # << 03
            _write_all(fd, line)
            # >> prod
            found = os.fstat(fd)
            self._file, self._size = (found.st_dev, found.st_ino), found.st_size
            written = True
            if self.fsync:
                os.fsync(fd)  # the kernel has the line; now wait until the disk has it
                if creating:
                    _fsync_folder(self.path.parent)  # and the file's name, in its folder
            # << prod
        except OSError as error:
            # >> prod
            if written:  # the file holds the line; the disk did not confirm it
                raise SessionError(
                    f"cannot sync {self.path} to the disk: {error.strerror} (its last line is "
                    "written, but may not survive a power loss)"
                ) from None
            # A write cut short (a full disk, a file size limit) may leave a fragment. The
            # next write finds it at the file's end, and ends it before its own line.
            if creating:
                self._remove_unfinished(fd, len(line))
            # << prod
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        # >> prod
        except SessionError:  # the lock refused (a folder whose filesystem has no flock)
            if creating:
                self._remove_unfinished(fd, len(line))
            raise
        # << prod
        finally:
            os.close(fd)
        self.exists = True

    # >> prod

    def _remove_unfinished(self, fd: int, meant: int) -> None:
        """Undo the creation of a file whose first write did not finish.

        Stop here: on a full disk, the first save creates the file and then writes nothing, or
        part of the header. Left behind, that file holds no line at all, and every later
        `--continue` names it "not a session". The file is this run's own, made a moment ago
        (O_EXCL): no one else's bytes are lost, and the next save creates it again, whole.
        """
        with suppress(OSError):
            made, now = os.fstat(fd), os.stat(self.path)
            if made.st_size < meant and (made.st_dev, made.st_ino) == (now.st_dev, now.st_ino):
                os.unlink(self.path)
                if self._lock_fd is not None:
                    self.close()
                self._file, self._size = None, 0

    # << prod
    # >> 03 until prod
    #
    # def _after_the_last_line(self, fd: int, line: bytes) -> bytes:
    #     """`line`, with a `\\n` first if the file does not end in one now.
    #
    #     Stop here: what the file ends in is read from the file, at the moment of writing, not
    #     remembered from the open or from this run's last write: a write of this run may have
    #     been cut short, and another run may have appended since and been killed halfway
    #     through a line. Gluing onto a fragment would cost this entry.
    #     """
    #     size = os.fstat(fd).st_size
    #     if size and os.pread(fd, 1, size - 1) != b"\n":  # a fragment: end it, keep it, move on
    #         return b"\n" + line
    #     return line
    # << 03 until prod
    # >> prod

    def _after_the_last_line(self, fd: int, line: bytes) -> bytes:
        """`line`, with a `\\n` first if the file does not end in one now.

        Stop here: what the file ends in is read from the file, at the moment of writing, not
        remembered from the open or from this run's last write: a write of this run may have
        been cut short, and another run may have appended since and been killed halfway
        through a line. Gluing onto a fragment would cost this entry.
        The path must still name the file that was read, a regular file no shorter than we
        left it; anything else (a FIFO, /dev/null, a new file under the old name) is refused,
        because an entry written there would be lost while the program says it is saved.
        """
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or (
            self._file is not None and (found.st_dev, found.st_ino) != self._file
        ):
            raise SessionError(f"session file {self.path} was replaced during the run")
        if found.st_size < self._size or found.st_size == 0:
            raise SessionError(f"session file {self.path} was cut short during the run")
        if os.pread(fd, 1, found.st_size - 1) != b"\n":  # a fragment: end it, keep it, move on
            return b"\n" + line
        return line

    def lines_added(self) -> Iterator[list[Line]]:
        """The lines another program appended since this run last read or wrote the file.

        Stop here: the lock keeps out runs that take it, not a program that does not (an older
        step, an editor). A reader that numbers the next entry from what it read at open would
        repeat the id such a program just wrote. Nothing, if the file was replaced or cut
        short: the next append refuses it.
        """
        if not self.exists:
            return
        try:
            found = os.stat(self.path)
        except OSError:
            return  # gone: the next append says so
        if found.st_size <= self._size or (found.st_dev, found.st_ino) != self._file:
            return
        with _open_for_reading(self.path) as file:
            file.seek(self._size)
            yield from _line_batches(self.path, file)
            self._size = file.tell()

    # << prod


# --- Reading ---------------------------------------------------------------------------------


# >> 02 until prod
# @dataclass(frozen=True)
# class FileLines:
#     """A session file as read: its header, checked, and every line after it (no `\\n`)."""
#
#     header: SessionHeader
#     lines: list[bytes]
#
#
# def read_lines(path: Path) -> FileLines:
#     """Read `path` as a session: a file whose first line is a header this program reads
#     (UnusableSessionFile otherwise). Never writes."""
#     try:
#         data = path.read_bytes()
#     except OSError as error:
#         raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
#     # Stop here: split on b"\n" and nothing else. str.splitlines() would also split on \x85,
#     # U+2028 and U+2029, which JSON leaves unescaped in strings: one message, two broken lines.
#     first, *lines = data.split(b"\n")
#     if lines and not lines[-1]:
#         lines.pop()  # what follows the last line's \n: no line at all
#     return FileLines(_parse_header(path, first), lines)
# >> 03
#
#
# def read_header(path: Path) -> SessionHeader:
#     """Enough of a file to tell whether it can be a session (UnusableSessionFile if not)."""
# >> 03 until 06
#     return read_lines(path).header
# << 03 until 06
# >> 06
#     try:  # its first line alone: --continue must not read what a resume from the end skips
#         with path.open("rb") as file:
#             return _parse_header(path, file.readline().removesuffix(b"\n"))
#     except OSError as error:
#         raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
# << 06
# << 03
# >> 06
#
#
# @dataclass(frozen=True)
# class LinesFromTheEnd:
#     """A session file's header, checked, and its other lines in blocks: the block at the end
#     of the file first, each block's lines in file order. The file is read only as far back as
#     blocks are taken."""
#
#     header: SessionHeader
#     blocks: Generator[list[bytes], None, None]  # close() it to stop reading early
#
#
# def read_lines_from_the_end(path: Path) -> LinesFromTheEnd:
#     """Read `path` as a session, from its end (UnusableSessionFile if it cannot be one)."""
#     try:
#         file = path.open("rb")
#     except OSError as error:
#         raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
#     first = file.readline()
#     try:
#         header = _parse_header(path, first.removesuffix(b"\n"))
#     except UnusableSessionFile:
#         file.close()
#         raise
#     return LinesFromTheEnd(header, _blocks_from_the_end(file, start=len(first)))
#
#
# FIRST_BLOCK = 1 << 20  # bytes: a megabyte holds the last turns of most sessions
#
#
# def _blocks_from_the_end(file: BinaryIO, start: int) -> Generator[list[bytes], None, None]:
#     """The lines after `start`, a block at a time from the end, each block twice the last: a
#     short read when little is needed, few blocks when all of it is."""
#     with file:
#         end, size, carried = file.seek(0, os.SEEK_END), FIRST_BLOCK, b""
#         while end > start:
#             begin = max(start, end - size)
#             file.seek(begin)
#             data = file.read(end - begin) + carried
#             end, size = begin, size * 2
#             if begin > start:  # Stop here: the first line may have begun in the block before.
#                 cut = data.find(b"\n") + 1 or len(data)
#                 carried, data = data[:cut], data[cut:]  # it goes back with that block, whole
#             lines = data.split(b"\n")
#             if not lines[-1]:
#                 lines.pop()  # what follows the last line's \n: no line at all
#             yield lines
# << 06
#
#
# << 02 until prod
# >> prod
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
    with _open_for_reading(path) as file, _memory_for(path), _collector_paused():
        header = _parse_header(path, _read_first_line(path, file))
        file.seek(max(start, file.tell()))
        found = os.fstat(file.fileno())
        identity = (found.st_dev, found.st_ino)
        yield FileLines(header, _line_batches(path, file), identity, found.st_size, file)


def read_header(path: Path) -> SessionHeader:
    """Read only the first line: enough to tell whether a file can be a session."""
    with _open_for_reading(path) as file:
        return _parse_header(path, _read_first_line(path, file))


FIRST_BLOCK = 1 << 20  # bytes read at a time, from the end, looking for the last compaction


def where_the_kept_part_starts(path: Path) -> int:
    """Where the lines that the file's last compaction keeps begin: the line of its first kept
    entry, or its own line if it keeps nothing; 0 (read it all) if there is none.

    Stop here: the step before walks back from the leaf, parsing as it goes; this finds the
    two lines by their bytes, which the writer always begins the same way, and reads nothing
    between. Whatever it finds, the walk checks: if the conversation needs an earlier line
    (the leaf is on another branch, the kept entry is no message of this writer's), the
    caller reads the whole file.
    """
    try:
        with _open_for_reading(path) as file:
            size = file.seek(0, os.SEEK_END)
            at = _last(file, b'\n{"type":"compaction","id":', size)
            if at is None:
                return 0
            file.seek(at + 1)
            compaction = parse_json(file.readline(MAX_ENTRY_BYTES))
            kept = compaction.get("firstKeptId", 0) if isinstance(compaction, dict) else 0
            if kept is None:
                return at + 1
            if not isinstance(kept, str):
                return 0
            kept_line = _last(file, b'\n{"type":"message","id":%b,' % orjson.dumps(kept), at + 1)
            return 0 if kept_line is None else kept_line + 1
    except (OSError, UnusableSessionFile):
        return 0  # read the whole file, which will say what is wrong with it


def _last(file: BinaryIO, needle: bytes, end: int) -> int | None:
    """Where the last `needle` that begins before `end` is, read FIRST_BLOCK at a time from
    `end` back; None if there is none."""
    while end > 0:
        begin = max(0, end - FIRST_BLOCK)
        file.seek(begin)
        reach = end - begin + len(needle) - 1  # so that a needle across the border is found
        found = file.read(reach).rfind(needle, 0, reach)  # (a needle that begins before end)
        if found != -1:
            return begin + found
        end = begin
    return None


# << prod
# >> 03 until prod
# def list_session_files(directory: Path | str) -> list[Path]:
#     """Every `*.jsonl` name in `directory`, most recently modified first: usable or not (that
#     takes opening them; the caller names each one it passes over). A missing folder has none."""
#     try:
#         names = [path for path in Path(directory).iterdir() if path.name.endswith(".jsonl")]
#     except FileNotFoundError:
#         return []
#     except OSError as error:
#         raise SessionError(f"cannot list {directory}: {error.strerror}") from None
#     # Two files with the same time go by name: session ids sort by creation time.
#     return sorted(names, key=lambda path: (_modified_ns(path), path.name), reverse=True)
#
#
# def _modified_ns(path: Path) -> int:
#     """When a file was last written; 0 if its time cannot be read (a dangling link)."""
#     try:
#         return path.stat().st_mtime_ns
#     except OSError:
#         return 0
#
#
# << 03 until prod
# >> prod
def list_session_files(directory: Path | str) -> list[Path]:
    """Every `*.jsonl` name in `directory`, most recently modified first.

    Usable or not (a folder, a FIFO or a dangling link named *.jsonl included): that takes
    opening them, and the caller names each one it passes over. A missing folder has none.
    """
    directory = Path(directory)
    try:
        with os.scandir(directory) as found:
            names = [Path(item.path) for item in found if item.name.endswith(".jsonl")]
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise SessionError(f"cannot list {directory}: not a folder") from None
    except OSError as error:
        raise SessionError(f"cannot list {directory}: {error.strerror}") from None
    # Two files with the same time go by name: session ids sort by creation time.
    names.sort(key=lambda path: (_modified_ns(path), path.name), reverse=True)
    return names


def _modified_ns(path: Path) -> int:
    """When a file was last written; for a dangling link, when the link was made."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        try:
            return path.lstat().st_mtime_ns
        except OSError:
            return 0


def _line_batches(path: Path, file: BinaryIO) -> Iterator[list[Line]]:
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


def _open_for_reading(path: Path) -> BinaryIO:
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


# << prod
# >> 02 until prod
# def _parse_header(path: Path, first_line: bytes) -> SessionHeader:
#     if not first_line:
#         raise UnusableSessionFile(path, "not a session (empty file)")
#     record = parse_json(first_line)
#     if not isinstance(record, dict) or record.get("type") != "header":
#         raise UnusableSessionFile(path, "not a session (no header line)")
#     if "version" not in record:
#         raise UnusableSessionFile(path, "not a session (the header has no version)")
#     version = record["version"]
#     if type(version) is not int:  # 1.0, true and "1" are not the integer 1
#         shown = orjson.dumps(version).decode()
#         raise UnusableSessionFile(
#             path, f"not a session (the header's version {shown} is not an integer)"
#         )
#     if version != SESSION_VERSION:
#         raise UnusableSessionFile(
#             path, f"unsupported version {version} (this program reads version {SESSION_VERSION})"
#         )
#     for field in ("id", "createdAt", "cwd"):
#         if not isinstance(record.get(field), str):
#             raise UnusableSessionFile(path, f"not a session (the header's {field} is not a string)")
#     return cast(SessionHeader, record)
#
#
# def parse_json(line: bytes) -> Any:
#     """The JSON value on one line, or None if it is not JSON (torn, garbage, not UTF-8). A
#     trailing \\r (a CRLF file) is JSON whitespace: such a line still reads."""
#     try:
#         return orjson.loads(line)
#     except orjson.JSONDecodeError:
#         return None
#
#
# << 02 until prod
# >> prod
def _parse_header(path: Path, first_line: bytes) -> SessionHeader:
    first_line = first_line.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark some editors write
    if not first_line:
        raise UnusableSessionFile(path, "not a session (empty file)")
    record = _header_record(path, first_line)
    if not isinstance(record, dict) or record.get("type") != "header":
        raise UnusableSessionFile(path, "not a session (no header line)")
    if "version" not in record:
        raise UnusableSessionFile(path, "not a session (the header has no version)")
    version = record["version"]
    if type(version) is not int:  # 1.0, true and "1" are not the integer 1
        shown = _as_written(first_line, "version", version)
        raise UnusableSessionFile(
            path, f"not a session (the header's version {shown} is not an integer)"
        )
    if version != SESSION_VERSION:
        shown = _as_written(first_line, "version", version)  # 4,000 digits are not all shown
        raise UnusableSessionFile(
            path, f"unsupported version {shown} (this program reads version {SESSION_VERSION})"
        )
    for field in ("id", "createdAt", "cwd"):
        if not isinstance(record.get(field), str):
            raise UnusableSessionFile(path, f"not a session (the header's {field} is not a string)")
    return cast(SessionHeader, record)


def _header_record(path: Path, first_line: bytes) -> Any:
    """The first line's JSON value, or what is wrong with a line meant as the header.

    Stop here: the header is read with Python's own json, not orjson, which reads a number
    too large for a 64-bit integer as a float (version 123456789012345678901234567890 would be
    "not an integer") and refuses 1e400 outright (a "line that is not JSON"). One line, at most
    64 KiB, once per file: speed does not matter here, saying what is wrong does.
    """
    meant_as_header = b'"header"' in first_line  # so the damage is named, not "no header"
    damage = None
    if not first_line.endswith(b"\n"):
        if len(first_line) >= MAX_HEADER_BYTES:
            damage = f"its first line is over {MAX_HEADER_BYTES // 1024} KiB, longer than a header"
        else:
            damage = "the header line is cut short" if meant_as_header else "no header line"
    else:
        try:
            text = first_line.decode("utf-8")
            return json.loads(
                text, parse_int=_header_int, parse_constant=_no_constant, object_pairs_hook=_once
            )
        except _NamedTwice as twice:  # which of the two to believe? neither
            damage = f"the header names {_shown_key(twice.key)} twice"
        except UnicodeDecodeError:  # a ValueError too: caught first
            damage = "the header is not UTF-8 text"
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            damage = "the header is not valid JSON"
        if not meant_as_header:
            return None
    raise UnusableSessionFile(path, f"not a session ({damage})")


def _header_int(digits: str) -> int:
    """An integer of the header. One of 5,000 digits is no version this program reads (and
    int() refuses it); a message shows it as the file has it."""
    return int(digits) if len(digits) <= 100 else -1


class _NamedTwice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the header whose keys are each given once: {"version":1,"version":2} is
    no header a reader can trust (orjson and json would both quietly keep the last)."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _NamedTwice(key)
            seen.add(key)
    return record


def _shown_key(key: str) -> str:
    """A key from the file, short and safe to show in a message."""
    return shortened(json.dumps(key), 40)  # quoted, control characters escaped


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # Python's json reads NaN and Infinity by default


def parse_json(line: bytes) -> Any:
    """The JSON value on one line, or None if it is not JSON (torn, garbage, not UTF-8). A
    trailing \\r (a CRLF file) is JSON whitespace: such a line still reads."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as error:
        if str(error).startswith("Not enough memory"):  # orjson says so as a decode error
            raise MemoryError from None
        return None


def _as_written(line: bytes, field: str, value: object) -> str:
    """A header value as the file has it: "1" (a string), 1e400 (not shortened to inf)."""
    number = re.search(rb'"%s"\s*:\s*(-?[0-9][0-9.eE+-]{0,40})' % field.encode(), line)
    if number and not isinstance(value, str):
        return shortened(number.group(1).decode(), 40)
    return shortened(orjson.dumps(value).decode(), 40)


# << prod


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


# >> 02 until 03
# _APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC
# << 02 until 03
# >> 03 until prod
# # Read and write: the writer reads the file's last byte before each line.
# _APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
# << 03 until prod
# >> prod
def _fsync_folder(folder: Path) -> None:
    """A new file's name lives in its folder: until the folder is synced, a power loss can
    lose the name, and with it every synced byte of the file. Some filesystems (network and
    shared folders) cannot sync a folder at all and say EINVAL: there is nothing more to ask
    for, and the line is written, so that is no reason to end the run."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def _hold_lock(path: Path) -> int:
    """Lock an existing session file (a regular file: never block on a FIFO)."""
    with _open_for_reading(path) as file:
        return _lock(path, file.fileno())


def _lock(path: Path, fd: int) -> int:
    """Take an exclusive advisory lock on the open file `fd`, without waiting, and return a
    descriptor of its own that holds it until it is closed.

    flock, not fcntl/lockf: a POSIX lock is dropped when the process closes *any* descriptor
    of the file, and every write opens and closes one. An flock belongs to the open file, so
    the duplicate keeps it. Advisory: only runs that ask for the lock are kept out.
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionInUse(path) from None
    except OSError as error:
        raise SessionError(f"cannot lock {path}: {error.strerror}") from None
    held = os.dup(fd)
    _HELD_LOCKS.add(held)
    return held


# The descriptors that hold a session's lock. A forked child gets a copy of each, and an flock
# lasts while any copy is open: a child that outlived the run (a tool's helper forked without
# exec) would keep the session locked. So the child closes its copies the moment it is born.
# (exec closes them anyway: os.dup makes them non-inheritable.)
_HELD_LOCKS: set[int] = set()


def _unlock(fd: int) -> None:
    _HELD_LOCKS.discard(fd)
    os.close(fd)


def _let_go_of_locks_in_child() -> None:
    for fd in _HELD_LOCKS:
        with suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


os.register_at_fork(after_in_child=_let_go_of_locks_in_child)


# Read and write: the writer reads the file's last byte before each line. O_NONBLOCK: a FIFO
# put under the session's name must fail at once, not wait forever for a reader.
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY


def _check_appendable(path: Path) -> None:
    """`path` must open for appending, as a regular file."""
    try:
        fd = os.open(path, _APPEND_FLAGS)
    except OSError as error:
        raise SessionError(f"cannot append to {path}: {error.strerror}") from None
    try:
        found = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(found.st_mode):
        raise SessionError(f"cannot append to {path}: not a regular file")


def _check_creatable(path: Path) -> None:
    """Refuse now a session file that its first save could not create: a folder on the way
    that is a file, a name too long, a folder this process may not write in. Nothing is
    created: a run that saves nothing leaves nothing behind."""
    folder, missing = path.parent.absolute(), [path.name]
    try:
        while not os.path.lexists(folder) and folder != folder.parent:
            missing.append(folder.name)
            folder = folder.parent
        if not os.path.isdir(folder):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        longest = os.pathconf(folder, "PC_NAME_MAX")
        if any(len(os.fsencode(name)) > longest for name in missing):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
        if len(os.fsencode(path.absolute())) >= os.pathconf(folder, "PC_PATH_MAX"):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))  # the whole path
        if os.statvfs(folder).f_flag & os.ST_RDONLY:  # access() says only "no": say why
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        if not os.access(folder, os.W_OK | os.X_OK, effective_ids=True):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as error:
        only_the_file = len(missing) == 1 and os.path.isdir(folder)
        where = "session file in" if only_the_file else "session folder"
        raise SessionError(f"cannot create {where} {path.parent}: {error.strerror}") from None


# << prod
