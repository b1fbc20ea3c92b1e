"""A write cut halfway: the snapshot loses everything, the ledger only the torn line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger_store import read_ledger
from messages import make_history
from snapshot_store import UnreadableSnapshot, read_snapshot
from stores import read_history
from torn_write import tear_last_append, tear_with_size_limit

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


# A real writer process against a real file size limit (RLIMIT_FSIZE): the kernel cuts the
# write that crosses it. The header records a fixed directory, so the cut is the same byte.
LIMIT = 1000


@pytest.mark.parametrize("kind", ["ledger", "ledger-reopen"])
def test_a_size_limit_tears_a_ledger_line_and_costs_no_acknowledged_message(
    kind: str, tmp_path: Path
) -> None:
    stopped = tear_with_size_limit(kind, tmp_path, LIMIT)
    outcome = stopped.outcome
    assert outcome.file_size == LIMIT  # the kernel wrote what fitted, and no more
    assert outcome.readable and outcome.torn_tail
    assert outcome.recovered == outcome.acknowledged == 6  # 6 lines fit whole, the 7th did not
    assert outcome.lost_acknowledged == 0  # the torn append failed, so it was never promised
    assert "only 115 of 135 bytes of the line were written" in stopped.error


def test_a_size_limit_breaks_the_naive_snapshot_and_not_the_atomic_one(tmp_path: Path) -> None:
    naive = tear_with_size_limit("snapshot", tmp_path, LIMIT).outcome
    assert naive.file_size == LIMIT and not naive.readable  # truncated, then cut mid-array
    assert naive.lost_acknowledged == naive.acknowledged > 0
    atomic = tear_with_size_limit("atomic", tmp_path, LIMIT)
    assert atomic.outcome.readable and atomic.outcome.lost_acknowledged == 0
    assert "File too large" in atomic.error
