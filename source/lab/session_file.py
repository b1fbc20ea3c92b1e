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
"""The JSONL store: the session file as bytes, and the only module that writes them.

What a line *means* is entries.py's and session.py's business; this module knows the file as
a header line and then lines that each end in `\\n`, and keeps every promise about its bytes
(storage.py lists what any store promises; SessionFile is this store's implementation):

- The first append creates the file, header first, and never overwrites one (O_EXCL).
- The file is private: only its owner may read it (0600), and a folder made for it (0700).
- A line is appended whole, in one write, at the end of the file (O_APPEND).
- A line goes after a `\\n` of its own if the file ends in a fragment (a crash, a full disk).
- A file replaced or cut short during the run is refused, never written to in its place.
- Every line is read in bounded memory, however long the lines of the file are.
- A writer can hold an advisory lock on its file, and can ask the disk to keep each line.

The production step turns on what a real agent needs: `lock=True` (one writer at a time) and,
with `--fsync`, `fsync=True`; notebooks 07 and 09 run the faults each defence answers. Its parts,
each a module: bounded reading (session_reader), the header's checks (session_header), where a
resume starts (kept_part), the lock (session_lock), what the folder is asked (folder_checks).
"""
# << prod

from __future__ import annotations

import os

# >> prod
import stat

# << prod
# >> 02 until prod
# from collections.abc import Mapping
# << 02 until prod
# >> 06 until prod
# from collections.abc import Generator
# << 06 until prod
# >> prod
from collections.abc import Iterator
from contextlib import contextmanager, suppress

# << prod
# >> 02 until prod
# from dataclasses import dataclass
# << 02 until prod
from pathlib import Path

# >> 02 until prod
# from typing import Any, Literal, TypedDict
# << 02 until prod
# >> 06 until prod
# from typing import BinaryIO
# << 06 until prod
from typing import cast

# >> 02 until prod
# import orjson
#
# << 02 until prod
# >> prod
from folder_checks import check_appendable, check_creatable, fsync_folder
from kept_part import where_the_kept_part_starts
from session_format import (  # the names marked F401 are here for callers, as before
    SESSION_VERSION,  # noqa: F401
    SessionError,
    SessionHeader,
    SessionInUse,  # noqa: F401
    UnusableSessionFile,
    encode,
    new_header,  # noqa: F401
)
from session_lock import hold_lock, lock_file, unlock
from session_reader import (  # the names marked F401 are here for callers, as before
    MAX_ENTRY_BYTES,
    FileLines,
    Line,
    TooLong,  # noqa: F401
    line_batches,
    open_for_reading,
    parse_json,  # noqa: F401
    read_header,  # noqa: F401
    read_lines,
)

# << prod

# >> 02 until prod
# SESSION_VERSION = 1
# << 02 until prod
# Stop here: a session holds everything said, tool output and pasted secrets included. Only its
# owner may read it, whatever the umask, and only its owner may list the folder made for it.
PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


# >> 02 until prod
# class SessionHeader(TypedDict):
#     """First line of every session file: which format, which session, made when and where."""
#
#     type: Literal["header"]
#     version: int  # a reader refuses a version it does not know instead of misreading it
#     id: str
#     createdAt: str
#     cwd: str
#
#
# class SessionError(Exception):
#     """A session file cannot be created, read or written; main.py prints it as one line."""
#
#
# class UnusableSessionFile(SessionError):
#     """A file that cannot be a session (empty, no header, another version), named, with why."""
#
#     def __init__(self, path: Path, reason: str) -> None:
#         super().__init__(f"{path}: {reason}")
#         self.path = path
#         self.reason = reason
# << 02 until prod


# >> 02 until prod
# def new_header(session_id: str, created_at: str, cwd: str) -> SessionHeader:
#     return {
#         "type": "header",
#         "version": SESSION_VERSION,
#         "id": session_id,
#         "createdAt": created_at,
#         "cwd": cwd,
#     }
# << 02 until prod


# >> 02 until prod
# def encode(path: Path, record: Mapping[str, Any]) -> bytes:
#     """One record as one line. orjson escapes newlines inside strings, so it is always one."""
#     try:
#         return orjson.dumps(record) + b"\n"
#     except orjson.JSONEncodeError as error:  # e.g. text that is not valid Unicode
#         raise SessionError(f"cannot write {path}: {error}") from None
# << 02 until prod


class SessionFile:
    """The file a run appends to. Created by its first append, unless it exists already."""

    # >> prod
    suffix = ".jsonl"  # the class is the JSONL store (storage.Store): its names end so

    # << prod
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
        check_creatable(path)
        file = cls(path, header, exists=False, fsync=fsync)
        file._lock_on_create = lock
        return file

    @classmethod
    def existing(cls, path: Path, *, lock: bool = False, fsync: bool = False) -> SessionFile:
        """A file to append to, once `reading` has read it. With `lock`, locked now, before
        anything is read, until `close` (SessionInUse if another run holds it)."""
        file = cls(path, None, exists=True, fsync=fsync)
        if lock:
            file._lock_fd = hold_lock(path)
        return file

    @contextmanager
    def reading(self, *, resume: bool = False) -> Iterator[FileLines]:
        """Read the file (see `read_lines`): all of it, or for a `resume` from the first line
        its last compaction keeps (`where_the_kept_part_starts`). Remember which file it was
        and how far it was read: lines past that point were appended by someone else
        (`lines_added`). Then check that it can be appended to: learn now, not after the
        user's first turn."""
        start = where_the_kept_part_starts(self.path) if resume else 0
        with read_lines(self.path, start) as lines:
            if self._file is not None and lines.identity != self._file:  # read again, later
                raise SessionError(f"session file {self.path} was replaced during the run")
            # Stop here: a file rewritten in place keeps its identity. Read again shorter than
            # it was, and its next append would be checked against this read, not the last one.
            if self._file is not None and lines.size < self._size:
                raise SessionError(f"session file {self.path} was cut short during the run")
            yield lines
            self._file, self._size = lines.identity, lines.position()
        check_appendable(self.path, _APPEND_FLAGS)

    @property
    def locked(self) -> bool:
        """True while this run holds the lock on the file."""
        return self._lock_fd is not None

    def close(self) -> None:
        """Let go of the lock, if held. (A process that dies lets go of it too: the kernel
        drops every lock of a process that ends, however it ends.)"""
        if self._lock_fd is not None:
            unlock(self._lock_fd)
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
                self._lock_fd = lock_file(self.path, fd)
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
                    fsync_folder(self.path.parent)  # and the file's name, in its folder
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

    def position(self) -> int | None:
        """The byte the next line will begin at, if no one else writes first: after the last
        line, or after the `\\n` that will end a fragment there. None before the file exists."""
        if not self.exists:
            return None
        try:
            with open_for_reading(self.path) as file:
                end = file.seek(0, os.SEEK_END)
                return end + (os.pread(file.fileno(), 1, end - 1) != b"\n") if end else None
        except (OSError, UnusableSessionFile):
            return None  # the write that follows will say what is wrong

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
        with open_for_reading(self.path) as file:
            file.seek(self._size)
            yield from line_batches(self.path, file)
            self._size = file.tell()

    # << prod


# >> 02 until prod
# # --- Reading ---------------------------------------------------------------------------------
#
#
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


# Read and write: the writer reads the file's last byte before each line. O_NONBLOCK: a FIFO
# put under the session's name must fail at once, not wait forever for a reader.
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY


# << prod
