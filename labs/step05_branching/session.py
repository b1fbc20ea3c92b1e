"""The session file: a header line, then one line per entry. The only module that touches disk.

The file is a ledger: lines are only ever appended, never rewritten. `Session.append_entry` is
the one way to write an entry, and `persist_new_messages` is the bridge from the loop's
in-memory list to the file: it writes what is new since a cursor, so the loop never has to know
about disk. The file is created by the first write, so a run that says nothing leaves nothing.
A run that writes holds an advisory lock on its file (`lock=True`), so a second run cannot
append to it at the same time; `fsync=True` asks the disk, not only the kernel, to keep each line.

Reading is tolerant: a crash can tear the last line, an editor can add a blank line, a newer
program can add entry kinds. `read_session` skips and counts the lines it cannot use, keeps
unknown entry kinds (their parentId still links the tree), and refuses only a file that cannot
be a session at all. `Session.open` rebuilds the conversation by walking from the leaf, and
`find_latest_session` picks the file `--continue` resumes.
"""

from __future__ import annotations

import errno
import fcntl
import gc
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypedDict, cast

import orjson

from entries import (
    BranchEntry,
    Context,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    build_context,
    entry_id,
    id_number,
    parse_entry,
    parse_json,
)
from entry_index import EntryIndex
from messages import Message

SESSION_VERSION = 1
MAX_HEADER_BYTES = 64 * 1024  # a header is a few hundred bytes; a longer first line is not one
# A line longer than this is skipped and counted, never read whole: a file that ends in 2 GB of
# NUL bytes must not take 2 GB of memory. The writer refuses to write such a line, so the
# program never writes a file it cannot read back.
MAX_ENTRY_BYTES = 32 * 1024 * 1024
_READ_CHUNK = 4 * 1024 * 1024  # under MAX_ENTRY_BYTES: a line whole in one chunk is never too long


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
    """A file that cannot be a session: empty, no header, a version this program cannot read,
    not a regular file. It names the file and the reason."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SessionInUse(SessionError):
    """Another run holds the session's lock: two writers would both append the next id."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is in use by another run; run without --continue to start a new session"
        )
        self.path = path


@dataclass(frozen=True)
class SessionReading:
    """What a tolerant read found in a session file."""

    header: SessionHeader
    by_id: dict[str, Entry]  # every usable entry, of every kind, by id, in file order
    skipped: int  # lines that were blank, not UTF-8, not JSON, too long or not an entry

    @property
    def entries(self) -> list[Entry]:
        """The usable entries in file order (which is not the conversation's order)."""
        return list(self.by_id.values())


@dataclass(frozen=True)
class Resumed:
    """What `Session.open` gives back. Fields by name, so a later step can add one."""

    session: Session
    context: Context  # the conversation on the path from the leaf
    skipped: int  # damaged lines passed over


class Session:
    """A session file that entries are appended to, and the tree of entries it holds."""

    def __init__(
        self,
        path: Path,
        header: SessionHeader,
        entries: EntryIndex | None = None,
        *,
        exists: bool = False,
        fsync: bool = False,
    ) -> None:
        self.path = path
        self.header = header
        self.entries = entries if entries is not None else EntryIndex()  # by id, lazily parsed
        # The leaf: the entry the next one hangs under. On open, the last usable entry.
        self.leaf_id: str | None = self.entries.last_usable()
        self.exists = exists  # False until the first write creates the file
        self.fsync = fsync  # after each write, wait until the disk has it (slow; see bench.py)
        self._lock_fd: int | None = None  # holds the lock on the file while this run writes
        self._lock_on_create = False  # take the lock when the first write creates the file
        self._next_number: int | None = None  # worked out at the first append, not at open
        # Which file this is (device, inode) and how long it was after our last look: a file
        # replaced or cut short during the run is refused, never written to in its place.
        self._file: tuple[int, int] | None = None
        self._size = 0
        if exists:
            with suppress(OSError):  # gone already: the first write says so
                found = os.stat(path)
                self._file, self._size = (found.st_dev, found.st_ino), found.st_size

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
        behind to hide the real one from `--continue`. With `lock`, the file is locked the
        moment it is created, before its first byte (see `open`)."""
        header: SessionHeader = {
            "type": "header",
            "version": SESSION_VERSION,
            "id": session_id,
            "createdAt": created_at,
            "cwd": cwd,
        }
        path = Path(directory) / f"{session_id}.jsonl"
        _encode(path, header)  # refuse now what could never be written
        _check_creatable(path)  # and a folder it could never be written in: before any turn
        session = cls(path, header, fsync=fsync)
        session._lock_on_create = lock
        return session

    @classmethod
    def open(cls, path: Path | str, *, lock: bool = False, fsync: bool = False) -> Resumed:
        """Open an existing session to append to it, and rebuild its conversation.

        Nothing is re-run: tool results are messages in the file, so the history comes back
        exactly as it was. The leaf is the last usable entry; the conversation is the path
        from it, whatever the lines around it say.

        With `lock`, the file is locked before it is read, until `close` (SessionInUse if
        another run holds it). Stop here: the lock is what makes the leaf and the next id read
        here stay true; without it, a second run reads the same leaf and writes the same id.
        """
        path = Path(path)
        lock_fd = _hold_lock(path) if lock else None
        try:
            with _collector_paused(), _memory_for(path):
                indexed = _index_session(path)
                _check_appendable(path)  # learn now, not after the user's first turn
                session = cls(
                    path,
                    indexed.header,
                    indexed.entries,
                    exists=True,
                    fsync=fsync,
                )
                context = build_context(session.entries, session.leaf_id)
        except BaseException:
            if lock_fd is not None:
                _unlock(lock_fd)
            raise
        session._lock_fd = lock_fd
        return Resumed(session, context, indexed.entries.damaged)

    @property
    def locked(self) -> bool:
        """True while this session holds the lock on its file."""
        return self._lock_fd is not None

    def close(self) -> None:
        """Let go of the lock, if held. (A process that dies lets go of it too: the kernel
        drops every lock of a process that ends, however it ends.)"""
        if self._lock_fd is not None:
            _unlock(self._lock_fd)
            self._lock_fd = None

    def append_entry(self, kind: str, fields: Mapping[str, Any]) -> Entry:
        """Append an entry of `kind` as a child of the leaf, then advance the leaf.

        The one way to write: it picks the next unique id, hangs the entry under the leaf,
        writes it as one complete line in one write, and only then moves the leaf.
        """
        self._index_lines_added_since()
        if clash := {"type", "id", "parentId"} & fields.keys():  # those are this method's job
            raise ValueError(f"append_entry sets {sorted(clash)} itself")
        entry: Entry = {"type": kind, "id": self._new_id(), "parentId": self.leaf_id, **fields}
        # Stop here: orjson escapes newlines inside strings, so an entry is always one line.
        # The key order (type, id first) is what lets `EntryIndex` index a line without
        # parsing it when the file is resumed; another order would still read, only slower.
        self._write_line(_encode(self.path, entry))
        self.entries[entry["id"]] = entry
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: Message) -> MessageEntry:
        """Append `message` as a child of the leaf, then advance the leaf."""
        return cast(MessageEntry, self.append_entry("message", {"message": message}))

    def append_model_change(self, model: str) -> ModelChangeEntry:
        """Record a switch to `model` as a child of the leaf, then advance the leaf."""
        return cast(ModelChangeEntry, self.append_entry("model_change", {"model": model}))

    def append_branch(self, target_id: str) -> BranchEntry:
        """Move the leaf to `target_id`: a branch entry as a child of the target, which then
        becomes the leaf. Constant time: nothing is read, copied or rewritten.

        Stop here: the old branch stays in the file, untouched. Moving the leaf is both undo
        (go back to an earlier entry) and fork (the next message starts a new branch there).
        """
        if target_id not in self.entries:
            raise SessionError(f"no entry {target_id} in {self.path}")
        moved_from, self.leaf_id = self.leaf_id, target_id
        try:
            return cast(BranchEntry, self.append_entry("branch", {"fromId": moved_from}))
        except BaseException:  # a failed write, or a stop signal: not written, so not moved
            if self.leaf_id == target_id:
                self.leaf_id = moved_from
            raise

    def _index_lines_added_since(self) -> None:
        """Index the lines another program appended since this run last looked.

        Stop here: the lock keeps out runs of this step, not steps 03 and 04. Numbered from
        what was read at open, the next entry would repeat an id they just wrote, and a reader
        keeps the first of two lines with one id: this run's message would be lost. Their
        entries stay where they hang (a branch beside this run's); the leaf stays this run's.
        """
        if not self.exists:
            return
        try:
            found = os.stat(self.path)
        except OSError:
            return  # gone: the write says so
        if found.st_size <= self._size or (found.st_dev, found.st_ino) != self._file:
            return  # nothing new; or cut short or replaced, which the write refuses
        with _open_for_reading(self.path) as file:
            file.seek(self._size)
            for lines in _line_batches(self.path, file):
                self.entries.add_lines(lines)
        self._size = found.st_size
        self._next_number = None  # one past the largest id, theirs included

    def _new_id(self) -> str:
        """One past the largest e<N> in the file: skipped lines and foreign kinds mean that
        line counts cannot be trusted. The loop guards against ids it did not number."""
        if self._next_number is None:  # one past the largest e<N>: resuming need not wait for it
            self._next_number = 1 + max(map(id_number, self.entries.ids()), default=0)
        while (candidate := entry_id(self._next_number)) in self.entries:
            self._next_number += 1
        self._next_number += 1
        return candidate

    def _write_line(self, line: bytes) -> None:
        if len(line) > MAX_ENTRY_BYTES:
            raise SessionError(
                f"cannot write {self.path}: an entry of {len(line):,} bytes is over the "
                f"{MAX_ENTRY_BYTES:,}-byte limit a reader accepts"
            )
        flags = _APPEND_FLAGS
        creating = not self.exists
        if creating:  # the first write creates the file, header first
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
            if creating and self._lock_on_create:  # locked before its first byte is written
                self._lock_fd = _lock(self.path, fd)
            if not creating:
                line = self._after_the_last_line(fd, line)
            _write_all(fd, line)
            found = os.fstat(fd)
            self._file, self._size = (found.st_dev, found.st_ino), found.st_size
            if self.fsync:
                os.fsync(fd)  # the kernel has the line; now wait until the disk has it
                if creating:
                    _fsync_folder(self.path.parent)  # and the file's name, in its folder
        except OSError as error:
            # A write cut short (a full disk, a file size limit) may leave a fragment. The
            # next write finds it at the file's end, and ends it before its own line.
            raise SessionError(f"cannot write {self.path}: {error.strerror}") from None
        finally:
            os.close(fd)
        self.exists = True

    def _after_the_last_line(self, fd: int, line: bytes) -> bytes:
        """`line`, with a `\n` first if the file does not end in one now.

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


def read_header(path: Path | str) -> SessionHeader:
    """Read only the first line: enough to tell whether a file can be a session."""
    path = Path(path)
    with _open_for_reading(path) as file:
        return _parse_header(path, _read_first_line(path, file))


def holds_a_message(path: Path | str) -> bool:
    """True once a message entry is found: usually on the second line, so this is cheap."""
    path = Path(path)
    with _open_for_reading(path) as file, _memory_for(path):
        _parse_header(path, _read_first_line(path, file))
        for line in _bounded_lines(path, file):
            entry = None if line is None else parse_entry(line)
            if entry is not None and entry["type"] == "message":
                return True
    return False


def read_session(path: Path | str) -> SessionReading:
    """Read a whole session file, checking every line, skipping and counting the unusable.

    Refuses (UnusableSessionFile) only a file that cannot be a session: empty, no header line,
    an unsupported version, not a regular file. Never writes.
    """
    path = Path(path)
    with _collector_paused(), _memory_for(path):
        indexed = _index_session(path)
        by_id = dict(indexed.entries.items())  # parses and checks every entry
    return SessionReading(indexed.header, by_id, indexed.entries.damaged)


@dataclass(frozen=True)
class _Indexed:
    header: SessionHeader
    entries: EntryIndex


def _index_session(path: Path) -> _Indexed:
    """One pass over the file: the header checked, every line indexed by its id."""
    entries = EntryIndex()
    with _open_for_reading(path) as file:
        header = _parse_header(path, _read_first_line(path, file))
        for lines in _line_batches(path, file):
            entries.add_lines(lines)
    return _Indexed(header, entries)


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


@dataclass(frozen=True)
class LatestSession:
    """The session `--continue` resumes (None if there is none), and each file passed over."""

    path: Path | None
    passed_over: list[UnusableSessionFile]


def find_latest_session(directory: Path | str) -> LatestSession:
    """The most recently modified usable session in `directory` that holds a message.

    Each newer file that turns out unusable, or holds no message, is returned with its
    reason, so the caller can name it instead of silently resuming something older.
    """
    passed_over: list[UnusableSessionFile] = []
    for path in list_session_files(directory):
        try:
            if holds_a_message(path):
                return LatestSession(path, passed_over)
            passed_over.append(UnusableSessionFile(path, "holds no message"))
        except UnusableSessionFile as error:
            passed_over.append(error)
    return LatestSession(None, passed_over)


# --- Reading, one bounded line at a time ---------------------------------------------------


def _line_batches(path: Path, file: BinaryIO) -> Iterator[list[bytes | None]]:
    """The lines left in `file`, a chunk's worth at a time, split on b"\\n" only (without
    it), each at most MAX_ENTRY_BYTES long. A longer line comes out as None: it is read past in
    bounded pieces, never held whole. Each chunk is split by one C call."""
    # Stop here: bytes.split(b"\n") splits on b"\n" and nothing else. str.splitlines() would
    # also split on \x85, U+2028 and U+2029, which JSON leaves unescaped in strings: a
    # message holding one would become two broken lines.
    pending, too_long = b"", False  # the unfinished last line of the chunks read so far
    try:
        while chunk := file.read(_READ_CHUNK):
            lines: list[bytes | None] = chunk.split(b"\n")  # type: ignore[assignment]
            tail = cast(bytes, lines.pop())  # the start of a line the next chunk goes on with
            if lines:  # the unfinished line ends in this chunk: the first line here
                first = None if too_long else pending + cast(bytes, lines[0])
                lines[0] = None if first is None or len(first) > MAX_ENTRY_BYTES else first
                pending, too_long = tail, False
                yield lines  # every other line is whole in the chunk: shorter than the bound
            elif not too_long:
                pending += tail
            if len(pending) > MAX_ENTRY_BYTES:  # let it go; remember its end is damage
                pending, too_long = b"", True
    except OSError as error:
        raise UnusableSessionFile(path, f"cannot read: {error.strerror}") from None
    if pending or too_long:  # the last line, without its \n: torn, or complete but unended
        yield [None if too_long else pending]


def _bounded_lines(path: Path, file: BinaryIO) -> Iterator[bytes | None]:
    """The same lines one at a time, for a reader that may stop at the first it wants."""
    for lines in _line_batches(path, file):
        yield from lines


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


def _parse_header(path: Path, first_line: bytes) -> SessionHeader:
    if not first_line:
        raise UnusableSessionFile(path, "not a session (empty file)")
    record = parse_json(first_line) if first_line.endswith(b"\n") else None
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
        raise UnusableSessionFile(
            path, f"unsupported version {version} (this program reads version {SESSION_VERSION})"
        )
    for field in ("id", "createdAt", "cwd"):
        if not isinstance(record.get(field), str):
            raise UnusableSessionFile(path, f"not a session (the header's {field} is not a string)")
    return cast(SessionHeader, record)


def _as_written(line: bytes, field: str, value: object) -> str:
    """A header value as the file has it: "1" (a string), 1e400 (not shortened to inf)."""
    number = re.search(rb'"%s"\s*:\s*(-?[0-9][0-9.eE+-]{0,40})' % field.encode(), line)
    if number and not isinstance(value, str):
        return number.group(1).decode()
    shown = orjson.dumps(value).decode()
    return shown if len(shown) <= 40 else shown[:39] + "…"


# --- Writing --------------------------------------------------------------------------------


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


def _check_appendable(path: Path) -> os.stat_result:
    """What `path` is when opened for appending; it must be a regular file."""
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
    return found


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
        if not os.access(folder, os.W_OK | os.X_OK, effective_ids=True):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as error:
        only_the_file = len(missing) == 1 and os.path.isdir(folder)
        where = "session file in" if only_the_file else "session folder"
        raise SessionError(f"cannot create {where} {path.parent}: {error.strerror}") from None


def _modified_ns(path: Path) -> int:
    """When a file was last written; for a dangling link, when the link was made."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        try:
            return path.lstat().st_mtime_ns
        except OSError:
            return 0
