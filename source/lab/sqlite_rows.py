# >>file prod
"""The reading half of the SQLite store: a session database's rows, a batch at a time, each with
its seq (where the row is), and a row again by its seq, for a session that kept the seq instead
of the line (storage.py, 9). As session_reader.py is the JSONL store's.

No row is held whole that the JSONL reader would not hold either: one over MAX_ENTRY_BYTES is
given as its first bytes (TooLong, as the ROWS statement cuts it).
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from session_format import SessionError, SessionHeader
from session_reader import MAX_ENTRY_BYTES, Line, Placed, TooLong
from sqlite_schema import LENGTHS_BETWEEN, ROWS, ROWS_BETWEEN

_HEAD_BYTES = 4096  # what is kept of a row too long to read: the id is at its start
_BATCH_BYTES = 4 * 1024 * 1024  # a batch is handed over once it holds this much
_AROUND = 256  # rows read again at a time: a walk from the leaf asks for their neighbours next
_AROUND_BYTES = 1024 * 1024  # ...as many as fit in this, beside the one asked for


@dataclass(frozen=True)
class StoredRows:
    """A session database being read (storage.StoredLines): its header, then its rows."""

    header: SessionHeader
    batches: Iterator[list[Line]]
    whole: bool  # False: the rows start at the newest compaction's kept part
    line_at: Callable[[int], bytes]  # a row again, by its seq (storage.ReadsBack)


def rows_after(db: sqlite3.Connection, after: int) -> Iterator[Placed]:
    """The rows past the seq `after`, as lines, a batch at a time: a batch holds at most
    _BATCH_BYTES and one row more, however long the session and its rows. (A row at a time
    from SQLite: fetching a number of rows at once would hold them all, whatever their size.)"""
    bounds = {"max": MAX_ENTRY_BYTES, "head": _HEAD_BYTES, "after": after}
    with closing(db.execute(ROWS, bounds)) as rows:
        batch: list[Line] = []
        at, size = array("q"), 0
        for seq, too_long, value in rows:
            value = value or b""  # a NULL line (not this writer's): a blank line
            batch.append(TooLong(value) if too_long else value)
            at.append(seq)
            size += len(value)
            if size >= _BATCH_BYTES:
                yield Placed(batch, at)
                batch, at, size = [], array("q"), 0
        if batch:
            yield Placed(batch, at)


class RowReader:
    """Rows read again by seq, up to _AROUND at a time and _AROUND_BYTES besides the one asked
    for: before it (a walk from the leaf goes back), or after it (a reader going forward); from
    the database that was read, or not at all: a seq means nothing in another one put in its
    place. Bounded in bytes as the file's LineReader is: a few rows of megabytes each, near the
    path but off it, are not all held to give back one line."""

    def __init__(self, path: Path, connection: Callable[[], sqlite3.Connection]) -> None:
        self._path, self._connection = path, connection
        self._identity = _identity(path)
        self._rows: dict[int, bytes] = {}
        self._last = 0

    def line_at(self, seq: int) -> bytes:
        """The row's line (its first bytes, if too long to read); b"" if there is none."""
        if (line := self._rows.get(seq)) is None:
            backwards = seq < self._last
            low, high = (seq - _AROUND + 1, seq) if backwards else (seq, seq + _AROUND - 1)
            try:
                db = self._connection()
                if _identity(self._path) != self._identity:
                    raise SessionError(f"session file {self._path} was replaced during the run")
                sizes = db.execute(LENGTHS_BETWEEN, {"low": low, "high": high}).fetchall()
                first, n = _window(sizes, seq, backwards)
                bounds = {"max": MAX_ENTRY_BYTES, "head": _HEAD_BYTES, "first": first, "n": n}
                fetched = db.execute(ROWS_BETWEEN, bounds)
                self._rows = {row: value or b"" for row, _, value in fetched}
            except sqlite3.Error as error:
                raise SessionError(f"cannot read {self._path}: {error}") from None
            line = self._rows.get(seq, b"")
        self._last = seq
        return line


def _window(sizes: list[tuple[int, int]], seq: int, backwards: bool) -> tuple[int, int]:
    """The first seq and the number of rows to read: `seq`, then its neighbours going away from
    it while their bytes fit _AROUND_BYTES (a row too long to read costs its first bytes)."""
    taken, total = [seq], 0
    for row, size in sorted(sizes, reverse=backwards):
        if row == seq:
            continue
        total += _HEAD_BYTES if size > MAX_ENTRY_BYTES else size
        if total > _AROUND_BYTES:
            break
        taken.append(row)
    return min(taken), len(taken)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None  # gone: the next read or write says so
    return found.st_dev, found.st_ino
