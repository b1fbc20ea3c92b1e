"""Exercise 07.3: a store of your own, behind the seam storage.py describes.

Open exercise, about 60 minutes.

A solution: one SQLite database per session (Python's own sqlite3). The first append makes the
file private before SQLite opens it (SQLite gives its -wal and -shm the database's mode), with
the schema, the header row, the entry and the state row in one transaction; later appends are
one transaction each, the entry and the state row (where a resume starts) together. The lock
is an flock on a descriptor of its own (session_lock), which no other close drops.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from folder_checks import check_creatable, check_no_companions, companions
from session_file import PRIVATE_FILE, _make_folder
from session_format import SessionError, SessionHeader, UnusableSessionFile, encode
from session_header import parse_header
from session_lock import hold_lock, lock_file, unlock
from session_reader import Line, open_for_reading, parse_json

SCHEMA = """
CREATE TABLE header (line BLOB NOT NULL);
CREATE TABLE entries (seq INTEGER PRIMARY KEY, id TEXT, type TEXT, line BLOB NOT NULL);
CREATE TABLE state (kept_from INTEGER NOT NULL);
INSERT INTO state VALUES (1)"""
MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Rows:
    header: SessionHeader
    batches: Iterator[list[Line]]
    whole: bool


class OwnStore:
    suffix = ".own.sqlite"

    def __init__(self, path: Path, header: SessionHeader | None, exists: bool) -> None:
        self.path, self.exists, self._header = path, exists, header
        self._db: sqlite3.Connection | None = None
        self._lock: int | None = None
        self._lock_on_create = False
        self._seen = 0  # the last seq read or written: past it, another writer's rows

    @classmethod
    def new(
        cls, path: Path, header: SessionHeader, *, lock: bool = False, fsync: bool = False
    ) -> OwnStore:
        encode(path, header)
        check_creatable(path)
        store = cls(path, header, exists=False)
        store._lock_on_create = lock
        return store

    @classmethod
    def existing(cls, path: Path, *, lock: bool = False, fsync: bool = False) -> OwnStore:
        store = cls(path, None, exists=True)
        if lock:
            store._lock = hold_lock(path)
        return store

    @property
    def locked(self) -> bool:
        return self._lock is not None

    def position(self) -> int | None:
        return None  # no place to check: a resume of a compaction trusts nothing before it

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._lock is not None:
            unlock(self._lock)
            self._lock = None

    @contextmanager
    def reading(self, *, resume: bool = False) -> Iterator[Rows]:
        try:
            db = self._connection()
            row = db.execute("SELECT line FROM header").fetchone()
            (kept_from,) = db.execute("SELECT kept_from FROM state").fetchone()
        except (sqlite3.Error, TypeError) as error:
            raise UnusableSessionFile(self.path, f"not a session ({error})") from None
        header = parse_header(self.path, bytes(row[0]) + b"\n")
        start = kept_from if resume else 1
        self._seen = max(self._seen, start - 1)
        yield Rows(header, self._rows_after(start - 1), start == 1)

    def lines_added(self) -> Iterator[list[Line]]:
        if self.exists and self._seen:
            yield from self._rows_after(self._seen)

    def append(self, line: bytes) -> None:
        creating = not self.exists
        try:
            db = self._create() if creating else self._connection()
            body = line.removesuffix(b"\n")
            record = parse_json(body)
            record = record if isinstance(record, dict) else {}
            db.execute("BEGIN IMMEDIATE")
            try:
                if creating:
                    for statement in SCHEMA.split(";"):
                        db.execute(statement)
                    header = encode(self.path, self._header or {}).removesuffix(b"\n")
                    db.execute("INSERT INTO header VALUES (?)", (header,))
                insert = "INSERT INTO entries (id, type, line) VALUES (?, ?, ?)"
                values = (str(record.get("id")), str(record.get("type")), body)
                seq = db.execute(insert, values).lastrowid or 0
                if record.get("type") == "compaction":
                    kept = "SELECT min(seq) FROM entries WHERE id = ? AND type = 'message'"
                    found = db.execute(kept, (str(record.get("firstKeptId")),)).fetchone()[0]
                    db.execute("UPDATE state SET kept_from = ?", (found or 1,))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except (sqlite3.Error, OSError) as error:
            if creating:
                self.close()
                for made in (self.path, *companions(self.path)):
                    with suppress(OSError):
                        os.unlink(made)
            raise SessionError(f"cannot write {self.path}: {error}") from None
        self.exists, self._seen = True, seq

    def _create(self) -> sqlite3.Connection:
        _make_folder(self.path.parent)
        check_no_companions(self.path)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        try:
            os.fchmod(fd, PRIVATE_FILE)  # whatever the umask
            if self._lock_on_create:
                self._lock = lock_file(self.path, fd)
            db = self._connection(checked=False)
            db.execute("PRAGMA journal_mode = WAL")
            return db
        finally:
            os.close(fd)

    def _connection(self, checked: bool = True) -> sqlite3.Connection:
        if self._db is None:
            if checked:
                with open_for_reading(self.path) as file:
                    if file.read(len(MAGIC)) != MAGIC:
                        raise UnusableSessionFile(self.path, "not a session (no database)")
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout = 5000")
        return self._db

    def _rows_after(self, after: int) -> Iterator[list[Line]]:
        rows = self._connection().execute(
            "SELECT seq, line FROM entries WHERE seq > ? ORDER BY seq", (after,)
        )
        while batch := rows.fetchmany(64):
            self._seen = max(self._seen, batch[-1][0])
            yield [bytes(line) for _, line in batch]
