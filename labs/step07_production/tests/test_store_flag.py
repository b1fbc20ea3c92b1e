"""`--store sqlite` end to end: main.py makes its session in the SQLite store, `--continue`
resumes the newest usable session of either kind through its own store (the lock, /branch,
/compact as on JSONL), and `--convert` moves a session to the other store, entries unchanged."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import RunMain
from harness import in_use_line, read_until, running, type_lines, with_tool_delay

from session import Session
from session_file import SessionFile
from sqlite_store import SqliteStore
from storage import Store
from stores import stored_lines


def one(folder: Path, suffix: str) -> Path:
    """The one session of `suffix` in `folder`."""
    [path] = folder.glob(f"*{suffix}")
    return path


def stored(path: Path) -> tuple[dict[str, object], list[object]]:
    """The header and every entry line of the session at `path`, read through its store."""
    with stored_lines(path) as lines:
        return dict(lines.header), [line for batch in lines.batches for line in batch]


def test_a_sqlite_session_is_made_then_resumed(tmp_path: Path, run_main: RunMain) -> None:
    first = run_main("what is 2+3\n", "--store", "sqlite")
    assert first.returncode == 0 and first.stderr == b""
    path = one(tmp_path / ".sessions", ".sqlite")
    assert not list((tmp_path / ".sessions").glob("*.jsonl"))
    second = run_main("what was the result\n", "--continue")  # --store jsonl would not matter
    assert second.returncode == 0 and second.stderr == b""
    assert f"session file: .sessions/{path.name} (resumed: 4 messages restored".encode() in (
        second.stdout
    )
    assert b"The last result was 5 (2+3)." in second.stdout
    assert len(stored(path)[1]) == 6 and list((tmp_path / ".sessions").iterdir()) == [path]


def test_an_unknown_store_is_refused_in_one_line(run_main: RunMain) -> None:
    done = run_main("hello\n", "--store", "csv")
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.startswith(b"error: argument --store: invalid choice: 'csv'")
    assert done.stderr.count(b"\n") == 1


@pytest.mark.parametrize("newer", [".jsonl", ".sqlite"])
def test_continue_takes_the_newer_of_the_two_kinds(
    tmp_path: Path, run_main: RunMain, newer: str
) -> None:
    assert run_main("what is 2+3\n", "--store", "jsonl").returncode == 0
    assert run_main("what is 12*8\n", "--store", "sqlite").returncode == 0
    folder = tmp_path / ".sessions"
    older = ".sqlite" if newer == ".jsonl" else ".jsonl"
    os.utime(one(folder, older), ns=(10**18, 10**18))
    os.utime(one(folder, newer), ns=(2 * 10**18, 2 * 10**18))
    done = run_main("what was the result\n", "--continue")
    assert done.returncode == 0 and done.stderr == b""
    expected = b"5 (2+3)" if newer == ".jsonl" else b"96 (12*8)"
    assert b"The last result was " + expected in done.stdout
    assert one(folder, newer).name.encode() in done.stdout


def test_a_second_continue_of_a_sqlite_session_in_use_is_refused(
    tmp_path: Path, run_main: RunMain
) -> None:
    assert run_main("what is 12*8\n", "--store", "sqlite").returncode == 0
    path = one(tmp_path / ".sessions", ".sqlite")
    before = stored(path)
    with running(tmp_path, "--continue") as holder:
        read_until(holder, b"you> ")  # resumed and locked
        second = run_main("what was the result\n", "--continue")
        shown = Path(".sessions", path.name)
        assert (second.returncode, second.stderr, second.stdout) == (1, in_use_line(shown), b"")
        assert stored(path) == before  # it wrote nothing
        holder.kill()  # the kernel lets go of the lock
        holder.communicate(timeout=10)
    third = run_main("what was the result\n", "--continue")
    assert third.returncode == 0 and b"96" in third.stdout


def test_branch_and_compact_on_sqlite_survive_a_resume(tmp_path: Path, run_main: RunMain) -> None:
    done = run_main("what is 2+3\nwhat is 12*8\n/branch e4\n", "--store", "sqlite")
    assert done.returncode == 0 and b"moved to e4" in done.stdout
    done = run_main("what was the result\n/compact\n", "--continue")
    assert b"resumed: 4 messages restored" in done.stdout  # the branch held
    assert b"The last result was 5 (2+3)." in done.stdout and b"compacted: " in done.stdout
    done = run_main("what was the result\n/tree\n", "--continue")
    assert done.returncode == 0 and done.stderr == b""
    assert b"resumed: 3 messages restored" in done.stdout  # the summary and the kept turn
    assert b"The last result was 5 (2+3)." in done.stdout
    assert b"e12 compaction" in done.stdout and b"e9 branch: back to e4 from e8" in done.stdout
    [path] = (tmp_path / ".sessions").glob("*.sqlite")
    assert len(stored(path)[1]) == 14


@pytest.mark.parametrize(("made", "other"), [("jsonl", SqliteStore), ("sqlite", SessionFile)])
def test_a_converted_session_resumes_the_same_messages(
    tmp_path: Path, run_main: RunMain, made: str, other: Store
) -> None:
    typed = "what is 2+3\nwhat is 12*8\n/branch e4\nwhat was the result\n/compact\n"
    assert run_main(typed, "--store", made).returncode == 0
    folder = tmp_path / ".sessions"
    [source] = folder.iterdir()
    target = source.with_suffix(other.suffix)
    done = run_main("", "--convert", f".sessions/{source.name}")
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == f"converted .sessions/{source.name} to .sessions/{target.name}\n".encode()
    assert stored(target) == stored(source)  # the header, and every entry's bytes
    before = Session.open(source, store=SessionFile if made == "jsonl" else SqliteStore)
    after = Session.open(target, store=other)
    assert after.context.messages == before.context.messages
    assert after.session.leaf_id == before.session.leaf_id
    # Each resumed from the kept part alone: the compaction is where it says it is in both.
    assert not before.session.read_whole and not after.session.read_whole
    before.session.close()
    after.session.close()  # its database too: the last to close it removes its -wal file
    again = run_main("", "--convert", f".sessions/{source.name}")  # never over a session
    assert again.returncode == 1
    assert again.stderr == f"error: will not overwrite .sessions/{target.name}\n".encode()
    source.unlink()
    resumed = run_main("what was the result\n", "--continue")
    assert resumed.returncode == 0 and resumed.stderr == b""
    assert f"session file: .sessions/{target.name} (resumed: 3 messages".encode() in resumed.stdout
    assert b"The last result was 5 (2+3)." in resumed.stdout
    assert sorted(path.name for path in folder.iterdir()) == [target.name]  # no partial left


def test_a_garbage_sqlite_file_is_passed_over(tmp_path: Path, run_main: RunMain) -> None:
    assert run_main("what is 2+3\n").returncode == 0
    folder = tmp_path / ".sessions"
    os.utime(one(folder, ".jsonl"), ns=(10**18, 10**18))
    (folder / "x.sqlite").write_bytes(b"not a database\n")
    done = run_main("what was the result\n", "--continue")
    assert done.returncode == 0
    warning = b"warning: .sessions/x.sqlite: not a session (not a SQLite database); passed over\n"
    assert done.stderr == warning
    assert b"The last result was 5 (2+3)." in done.stdout


def test_a_tool_call_cut_short_in_a_sqlite_session_is_repaired(
    tmp_path: Path, run_main: RunMain
) -> None:
    args = ("--store", "sqlite", "--fsync")
    with running(tmp_path, *args, env=with_tool_delay(30)) as first:
        type_lines(first, "what is 2+3")
        read_until(first, b"[tool call]")  # its tool sleeping: the call is saved, or soon
        deadline = time.monotonic() + 10
        while (
            not list((tmp_path / ".sessions").glob("*.sqlite"))
            or len(stored(one(tmp_path / ".sessions", ".sqlite"))[1]) < 2
        ):
            assert time.monotonic() < deadline, "the tool call was not saved"
            time.sleep(0.05)
        first.kill()
        first.communicate(timeout=10)
    path = one(tmp_path / ".sessions", ".sqlite")
    done = run_main("what is 1+1\n", "--continue", "--fsync", "--model", "scripted-v2")
    assert done.returncode == 0
    assert (
        done.stderr
        == (
            f"warning: repaired 1 interrupted tool call in .sessions/{path.name} "
            "(an error result each; not run again)\n"
        ).encode()
    )
    assert b"model scripted-v2" in done.stdout and b"calc -> 2" in done.stdout


# --- What a hostile review found (each test failed before its fix) --------------------------


def test_a_conversion_refuses_a_wal_left_beside_its_target(
    tmp_path: Path, run_main: RunMain
) -> None:
    """An earlier database's -wal left where the copy goes: SQLite read it into the new
    database as its own, and the copy held another conversation while saying it converted
    this one. Now nothing is made, in one line."""
    import sqlite3

    assert run_main("what is 7*6\n").returncode == 0
    source = one(tmp_path / ".sessions", ".jsonl")
    assert run_main("", "--convert", str(source)).returncode == 0
    target = source.with_suffix(".sqlite")
    db = sqlite3.connect(target)  # an earlier run of that database, its log not yet checkpointed
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("UPDATE entries SET line = CAST('{}' AS BLOB) WHERE seq = 1")
    db.commit()
    stale = Path(f"{target}-wal").read_bytes()
    db.close()
    target.unlink()
    Path(f"{target}-wal").write_bytes(stale)  # the database gone, its log left behind
    done = run_main("", "--convert", str(source))
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.decode().splitlines()
    assert line.startswith("error: ") and "left from an earlier database" in line, line
    assert not target.exists()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE state SET kept_from = 'abc'",  # TypeError, once
        "UPDATE state SET kept_from = -9223372036854775808",  # OverflowError, once
        "DROP TABLE entries; CREATE TABLE entries (b)",  # 'no such column', an error, once
    ],
)
def test_a_database_of_another_shape_is_passed_over_with_a_warning(
    tmp_path: Path, run_main: RunMain, damage: str
) -> None:
    import sqlite3

    assert run_main("what is 7*6\n", "--store", "sqlite").returncode == 0
    older = one(tmp_path / ".sessions", ".sqlite")
    newer = older.with_name("z" + older.name)
    newer.write_bytes(older.read_bytes())
    with sqlite3.connect(newer) as db:
        db.executescript(damage)
    os.utime(newer, (time.time() + 5, time.time() + 5))  # the newest: tried first
    done = run_main("what was the result\n", "--continue")
    assert done.returncode == 0, done.stderr
    (warning,) = done.stderr.decode().splitlines()
    assert warning.startswith("warning: ") and newer.name in warning and "passed over" in warning
    assert b"The last result was 42 (7*6)." in done.stdout  # the older session, resumed


def test_a_stop_signal_during_a_conversion_is_one_line_and_leaves_nothing(
    tmp_path: Path, run_main: RunMain
) -> None:
    """SIGTERM while a session is converted ended the run with no word, and left a partial
    copy beside it."""
    import signal

    assert run_main("what is 7*6\n").returncode == 0
    source = one(tmp_path / ".sessions", ".jsonl")
    slow = "import sqlite_store, time\n" + (
        "_append = sqlite_store.SqliteStore.append\n"
        "def append(self, line):\n"
        "    print('copying', flush=True); time.sleep(30); _append(self, line)\n"
        "sqlite_store.SqliteStore.append = append"
    )
    from harness import main_patched

    with running(tmp_path, "--convert", str(source), command=main_patched(slow)) as process:
        read_until(process, b"copying")
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=10)
    assert process.returncode == 143
    assert err.decode().splitlines() == ["warning: terminated: nothing was converted"]
    assert sorted(p.name for p in source.parent.iterdir()) == [source.name]


def test_a_conversion_of_a_session_in_use_says_so_in_its_own_words(
    tmp_path: Path, run_main: RunMain
) -> None:
    assert run_main("what is 7*6\n").returncode == 0
    source = one(tmp_path / ".sessions", ".jsonl")
    holder = SessionFile.existing(source, lock=True)  # a run writing it, as far as flock knows
    try:
        done = run_main("", "--convert", str(source))
    finally:
        holder.close()
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        f"error: {source} is in use by another run; convert it once that run ends"
    ]
