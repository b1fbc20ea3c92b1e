# >>file prod
"""What only the SQLite store has: its state row, kept in the entry's own transaction, the
database's settings, and the words it refuses a database with. test_store_conformance.py
holds it, as every store, to storage.py's promises."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import orjson
import pytest
from test_store_conformance import create, start_child, stored_lines

import sqlite_rows
from messages import user_text
from session import Session
from session_format import SessionError, UnusableSessionFile, encode, new_header
from session_reader import TooLong
from sqlite_store import SCHEMA, SqliteStore


def state(path: Path) -> tuple[str | None, str | None, str | None, int]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT leaf, compaction, first_kept, kept_from FROM state").fetchone()


def test_the_state_row_says_where_a_resume_starts(tmp_path: Path) -> None:
    session = create(SqliteStore, tmp_path)
    for number in range(5):
        session.append_message(user_text(f"old {number}"))
    session.append_compaction("five", "e4")
    session.append_message(user_text("new"))
    assert state(session.path) == ("e7", "e6", "e4", 4)
    session.append_compaction("nothing kept", None)  # its own row, then
    assert state(session.path) == ("e8", "e8", None, 8)
    session.close()
    storage = SqliteStore.existing(session.path)
    with storage.reading(resume=True) as lines:
        assert not lines.whole
        assert [orjson.loads(line)["id"] for batch in lines.batches for line in batch] == ["e8"]
    storage.close()


def test_the_state_row_agrees_with_the_entries_after_kills(tmp_path: Path) -> None:
    """After each kill (the conformance suite checks the entries), the state row's leaf is
    the last entry's id: WAL recovery keeps or drops the two together."""
    for seed in range(4):
        child = start_child(SqliteStore, tmp_path, seed)
        for _ in range(3 + 5 * seed):
            assert child.stdout.readline()  # type: ignore[union-attr]
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
        with sqlite3.connect(tmp_path / "crash.sqlite") as db:
            (last,) = db.execute("SELECT id FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
        assert state(tmp_path / "crash.sqlite")[0] == last


def test_an_entry_whose_state_row_fails_is_not_kept(tmp_path: Path) -> None:
    """One transaction: a state row that cannot be written takes the entry with it."""
    session = create(SqliteStore, tmp_path)
    session.append_message(user_text("kept"))
    with sqlite3.connect(session.path) as other:
        other.execute(
            "CREATE TRIGGER refuse BEFORE UPDATE ON state BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
    with pytest.raises(SessionError, match="cannot write"):
        session.append_message(user_text("not kept"))
    assert [orjson.loads(line)["id"] for line in stored_lines(SqliteStore, session.path)] == ["e1"]
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


def made(path: Path, header: bytes | None, tables: str = SCHEMA) -> Path:
    with sqlite3.connect(path) as db:
        db.executescript(tables)
        if header is not None:
            db.execute("INSERT INTO header VALUES (1, ?)", (header,))
    return path


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
        (lambda p: made(p, header_of(), SCHEMA.replace("INSERT", "SELECT 1; --")), "state row"),
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


def test_rows_come_in_batches_of_bounded_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = create(SqliteStore, tmp_path)
    for number in range(300):
        session.append_message(user_text(f"{number:03} " + "x" * 100))
    session.close()
    monkeypatch.setattr(sqlite_rows, "_BATCH_BYTES", 2000)
    storage = SqliteStore.existing(session.path)
    with storage.reading() as lines:
        sizes = [len(batch) for batch in lines.batches]
    storage.close()
    assert sum(sizes) == 300 and len(sizes) > 1 and max(sizes) <= sqlite_rows._FETCH


def test_a_database_error_is_one_session_error(tmp_path: Path) -> None:
    session = create(SqliteStore, tmp_path)
    session.append_message(user_text("hello"))
    with sqlite3.connect(session.path) as other:
        other.execute("DROP TABLE state")
    with pytest.raises(SessionError, match=r"cannot write .*: no such table: state"):
        session.append_message(user_text("lost?"))
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
