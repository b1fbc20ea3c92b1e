# >>file prod
"""The SQLite store's tables, the statements it runs on them (one database per session), and
what they need read out of an entry's line.

`entries` holds each entry's line as the JSONL file would (`seq` is its place there), with the
type, id and parent read out of it for the queries below; `state` is one row, changed in the
same transaction as each compaction, so that a resume knows where the newest compaction's kept
part starts without a search.
"""

from __future__ import annotations

import re
from contextlib import suppress
from typing import NamedTuple

from session_reader import parse_json

# The schema, made by the first append's transaction, a statement at a time. `seq` is a JSONL
# line's place in the file; type, id and parent are read from the line. No copy of the leaf:
# it is the last row, as the file's is its last line; and no index on id. An append other than
# a compaction changes one page of rows and nothing else: each page more would be 4 KiB more
# written to the WAL by every append.
SCHEMA = (
    "CREATE TABLE header (one INTEGER PRIMARY KEY CHECK (one = 1), line BLOB NOT NULL)",
    """CREATE TABLE entries (seq INTEGER PRIMARY KEY, type TEXT, id TEXT, parent TEXT,
                             line BLOB NOT NULL)""",
    """CREATE TABLE state (one INTEGER PRIMARY KEY CHECK (one = 1), compaction TEXT,
                           first_kept TEXT, kept_from INTEGER NOT NULL DEFAULT 1)""",
    "INSERT INTO state (one) VALUES (1)",
)
INSERT = "INSERT INTO entries (type, id, parent, line) VALUES (?, ?, ?, ?)"
# A row as the readers take it: its seq, whether it is too long, and its line as bytes, or for a
# row over MAX_ENTRY_BYTES its first bytes (TooLong): no row is held whole that the JSONL reader
# would not hold either.
_ROW = """seq, length(line) > :max,
CAST(CASE WHEN length(line) > :max THEN substr(line, 1, :head) ELSE line END AS BLOB)"""
# The rows after a seq.
ROWS = f"SELECT {_ROW} FROM entries WHERE seq > :after ORDER BY seq"
# The lengths of the rows between two seqs, their lines unread: which rows to read again.
LENGTHS_BETWEEN = "SELECT seq, length(line) FROM entries WHERE seq BETWEEN :low AND :high"
# :n rows from the seq :first on: rows read again (sqlite_rows.RowReader).
ROWS_BETWEEN = f"SELECT {_ROW} FROM entries WHERE seq >= :first ORDER BY seq LIMIT :n"
# The size of the session as a JSONL file: the header and each entry, each with its \n.
JSONL_SIZE = """SELECT (SELECT length(line) + 1 FROM header)
+ coalesce((SELECT sum(length(line) + 1) FROM entries), 0)"""
# Searched from the newest row back (no index: one would cost every append a page more), and a
# compaction keeps the newest messages: the row is found a few rows back.
KEPT_ROW = """SELECT (SELECT seq FROM entries WHERE seq < :before AND id = :id AND type = 'message'
ORDER BY seq DESC LIMIT 1)"""
NEW_COMPACTION = "UPDATE state SET compaction = ?, first_kept = ?, kept_from = ?"
HEADER = "SELECT CAST(substr(line, 1, :max) AS BLOB), length(line) > :max FROM header"
STATE = "SELECT (SELECT min(seq) FROM entries), kept_from FROM state"


class Facts(NamedTuple):
    """What the queries need of an entry's line: its type, id and parentId (None where the
    line has none as a string), and a compaction's firstKeptId (0, not a string: read it all,
    as kept_part does, if it has none) and where it says its line begins (`at`, from `position`)."""

    kind: str | None
    key: str | None
    parent: str | None
    kept: object
    at: object


# The start of a line as the writer puts it (session.py: type, id and parentId first), read
# where it is: an append of anything but a compaction parses nothing. Any other start is parsed.
_WRITERS_START = re.compile(
    rb'\{"type":"([a-z_]+)","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")'
)


def line_facts(body: bytes) -> Facts:
    found = _WRITERS_START.match(body)
    if found is not None and found[1] != b"compaction":
        with suppress(UnicodeDecodeError):  # (not UTF-8: no JSON either; as parsed, below)
            kind, key, parent = (None if p is None else p.decode() for p in found.groups())
            return Facts(kind, key, parent, 0, None)
    record = parse_json(body)
    if not isinstance(record, dict):
        return Facts(None, None, None, 0, None)
    kind, key, parent = (record.get(name) for name in ("type", "id", "parentId"))
    strings = (value if isinstance(value, str) else None for value in (kind, key, parent))
    return Facts(*strings, record.get("firstKeptId", 0), record.get("at"))
