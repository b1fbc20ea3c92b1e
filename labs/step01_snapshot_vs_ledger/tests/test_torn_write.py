"""A write cut halfway: the snapshot loses everything, the ledger only the torn line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger_store import read_ledger
from messages import make_history
from snapshot_store import UnreadableSnapshot, read_snapshot
from stores import read_history
from torn_write import tear_last_append

HISTORY = make_history(8)


@pytest.mark.parametrize("keep", [0.0, 0.01, 0.5, 0.99])
def test_torn_snapshot_does_not_parse(tmp_path: Path, keep: float) -> None:
    path = tear_last_append("snapshot", tmp_path, HISTORY, keep)
    with pytest.raises(UnreadableSnapshot):
        read_snapshot(path)


@pytest.mark.parametrize("keep", [0.0, 0.01, 0.5, 0.99])
def test_torn_ledger_keeps_every_complete_line(tmp_path: Path, keep: float) -> None:
    path = tear_last_append("ledger", tmp_path, HISTORY, keep)
    reading = read_ledger(path)
    assert reading.messages == HISTORY[:-1]
    assert reading.torn_tail == (keep > 0)
    assert reading.bad_lines == 0


def test_atomic_snapshot_keeps_the_previous_history(tmp_path: Path) -> None:
    path = tear_last_append("atomic", tmp_path, HISTORY, 0.5)
    assert read_history("atomic", path) == HISTORY[:-1]
    assert path.with_name(path.name + ".tmp").exists()  # the half-written copy, harmless


def test_a_ledger_line_cut_at_every_byte_never_costs_more_than_itself(tmp_path: Path) -> None:
    path = tear_last_append("ledger", tmp_path, HISTORY, 1.0)
    data = path.read_bytes()
    last_line_start = data.rstrip(b"\n").rfind(b"\n") + 1
    for cut in range(last_line_start, len(data)):
        path.write_bytes(data[:cut])
        assert read_ledger(path).messages == HISTORY[:-1]
