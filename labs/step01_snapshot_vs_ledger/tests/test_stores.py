"""Both stores give back exactly what was appended; each writes what its design says."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

import orjson
import pytest

from ledger_store import (
    IncompleteWrite,
    LedgerStore,
    ReopeningLedgerStore,
    UnreadableLedger,
    read_ledger,
)
from messages import make_history, text_message
from snapshot_store import AtomicSnapshotStore, SnapshotStore, UnreadableSnapshot, read_snapshot
from stores import STORE_KINDS, UnreadableHistory, create_store, read_history

TRICKY = [
    text_message("user", 'line one\nline two, "quoted", a tab\t and a backslash \\'),
    text_message("assistant", "non-ASCII: 你好, é, ü, emoji 🙂, and a ] } , to fool a parser"),
    text_message("user", ""),
]


@pytest.mark.parametrize("kind", STORE_KINDS)
def test_round_trip_keeps_every_message_exactly(kind: str, tmp_path: Path) -> None:
    history = make_history(5) + TRICKY
    store = create_store(kind, tmp_path / "history", [])
    for message in history:
        store.append(message)
    store.close()
    assert read_history(kind, tmp_path / "history") == history


def test_a_ledger_entry_is_always_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with LedgerStore.create(path) as ledger:
        for message in TRICKY:
            ledger.append(message)
    assert path.read_bytes().count(b"\n") == 1 + len(TRICKY)


def test_ledger_file_has_the_contracts_shape(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with LedgerStore.create(
        path, session_id="s1", created_at="2026-01-01T00:00:00Z", cwd="/x"
    ) as ledger:
        for message in make_history(3):
            ledger.append(message)
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert lines[0] == {
        "type": "header",
        "version": 1,
        "id": "s1",
        "createdAt": "2026-01-01T00:00:00Z",
        "cwd": "/x",
    }
    assert [(e["type"], e["id"], e["parentId"]) for e in lines[1:]] == [
        ("message", "e1", None),
        ("message", "e2", "e1"),
        ("message", "e3", "e2"),
    ]
    assert lines[1]["message"] == make_history(1)[0]


def test_ledger_appends_without_touching_old_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    ledger = LedgerStore.create(path)
    before = path.read_bytes()
    for message in make_history(20):
        written = ledger.append(message)
        after = path.read_bytes()
        assert after.startswith(before)
        assert len(after) - len(before) == written  # it wrote what it says, nothing else
        before = after
    ledger.close()


def test_snapshot_rewrites_everything_and_ledger_only_the_new_line(tmp_path: Path) -> None:
    history = make_history(200)
    snapshot = SnapshotStore(tmp_path / "h.json", history[:-1])
    ledger = create_store("ledger", tmp_path / "s.jsonl", history[:-1])
    snapshot_cost = snapshot.append(history[-1])
    ledger_cost = ledger.append(history[-1])
    ledger.close()
    assert snapshot_cost == (tmp_path / "h.json").stat().st_size
    assert ledger_cost < 200 < 50 * ledger_cost < snapshot_cost


def test_ledger_write_is_one_system_call_per_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = LedgerStore.create(tmp_path / "s.jsonl")
    writes: list[bytes] = []
    real_file = ledger._file

    class CountingFile:
        def write(self, data: bytes) -> int:
            writes.append(bytes(data))
            return real_file.write(data)

        def close(self) -> None:
            real_file.close()

    monkeypatch.setattr(ledger, "_file", CountingFile())
    for message in make_history(3):
        ledger.append(message)
    ledger.close()
    assert len(writes) == 3 and all(w.endswith(b"\n") and w.count(b"\n") == 1 for w in writes)


def test_atomic_snapshot_leaves_no_temporary_file(tmp_path: Path) -> None:
    store = AtomicSnapshotStore(tmp_path / "h.json", make_history(3))
    store.append(make_history(4)[-1])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json"]
    assert read_snapshot(tmp_path / "h.json") == make_history(4)


def test_snapshot_can_edit_history_in_place(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "h.json", make_history(3))
    store.replace(1, text_message("assistant", "edited"))
    assert read_snapshot(tmp_path / "h.json")[1] == text_message("assistant", "edited")


def test_ledger_offers_no_way_to_edit() -> None:
    assert not [name for name in dir(LedgerStore) if name in {"replace", "edit", "update", "save"}]


def test_empty_files_are_unreadable_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(UnreadableSnapshot, match="empty"):
        read_snapshot(tmp_path / "empty")
    with pytest.raises(UnreadableLedger, match="empty"):
        read_ledger(tmp_path / "empty")
    with pytest.raises(UnreadableHistory):
        read_history("ledger", tmp_path / "missing")


def test_ledger_reader_refuses_unknown_version(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"header","version":99,"id":"x"}\n')
    with pytest.raises(UnreadableLedger, match="version 99"):
        read_ledger(path)


def test_ledger_reader_skips_bad_lines_and_unknown_kinds(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with LedgerStore.create(path) as ledger:
        ledger.append(make_history(1)[0])
        ledger.write_entry({"type": "note", "id": "e2", "parentId": "e1", "text": "future"})
    with open(path, "ab") as file:
        file.write(b"not json\n\n[1, 2]\n")
    reading = read_ledger(path)
    assert reading.messages == make_history(1)
    assert [e["type"] for e in reading.other_entries] == ["note"]
    assert reading.bad_lines == 3 and not reading.torn_tail


def test_reopening_ledger_writes_the_same_bytes_and_holds_nothing_open(tmp_path: Path) -> None:
    header = {"session_id": "s1", "created_at": "2026-01-01T00:00:00Z", "cwd": "/x"}
    kept_open = LedgerStore.create(tmp_path / "kept.jsonl", **header)
    reopening = ReopeningLedgerStore.create(tmp_path / "reopen.jsonl", **header)
    assert reopening._file.closed  # nothing is held open between appends...
    for message in make_history(5):
        assert kept_open.append(message) == reopening.append(message)
        assert reopening._file.closed  # ...nor after one
    kept_open.close()
    reopening.close()
    assert (tmp_path / "kept.jsonl").read_bytes() == (tmp_path / "reopen.jsonl").read_bytes()


class ShortWritingFile:
    """What the kernel does at a size limit or on a full disk: it takes only part of a write."""

    def __init__(self, real: BinaryIO) -> None:
        self.real = real

    def write(self, data: bytes) -> int:
        return self.real.write(data[: len(data) // 2])

    def close(self) -> None:
        self.real.close()


def test_a_short_write_fails_the_append_and_is_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = LedgerStore.create(tmp_path / "s.jsonl")
    ledger.append(make_history(1)[0])
    monkeypatch.setattr(ledger, "_file", ShortWritingFile(ledger._file))
    with pytest.raises(IncompleteWrite, match="of the line were written"):
        ledger.append(make_history(2)[1])
    ledger.close()
    assert (ledger.entry_count, ledger.last_id) == (1, "e1")  # the torn line was not counted
    reading = read_ledger(tmp_path / "s.jsonl")
    assert reading.torn_tail and reading.messages == make_history(1)
