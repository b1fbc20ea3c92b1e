# >>file prod
"""One suite for every store behind storage.py: what its docstring promises, held through a
Session, and the faults, done for real to a real process (a SIGKILL at random moments, a full
disk, a second writer, a umask that would let others read).

A store of your own passes it by adding one entry to STORES: a class with `suffix`, `new` and
`existing`, importable from the step folder (the crash tests' child imports it by name).
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path

import orjson
import pytest
from harness import CREATED_AT, stop_signals_at_default

from entries import build_context, path_to_leaf
from entry_index import EntryIndex
from messages import user_text
from session import Session
from session_file import SessionFile
from session_format import SessionInUse, UnusableSessionFile
from sqlite_store import SqliteStore
from storage import Store

STORES: list[Store] = [SessionFile, SqliteStore]
STEP_DIR = Path(__file__).resolve().parent.parent
CREATED = CREATED_AT


@pytest.fixture(params=STORES, ids=lambda store: store.__name__)
def store(request: pytest.FixtureRequest) -> Store:
    return request.param


def create(store: Store, folder: Path, name: str = "s", *, lock: bool = False) -> Session:
    return Session.create(
        folder, session_id=name, created_at=CREATED, cwd=str(folder), store=store, lock=lock
    )


def stored_lines(store: Store, path: Path) -> list[bytes]:
    """Every line the store holds after its header, as it gives them (a whole read)."""
    storage = store.existing(path)
    try:
        with storage.reading() as lines:
            assert lines.whole
            return [line for batch in lines.batches for line in batch]  # type: ignore[misc]
    finally:
        storage.close()


def walk(session: Session) -> list[str]:
    """The ids on the path from the session's leaf, first entry first."""
    path = path_to_leaf(session.entries, session.leaf_id)
    assert path.chain_break is None
    return [entry["id"] for entry in path.entries]


def texts(session: Session) -> list[str]:
    context = build_context(session.entries, session.leaf_id)
    return [message["content"][0]["text"] for message in context.messages]  # type: ignore[typeddict-item]


# --- What storage.py promises, through a Session ----------------------------------------------


def test_a_run_that_saves_nothing_leaves_nothing(store: Store, tmp_path: Path) -> None:
    session = create(store, tmp_path / "sessions", lock=True)
    assert not session.exists and not session.locked
    session.close()
    assert not (tmp_path / "sessions").exists()


def test_an_entry_is_kept_as_the_bytes_appended(store: Store, tmp_path: Path) -> None:
    session = create(store, tmp_path)
    written = [
        session.append_message(user_text(text))
        for text in ("hello", 'é \u2028 \x85 \\n "quoted"', "x" * 100_000, "")
    ]
    session.close()
    assert stored_lines(store, session.path) == [orjson.dumps(entry) for entry in written]
    storage = store.existing(session.path)
    with storage.reading() as lines:
        assert lines.header == session.header  # the header, once, as created
    storage.close()


def test_the_conversation_is_the_path_from_the_leaf(store: Store, tmp_path: Path) -> None:
    session = create(store, tmp_path)
    for text in ("one", "two", "three"):
        session.append_message(user_text(text))
    session.append_branch("e1")  # back to "one": "two" and "three" stay, off the path
    session.append_message(user_text("two again"))
    session.close()
    resumed = Session.open(session.path, store=store)
    assert resumed.skipped == 0
    assert texts(resumed.session) == ["one", "two again"]  # a leaf move survives a resume
    assert walk(resumed.session) == ["e1", "e4", "e5"]
    resumed.session.close()


def test_ids_stay_unique_across_runs_and_branches(store: Store, tmp_path: Path) -> None:
    session = create(store, tmp_path)
    session.append_message(user_text("first run"))
    session.close()
    for run in range(3):
        resumed = Session.open(session.path, store=store, lock=True).session
        resumed.append_message(user_text(f"run {run}"))
        resumed.append_branch("e1")
        resumed.append_message(user_text(f"fork {run}"))
        resumed.close()
    ids = [orjson.loads(line)["id"] for line in stored_lines(store, session.path)]
    assert len(ids) == len(set(ids)) == 1 + 3 * 3


def test_a_resume_after_a_compaction_gives_what_a_whole_read_gives(
    store: Store, tmp_path: Path
) -> None:
    session = create(store, tmp_path)
    for number in range(40):
        session.append_message(user_text(f"old {number}"))
    kept = session.append_message(user_text("kept"))
    session.append_message(user_text("kept too"))
    session.append_compaction("forty old messages", kept["id"])
    session.append_message(user_text("after"))
    session.close()
    storage = store.existing(session.path)
    with storage.reading(resume=True) as lines:
        first = next(line for batch in lines.batches for line in batch)
        if not lines.whole:  # a store may give only the kept part: then from its first entry
            assert first == orjson.dumps(kept)
    storage.close()
    whole = EntryIndex()  # the walk over a whole read, as /tree's read_all does it
    whole.add_lines(stored_lines(store, session.path))
    resumed = Session.open(session.path, store=store)
    assert resumed.context == build_context(whole, whole.last_usable())
    assert texts(resumed.session)[1:] == ["kept", "kept too", "after"]
    resumed.session.read_all()  # and the rest is there when asked for
    assert len(resumed.session.entries) == 44
    resumed.session.close()


def test_a_copy_glued_on_the_end_is_no_resume_point(store: Store, tmp_path: Path) -> None:
    """A backup appended to its own session (cat old >> new): the copy's compaction and kept
    part are at the end, and a resume that trusted them would give the old conversation, then
    write ids the store holds already. A resume gives what a whole read gives, every time."""
    session = create(store, tmp_path)
    for text in ("one", "two", "kept", "kept too"):
        session.append_message(user_text(text))
    session.append_compaction("one and two", "e3")
    for text in ("three", "four"):
        session.append_message(user_text(text))
    session.close()
    lines = stored_lines(store, session.path)
    storage = store.existing(session.path)
    for line in lines[2:5]:  # from the first kept entry through the compaction, once more
        storage.append(line + b"\n")
    storage.close()
    for run in range(3):  # and it stays right after new turns, and another compaction
        whole = EntryIndex()
        whole.add_lines(stored_lines(store, session.path))
        resumed = Session.open(session.path, store=store, lock=True)
        assert resumed.context == build_context(whole, whole.last_usable())
        assert texts(resumed.session)[-1] == ["four", "five 0", "five 1"][run]
        added = resumed.session.append_message(user_text(f"five {run}"))
        assert not whole.is_taken(added["id"])  # a new id, never one the store holds
        if run == 1:  # lines out of order before it: it vouches for nothing (no `at`)
            assert "at" not in resumed.session.append_compaction("all before", added["id"])
        resumed.session.close()


def test_a_kept_part_that_begins_damaged_is_no_resume_point(store: Store, tmp_path: Path) -> None:
    """A hand-made compaction: its `at` is right, though the lines before it are out of order
    (the writer never records `at` then), and it keeps from a damaged line that repeats an id.
    A resume from there would give another conversation than a whole read, then repeat ids."""
    session = create(store, tmp_path)
    for number in range(1, 10):
        session.append_message(user_text(f"m{number}"))
    session.close()
    storage = store.existing(session.path)
    storage.append(b'{"type":"message","id":"e3","parentId":"e2","message":{"role":BROKEN\n')
    compaction = {"type": "compaction", "id": "e4", "parentId": "e3", "summary": "S",
                  "firstKeptId": "e3", "at": storage.position()}  # fmt: skip
    storage.append(orjson.dumps(compaction) + b"\n")
    storage.close()
    whole = EntryIndex()
    whole.add_lines(stored_lines(store, session.path))
    resumed = Session.open(session.path, store=store)
    assert resumed.context == build_context(whole, whole.last_usable())
    assert texts(resumed.session) == [f"m{number}" for number in range(1, 10)]
    assert resumed.session.append_message(user_text("next"))["id"] == "e10"
    resumed.session.close()


def test_an_unknown_kind_is_kept_in_the_tree_and_skipped(store: Store, tmp_path: Path) -> None:
    session = create(store, tmp_path)
    session.append_message(user_text("before"))
    session.append_entry("from_a_newer_program", {"payload": [1, 2]})
    session.append_message(user_text("after"))
    session.close()
    resumed = Session.open(session.path, store=store)
    assert resumed.skipped == 0
    assert walk(resumed.session) == ["e1", "e2", "e3"]  # the walk goes through it
    assert texts(resumed.session) == ["before", "after"]  # the model is not given it
    resumed.session.close()


def test_what_another_writer_added_is_seen(store: Store, tmp_path: Path) -> None:
    first = create(store, tmp_path)
    first.append_message(user_text("one"))
    second = Session.open(first.path, store=store).session  # no lock: a script, a tool
    second.append_message(user_text("the other's"))
    third = first.append_message(user_text("two"))  # must not take e2 again
    assert third["id"] == "e3" and third["parentId"] == "e1"
    resumed = Session.open(first.path, store=store)
    assert resumed.session.entries.ids() == ["e1", "e2", "e3"]
    for session in (first, second, resumed.session):
        session.close()


@pytest.mark.parametrize(
    "content", [b"", b"not a session at all\n", b"SQLite format 3\x00" + bytes(100)]
)
def test_a_file_that_is_no_session_is_named(store: Store, tmp_path: Path, content: bytes) -> None:
    path = tmp_path / f"odd{store.suffix}"
    path.write_bytes(content)
    with pytest.raises(UnusableSessionFile) as raised:
        Session.open(path, store=store, lock=True)
    assert raised.value.path == path and raised.value.reason.startswith("not a session")
    assert path.read_bytes() == content  # refused, and never written


# --- The faults, for real --------------------------------------------------------------------

# A child that opens the session (or creates it), takes the lock, and appends messages of
# varied sizes, reporting each append that returned: its id and its line's hash. With a file
# size limit (argv[6]), it stops at the first SessionError and reports it.
CHILD = r"""
import hashlib, importlib, random, resource, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import orjson
from messages import user_text
from session import Session, SessionError
module, name, folder, seed, limit = sys.argv[2:7]
store = getattr(importlib.import_module(module), name)
path = Path(folder) / ("crash" + store.suffix)
if path.exists():
    session = Session.open(path, store=store, lock=True).session
else:
    session = Session.create(folder, session_id="crash", created_at="2026-01-01T00:00:00Z",
                             cwd=folder, store=store, lock=True)
if int(limit) >= 0:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, no signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), int(limit)))
sizes = random.Random(int(seed))
while True:
    text = seed + " " + "x" * sizes.choice((10, 300, 3000, 40000))
    try:
        entry = session.append_message(user_text(text))
    except SessionError as error:
        print("error", type(error).__name__, error, flush=True)
        break
    print(entry["id"], hashlib.sha256(orjson.dumps(entry)).hexdigest(), flush=True)
"""


def start_child(store: Store, folder: Path, seed: int, limit: int = -1) -> subprocess.Popen[str]:
    name = store.__name__  # type: ignore[attr-defined]
    arguments = [str(STEP_DIR), store.__module__, name, str(folder), str(seed), str(limit)]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=stop_signals_at_default,  # a SIGKILL is a SIGKILL; the others at default
    )
    watchdog = threading.Timer(60, child.kill)
    watchdog.daemon = True
    watchdog.start()
    return child


def reported(output: str) -> dict[str, str]:
    """The appends a child said returned: id -> hash of the line (whole lines only)."""
    return dict(re.findall(r"^(e\d+) ([0-9a-f]{64})\n", output, re.MULTILINE))


def by_id(lines: list[bytes]) -> dict[str, str]:
    found = {}
    for line in lines:
        with suppress(orjson.JSONDecodeError, TypeError, KeyError):
            found.setdefault(orjson.loads(line)["id"], hashlib.sha256(line).hexdigest())
    return found


def check_kept(store: Store, path: Path, before: list[bytes], said: dict[str, str]) -> list[bytes]:
    """Every reported append is there, intact; nothing read before changed; it still opens."""
    now = stored_lines(store, path)
    assert now[: len(before)] == before, "an entry that was there before the kill changed"
    held = by_id(now)
    lost = {key for key, digest in said.items() if held.get(key) != digest}
    assert not lost, f"reported appends lost or changed: {sorted(lost)}"
    resumed = Session.open(path, store=store, lock=True)
    assert set(said) <= set(walk(resumed.session))  # on the path from the leaf, unbroken
    resumed.session.close()
    return now


# Where a kill lands differs by store, and the same test reaches each kind of moment. The JSONL
# store appends a line in one write(): a kill lands between writes, or (a long line) inside
# one, and what it can leave is a fragment at the end, which the next append ends with a `\n`
# of its own: the fragment stays, a damaged line, and nothing before it changes. The SQLite
# store's moments are the statements of an append's transaction and its COMMIT (the WAL frames
# written, the commit frame not yet), and a checkpoint: the transaction is then absent, and
# the next open recovers the WAL. Lines of 40 kB make both kinds of moment long enough to hit.
def test_a_kill_at_any_moment_loses_no_reported_append(store: Store, tmp_path: Path) -> None:
    chance = random.Random(20260101)
    path = tmp_path / f"crash{store.suffix}"
    before: list[bytes] = []
    for seed in range(10):
        child = start_child(store, tmp_path, seed)
        output = ""
        for _ in range(chance.randint(1, 25)):  # the child is appending: now a random moment
            line = child.stdout.readline()  # type: ignore[union-attr]
            assert line, child.communicate()[1]
            output += line
        time.sleep(chance.uniform(0, 0.02))
        child.send_signal(signal.SIGKILL)
        rest, err = child.communicate(timeout=30)
        assert child.returncode == -signal.SIGKILL, err
        before = check_kept(store, path, before, reported(output + rest))
    session = Session.open(path, store=store, lock=True).session  # and it takes new appends
    last = session.append_message(user_text("after ten kills"))
    session.close()
    assert walk(Session.open(path, store=store).session)[-1] == last["id"]


def test_a_full_disk_raises_and_loses_nothing_before_it(store: Store, tmp_path: Path) -> None:
    session = create(store, tmp_path, "crash")
    for text in ("one", "two"):
        session.append_message(user_text(text))
    session.close()
    before = stored_lines(store, session.path)
    largest = max(item.stat().st_size for item in tmp_path.iterdir())
    child = start_child(store, tmp_path, 7, limit=largest + 300_000)
    output, err = child.communicate(timeout=60)
    assert child.returncode == 0 and err == "", err  # no traceback: one SessionError
    assert output.splitlines()[-1].startswith("error SessionError cannot write")
    check_kept(store, session.path, before, reported(output))
    resumed = Session.open(session.path, store=store).session  # with room again, it goes on
    resumed.append_message(user_text("room again"))
    resumed.close()


def test_a_first_save_the_disk_refuses_leaves_nothing(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    output, err = start_child(store, folder, 3, limit=0).communicate(timeout=60)
    assert output.startswith("error SessionError cannot write") and err == "", err
    assert list(folder.iterdir()) == []


# The child that asks for the lock a test holds: what it gets, by name.
SECOND_WRITER = r"""
import importlib, sys
sys.path.insert(0, sys.argv[1])
from session import Session
store = getattr(importlib.import_module(sys.argv[2]), sys.argv[3])
try:
    Session.open(sys.argv[4], store=store, lock=True)
    print("opened")
except Exception as error:
    print(type(error).__name__)
"""


def second_writer(store: Store, path: Path) -> str:
    name = store.__name__  # type: ignore[attr-defined]
    arguments = [str(STEP_DIR), store.__module__, name, str(path)]
    done = subprocess.run(
        [sys.executable, "-c", SECOND_WRITER, *arguments],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.strip() or done.stderr


def test_one_writer_whatever_else_opens_and_closes_the_file(store: Store, tmp_path: Path) -> None:
    holder = create(store, tmp_path, lock=True)
    holder.append_message(user_text("mine"))  # created, and locked from its first byte
    assert holder.locked
    # Stop here: a POSIX lock (fcntl, SQLite's own) is the process's, and is dropped when the
    # process closes any descriptor of the file. The store's lock must survive both of these.
    open(holder.path, "rb").close()
    other = sqlite3.connect(holder.path)
    with suppress(sqlite3.DatabaseError):  # a JSONL file is no database: it opens all the same
        other.execute("SELECT count(*) FROM sqlite_master").fetchone()
    other.close()
    with pytest.raises(SessionInUse):
        Session.open(holder.path, store=store, lock=True)
    assert second_writer(store, holder.path) == "SessionInUse"
    holder.append_message(user_text("still mine"))
    holder.close()
    assert second_writer(store, holder.path) == "opened"
    resumed = Session.open(holder.path, store=store, lock=True)
    assert texts(resumed.session) == ["mine", "still mine"]
    resumed.session.close()


def test_a_new_session_is_private_whatever_the_umask(store: Store, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    was = os.umask(0o022)
    try:
        session = create(store, folder, lock=True)
        session.append_message(user_text("a secret"))
        first = {item.name: stat.S_IMODE(item.stat().st_mode) for item in folder.iterdir()}
        session.close()
        resumed = Session.open(session.path, store=store, lock=True).session  # a later run
        resumed.append_message(user_text("another"))
        later = {item.name: stat.S_IMODE(item.stat().st_mode) for item in folder.iterdir()}
        resumed.close()
    finally:
        os.umask(was)
    assert session.path.name in first
    # Each run's files on their own: a -wal the first run left 0644 must not hide behind the
    # 0600 one a later run makes (the database's -wal and -shm are checked too).
    for made in (first, later):
        assert made == dict.fromkeys(made, 0o600), made
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
