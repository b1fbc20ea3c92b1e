# >>file prod
"""What only the SQLite store has: its state row, kept in the entry's own transaction, the
database's settings, and the words it refuses a database with. test_store_conformance.py
holds it, as every store, to storage.py's promises."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from harness import STEP_DIR, stop_signals_at_default
from test_store_conformance import create, stored_lines

import sqlite_rows
from messages import user_text
from session import Session
from session_format import SessionError, UnusableSessionFile, encode, new_header
from session_reader import TooLong
from sqlite_store import SCHEMA, SqliteStore


def state(path: Path) -> tuple[str | None, str | None, int]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT compaction, first_kept, kept_from FROM state").fetchone()


def test_an_append_changes_one_page(tmp_path: Path) -> None:
    """What an append costs is the pages its commit writes to the WAL, a frame each: the row's
    page, and its parent's when the page splits. A state row or an index kept up to date on
    every append would be a frame more each time (and cost it about 4 us here)."""
    session = create(SqliteStore, tmp_path)
    session.append_message(user_text("first"))
    wal = Path(f"{session.path}-wal")
    before = wal.stat().st_size
    for number in range(200):
        session.append_message(user_text(f"message {number}"))
    frames = (wal.stat().st_size - before) / (4096 + 24)  # a page and its frame header
    assert 200 <= frames <= 230, frames
    session.close()


def test_the_state_row_says_where_a_resume_starts(tmp_path: Path) -> None:
    session = create(SqliteStore, tmp_path)
    for number in range(5):
        session.append_message(user_text(f"old {number}"))
    session.append_compaction("five", "e4")
    session.append_message(user_text("new"))
    assert state(session.path) == ("e6", "e4", 4)
    session.append_compaction("nothing kept", None)  # its own row, then
    assert state(session.path) == ("e8", None, 8)
    session.close()
    storage = SqliteStore.existing(session.path)
    with storage.reading(resume=True) as lines:
        assert not lines.whole
        assert [orjson.loads(line)["id"] for batch in lines.batches for line in batch] == ["e8"]
    storage.close()


COMPACTING = r"""
import sys
sys.path.insert(0, sys.argv[1])
from messages import user_text
from session import Session
from sqlite_store import SqliteStore
session = Session.create(sys.argv[2], session_id="s", created_at="t", cwd="/", store=SqliteStore)
while True:
    kept = session.append_message(user_text("x" * 3000))
    session.append_message(user_text("y"))
    session.append_compaction("a summary", kept["id"])
    print(kept["id"], flush=True)
"""


def test_the_state_row_agrees_with_the_entries_after_kills(tmp_path: Path) -> None:
    """A writer that compacts after every second message, killed at random: the state row
    names the newest compaction and the row of its first kept entry, whichever commit the kill
    cut short (WAL recovery keeps or drops a compaction and its state row together)."""
    for seed in range(4):
        folder = tmp_path / str(seed)
        child = subprocess.Popen(
            [sys.executable, "-c", COMPACTING, str(STEP_DIR), str(folder)],
            stdout=subprocess.PIPE, preexec_fn=stop_signals_at_default,
        )  # fmt: skip
        for _ in range(3 + 40 * seed):
            assert child.stdout.readline()  # type: ignore[union-attr]
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
        [path] = folder.glob("*.sqlite")
        with sqlite3.connect(path) as db:
            newest = "SELECT seq, id, line FROM entries WHERE type = 'compaction' ORDER BY seq DESC"
            _, key, line = db.execute(newest).fetchone()
            kept = orjson.loads(line)["firstKeptId"]
            (row,) = db.execute("SELECT seq FROM entries WHERE id = ?", (kept,)).fetchone()
        db.close()
        assert state(path) == (key, kept, row)


def test_an_entry_whose_state_row_fails_is_not_kept(tmp_path: Path) -> None:
    """One transaction: a state row that cannot be written takes the compaction with it."""
    session = create(SqliteStore, tmp_path)
    session.append_message(user_text("kept"))
    with sqlite3.connect(session.path) as other:
        other.execute(
            "CREATE TRIGGER refuse BEFORE UPDATE ON state BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
    session.append_message(user_text("a message changes no state row"))
    with pytest.raises(SessionError, match="cannot write"):
        session.append_compaction("not kept", "e1")
    ids = [orjson.loads(line)["id"] for line in stored_lines(SqliteStore, session.path)]
    assert ids == ["e1", "e2"]
    session.close()


@pytest.mark.parametrize("fsync, level", [(False, 1), (True, 2)])  # NORMAL, FULL
def test_wal_and_synchronous(tmp_path: Path, fsync: bool, level: int) -> None:
    session = Session.create(tmp_path, session_id="s", created_at="t", cwd="/",
                             store=SqliteStore, fsync=fsync)  # fmt: skip
    session.append_message(user_text("hello"))
    db = session.file._db  # type: ignore[attr-defined]
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("PRAGMA synchronous").fetchone() == (level,)
    session.close()


def made(path: Path, header: bytes | None, tables: str = ";".join(SCHEMA)) -> Path:
    with sqlite3.connect(path) as db:
        db.executescript(tables)
        if header is not None:
            db.execute("INSERT INTO header VALUES (1, ?)", (header,))
    return path


NO_STATE_ROW = [statement for statement in SCHEMA if not statement.startswith("INSERT")]


def header_of(**changes: object) -> bytes:
    return encode(Path("x"), {**new_header("s", "t", "/"), **changes}).removesuffix(b"\n")


@pytest.mark.parametrize(
    "content, reason",
    [
        (lambda p: p.write_bytes(b'{"type":"header","version":1}\n'), "not a SQLite database"),
        (lambda p: made(p, None, "CREATE TABLE notes (text)"), "no header row"),
        (lambda p: made(p, None), "no header row"),
        (lambda p: made(p, header_of(version=2)), "unsupported version 2 (this program reads"),
        (lambda p: made(p, b"[1, 2]"), "not a session (no header line)"),
        (lambda p: made(p, header_of(), ";".join(NO_STATE_ROW)), "state row"),
    ],
    ids=["jsonl", "another program's", "no header", "version", "not a header", "no state"],
)
def test_a_database_that_is_no_session_is_named(tmp_path: Path, content, reason: str) -> None:
    path = tmp_path / "odd.sqlite"
    content(path)
    with pytest.raises(UnusableSessionFile) as raised:
        Session.open(path, store=SqliteStore)
    assert raised.value.path == path and reason in raised.value.reason


def test_a_row_too_long_is_given_as_its_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = create(SqliteStore, tmp_path)
    long = session.append_message(user_text("x" * 5000))
    session.append_message(user_text("short"))
    session.close()
    monkeypatch.setattr(sqlite_rows, "MAX_ENTRY_BYTES", 1000)
    monkeypatch.setattr(sqlite_rows, "_HEAD_BYTES", 40)
    first, second = stored_lines(SqliteStore, session.path)
    assert first == TooLong(orjson.dumps(long)[:40]) and isinstance(second, bytes)


def test_rows_read_again_are_bounded_in_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walk asks for a row again by its seq, and its neighbours are read with it: as many as
    fit in _AROUND_BYTES, not _AROUND rows whatever their size (rows of 8 MB off the path once
    made a resume hold 485 MiB to give back a few short lines)."""
    monkeypatch.setattr(sqlite_rows, "_AROUND_BYTES", 10_000)
    session = create(SqliteStore, tmp_path)
    for number in range(40):
        session.append_message(user_text(f"{number} " + "x" * (3000 if number % 2 else 10)))
    session.close()
    storage = SqliteStore.existing(session.path)
    with storage.reading() as lines:
        places = [at for batch in lines.batches for at in batch.at]  # type: ignore[attr-defined]
        expected = stored_lines(SqliteStore, session.path)
        rows = list(zip(places, expected, strict=True))
        for walk in (rows[::-1], rows):  # a walk back, then a reader going forward
            for at, line in walk:
                assert lines.line_at(at) == line
                held = lines.line_at.__self__._rows  # type: ignore[attr-defined]
                assert sum(map(len, held.values())) <= 10_000 + max(map(len, expected))
    storage.close()


def test_rows_come_in_batches_of_bounded_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most _BATCH_BYTES and one row more, whatever the rows' sizes (a few rows of 8 MB
    fetched together once made a resume hold hundreds of MiB)."""
    session = create(SqliteStore, tmp_path)
    for number in range(300):
        session.append_message(user_text(f"{number:03} " + "x" * (5000 if number % 7 else 100)))
    session.close()
    monkeypatch.setattr(sqlite_rows, "_BATCH_BYTES", 20_000)
    storage = SqliteStore.existing(session.path)
    with storage.reading() as lines:
        batches = [[len(line) for line in batch] for batch in lines.batches]
    storage.close()
    assert sum(map(len, batches)) == 300 and len(batches) > 1
    assert all(sum(batch) - batch[-1] < 20_000 for batch in batches)  # the last one tipped it


def test_a_database_error_is_one_session_error(tmp_path: Path) -> None:
    session = create(SqliteStore, tmp_path)
    session.append_message(user_text("hello"))
    with sqlite3.connect(session.path) as other:
        other.execute("DROP TABLE state")
    with pytest.raises(SessionError, match=r"cannot write .*: no such table: (main\.)?state"):
        session.append_compaction("lost?", None)
    session.close()
    with pytest.raises(UnusableSessionFile, match="no header row"):
        Session.open(session.path, store=SqliteStore)


def test_a_database_replaced_during_the_run_is_refused(tmp_path: Path) -> None:
    session = create(SqliteStore, tmp_path)
    session.append_message(user_text("hello"))
    session.path.rename(tmp_path / "moved.sqlite")
    made(session.path, header_of())
    with pytest.raises(SessionError, match="was replaced or deleted during the run"):
        session.append_message(user_text("where to?"))
    session.close()
