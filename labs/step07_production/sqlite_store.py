"""The SQLite store: one database per session, behind the seam the JSONL file stands behind.

It keeps storage.py's promises with Python's own sqlite3. The first append makes the database,
private (0600, and so its -wal and -shm), with its schema, header row and entry in one
transaction; one that fails (a full disk) removes what it made. Then one transaction per entry,
in WAL mode: a kill at any moment, inside the commit too, leaves the entry whole or absent
(`fsync`: synchronous=FULL, else NORMAL, which a power loss, not a kill, can cost the last
entries). An entry is kept as the bytes of its JSONL line (without the `\\n`). Its leaf is the
last row, as the file's is its last line; a compaction changes a state row (the newest
compaction, where its kept part starts) in the compaction's transaction, so a resume reads
from the first kept row with no search. One writer: an flock on the database through a
descriptor of its own (session_lock), never SQLite's POSIX locks, which a process loses when
it closes *any* descriptor of the file (another connection, a plain open()).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from pathlib import Path

from folder_checks import check_creatable, check_no_companions, companions, fsync_folder
from session_file import PRIVATE_FILE, _make_folder
from session_format import SessionError, SessionHeader, UnusableSessionFile, encode
from session_header import MAX_HEADER_BYTES, parse_header
from session_lock import hold_lock, lock_file, unlock
from session_reader import MAX_ENTRY_BYTES, Line, open_for_reading
from sqlite_rows import RowReader, StoredRows, rows_after
from sqlite_schema import (
    HEADER,
    INSERT,
    JSONL_SIZE,
    KEPT_ROW,
    NEW_COMPACTION,
    SCHEMA,
    STATE,
    line_facts,
)

_SQLITE_MAGIC = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database


class SqliteStore:
    """One session's database. Created by its first append, unless it exists already."""

    suffix = ".sqlite"  # the class is the SQLite store (storage.Store): its names end so

    def __init__(
        self, path: Path, header: SessionHeader | None, *, exists: bool, fsync: bool
    ) -> None:
        self.path, self.fsync = path, fsync  # fsync: synchronous=FULL, each commit on disk
        self.exists = exists  # False until the first append creates the database
        self._header = header  # written by the first append, as it is then
        self._db: sqlite3.Connection | None = None  # opened when first needed
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file opened
        self._lock_fd: int | None = None  # the flock's own descriptor, while held
        self._lock_on_create = False  # take the lock when the first append makes the file
        self._seen: int | None = None  # the last seq read or written: past it, another's rows
        self._version: int | None = None  # data_version when last looked: another's commits

    @classmethod
    def new(
        cls, path: Path, header: SessionHeader, *, lock: bool = False, fsync: bool = False
    ) -> SqliteStore:
        """A database to create at the first append; refused now if it never could be."""
        encode(path, header)  # refuse now what could never be written
        check_creatable(path)
        store = cls(path, header, exists=False, fsync=fsync)
        store._lock_on_create = lock
        return store

    @classmethod
    def existing(cls, path: Path, *, lock: bool = False, fsync: bool = False) -> SqliteStore:
        """A database to append to, once read. With `lock`, locked now, before SQLite opens it
        (SessionInUse if another run holds it)."""
        store = cls(path, None, exists=True, fsync=fsync)
        if lock:
            store._lock_fd = hold_lock(path)
        return store

    @property
    def locked(self) -> bool:
        return self._lock_fd is not None

    def close(self) -> None:
        """Close the database (a later append opens it again), then let go of the lock."""
        if self._db is not None:
            with suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        if self._lock_fd is not None:
            unlock(self._lock_fd)
            self._lock_fd = None

    @contextmanager
    def reading(self, *, resume: bool = False) -> Iterator[StoredRows]:
        """The header, then all the rows, or for a `resume` those from the newest compaction's
        first kept entry on (the state row's kept_from), in one read transaction."""
        db, rows = None, None
        try:
            db = self._connection()
            db.execute("BEGIN")
            header = self._checked_header(db)
            first, kept_from = db.execute(STATE).fetchone() or (None, None)
            if kept_from is None:  # a database of this shape whose state row is lost
                raise UnusableSessionFile(self.path, "not a session (no state row)")
            if type(kept_from) is not int or not 1 <= kept_from < 2**62:  # a hand-edited row
                raise UnusableSessionFile(self.path, "not a session (its state row is damaged)")
            start = kept_from if resume else 1
            self._seen = max(self._seen or 0, start - 1)
            rows = self._rows_after(db, start - 1)
            again = RowReader(self.path, self._connection).line_at
            yield StoredRows(header, rows, start <= (first or 1), again)
        except sqlite3.Error as error:
            # Another schema (SQLITE_ERROR: no such table or column) is no session either.
            if error.sqlite_errorname in ("SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_ERROR"):
                raise UnusableSessionFile(self.path, f"not a session ({error})") from None
            raise SessionError(f"cannot read {self.path}: {error}") from None
        finally:
            if rows is not None:
                rows.close()  # its statement ends before the read transaction does
            if db is not None and db.in_transaction:
                with suppress(sqlite3.Error):
                    db.execute("COMMIT")  # a read transaction: nothing to keep, only to end
        # Learn now, not after the user's first turn, that the database cannot take an entry.
        if not os.access(self.path, os.W_OK) or not os.access(self.path.parent, os.W_OK):
            raise SessionError(f"cannot append to {self.path}: permission denied")

    def lines_added(self) -> Iterator[list[Line]]:
        """The rows another writer added since this one last read or wrote (past `_seen`)."""
        if not self.exists or self._seen is None:
            return
        try:
            db = self._db or self._connection()  # (append checks the file is still this one)
            # It changes only when another connection commits: one pragma, not a query, before
            # each append of a session nobody else writes.
            (version,) = db.execute("PRAGMA data_version").fetchone()
            if version != self._version:
                yield from self._rows_after(db, self._seen)
                self._version = version
        except sqlite3.Error as error:
            raise SessionError(f"cannot read {self.path}: {error}") from None

    def append(self, line: bytes) -> None:
        """Append one entry (a line ending in `\\n`); the first append makes the database."""
        if len(line) > MAX_ENTRY_BYTES:
            raise SessionError(
                f"cannot write {self.path}: an entry of {len(line):,} bytes is over the "
                f"{MAX_ENTRY_BYTES:,}-byte limit a reader accepts"
            )
        creating = not self.exists
        try:
            db = self._create() if creating else self._connection()
            seq = self._insert(db, line.removesuffix(b"\n"), creating)
        except (sqlite3.Error, OSError) as error:
            if creating:
                self._remove_unfinished()
            reason = error.strerror if isinstance(error, OSError) else error
            raise SessionError(f"cannot write {self.path}: {reason}") from None
        self.exists, self._seen = True, seq

    def position(self) -> int | None:
        """Where the next entry will begin in this session's JSONL bytes (storage.py, 8): the
        same place in either store, so a compaction converted from one to the other keeps it."""
        if not self.exists:
            return None
        try:
            return self._connection().execute(JSONL_SIZE).fetchone()[0]
        except sqlite3.Error:
            return None  # the write that follows will say what is wrong

    def _insert(self, db: sqlite3.Connection, body: bytes, creating: bool) -> int:
        """One transaction: the entry, with a compaction the state row, creating the schema and
        header first. Any other entry is one statement, in the transaction SQLite gives it."""
        facts = line_facts(body)
        kind, key, parent, kept = facts.kind, facts.key, facts.parent, facts.kept
        if not creating and kind != "compaction":
            return db.execute(INSERT, (kind, key, parent, body)).lastrowid or 0
        db.execute("BEGIN IMMEDIATE")  # the write lock now, before the state row is read
        try:
            if creating:
                for statement in SCHEMA:
                    db.execute(statement)
                header = encode(self.path, self._header or {}).removesuffix(b"\n")
                db.execute("INSERT INTO header (one, line) VALUES (1, ?)", (header,))
            where = db.execute(JSONL_SIZE).fetchone()[0] if kind == "compaction" else None
            seq = db.execute(INSERT, (kind, key, parent, body)).lastrowid or 0
            if kind == "compaction":  # where a resume starts: as kept_part finds it in a file
                named = kept if isinstance(kept, str) else None  # the last message so named
                found = (
                    db.execute(KEPT_ROW, {"id": named, "before": seq}).fetchone()[0] or 1
                )  # (1: all)
                start = seq if kept is None else found  # None: it keeps nothing before itself
                if facts.at != where:  # not where it was written (a copy glued on): read it all
                    start = 1
                db.execute(NEW_COMPACTION, (key, named, start))
            db.execute("COMMIT")
        except BaseException:  # a failed statement, or a signal: nothing of it is kept
            if db.in_transaction:
                with suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        return seq

    def _create(self) -> sqlite3.Connection:
        """Make the database file private before SQLite opens it: SQLite gives the -wal and
        -shm files it makes the database's own mode, so they are private from their first
        byte, whatever the umask. O_EXCL: an existing file is never taken over."""
        _make_folder(self.path.parent)
        check_no_companions(self.path)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags, PRIVATE_FILE)
        except OSError as error:
            exists = isinstance(error, FileExistsError)
            why = "session file already exists" if exists else f"cannot write ({error.strerror})"
            raise SessionError(f"{why}: {self.path}") from None
        try:
            os.fchmod(fd, PRIVATE_FILE)  # the umask may have taken more away than asked
            if self.fsync:  # its name, in its folder, before its first entry is said saved
                fsync_folder(self.path.parent)  # (SQLite syncs the WAL's name itself)
            if self._lock_on_create:  # locked before its first byte is written
                self._lock_fd = lock_file(self.path, fd)
            return self._open(wal=True)
        except BaseException:
            self._remove_unfinished()
            raise
        finally:
            os.close(fd)

    def _remove_unfinished(self) -> None:
        """Undo the making of a database whose first append failed: this run's own (O_EXCL),
        and left behind it would hold no session, for every later `--continue` to name."""
        self.close()
        for made in (self.path, *companions(self.path)):
            with suppress(OSError):
                os.unlink(made)

    def _connection(self) -> sqlite3.Connection:
        """The open database, opened now if it is not yet; refused if it is not the file
        this run opened (deleted or replaced since: an entry there would be lost)."""
        if self._db is None:  # a regular file (a FIFO would block SQLite), and a database's
            with open_for_reading(self.path) as file:
                start = file.read(len(_SQLITE_MAGIC))  # a JSONL file is not handed to SQLite
            if start != _SQLITE_MAGIC:
                what = "not a SQLite database" if start else "empty file"
                raise UnusableSessionFile(self.path, f"not a session ({what})")
            return self._open()
        found = None
        with suppress(OSError):
            found = os.stat(self.path)
        if found is None or (found.st_dev, found.st_ino) != self._identity:
            raise SessionError(f"session file {self.path} was replaced or deleted during the run")
        return self._db

    def _open(self, *, wal: bool = False) -> sqlite3.Connection:
        """Connect, in autocommit mode (each transaction is begun and ended here)."""
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 5000")  # a checkpoint may hold it a moment
        db.execute(f"PRAGMA synchronous = {'FULL' if self.fsync else 'NORMAL'}")
        if wal:
            db.execute("PRAGMA journal_mode = WAL")  # kept in the file: every later open has it
        found = os.stat(self.path)
        self._db, self._identity, self._version = db, (found.st_dev, found.st_ino), None
        return db

    def _checked_header(self, db: sqlite3.Connection) -> SessionHeader:
        """The header row, checked as the JSONL header line is; UnusableSessionFile, saying
        why, for a database that holds no session of this program's."""
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        row = None
        if {"header", "entries", "state"} <= tables:
            row = db.execute(HEADER, {"max": MAX_HEADER_BYTES}).fetchone()
        if row is None or row[0] is None:
            raise UnusableSessionFile(self.path, "not a session (no header row)")
        line, cut = row  # a row over MAX_HEADER_BYTES is given cut, and named so
        return parse_header(self.path, line if cut else line + b"\n")

    def _rows_after(self, db: sqlite3.Connection, after: int) -> Iterator[list[Line]]:
        """The rows past `after`, a batch at a time (sqlite_rows), each one seen."""
        with closing(rows_after(db, after)) as batches:
            for batch in batches:
                self._seen = max(self._seen or 0, batch.at[-1])
                yield batch
