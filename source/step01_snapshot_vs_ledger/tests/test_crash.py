"""Real processes, really killed (small scale: the notebook runs the full experiment)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crash_experiment import CrashOutcome, crash_once, run_crash_trials, summarise
from ledger_store import read_ledger
from messages import make_history
from stores import read_history


@pytest.mark.parametrize("kind", ["ledger", "atomic"])
def test_crash_safe_stores_never_lose_an_acknowledged_message(kind: str, tmp_path: Path) -> None:
    outcomes = run_crash_trials(kind, runs=4, directory=tmp_path, prefill=300, max_delay=0.03)
    summary = summarise(outcomes)
    assert summary.unreadable == 0
    assert summary.lost_acknowledged == 0
    # Not vacuous: the writers did acknowledge appends past the prefill before they died...
    assert sum(o.acknowledged > 300 for o in outcomes) >= 2
    for outcome in outcomes:
        # ...and the file holds every acknowledged message, plus at most the one in flight.
        assert outcome.acknowledged <= outcome.recovered <= outcome.acknowledged + 1


def test_recovered_history_is_exactly_the_generated_prefix(tmp_path: Path) -> None:
    outcome = crash_once("ledger", tmp_path / "s.jsonl", prefill=50, delay=0.02)
    assert read_history("ledger", tmp_path / "s.jsonl") == make_history(outcome.recovered)


def test_naive_snapshot_can_be_caught_mid_rewrite(tmp_path: Path) -> None:
    # About half the kills land inside a rewrite (measured). Kill in small batches until one
    # does: usually 4 runs, and 32 runs in a row missing would be a real change of behaviour.
    outcomes: list[CrashOutcome] = []
    for batch in range(8):
        folder = tmp_path / str(batch)
        folder.mkdir()
        outcomes += run_crash_trials(
            "snapshot", runs=4, directory=folder, prefill=500, max_delay=0.03, seed=batch
        )
        if summarise(outcomes).unreadable:
            break
    assert summarise(outcomes).unreadable >= 1, f"no kill hit a rewrite in {len(outcomes)} runs"
    for outcome in outcomes:  # all or nothing: a broken file takes every message with it
        if outcome.readable:
            assert outcome.lost_acknowledged == 0
        else:
            assert outcome.recovered == 0
            assert outcome.lost_acknowledged == outcome.acknowledged >= 500


def test_the_outcome_reports_the_torn_tail_the_reader_sees(tmp_path: Path) -> None:
    outcome = crash_once("ledger-reopen", tmp_path / "s.jsonl", prefill=50, delay=0.01)
    assert outcome.torn_tail == read_ledger(tmp_path / "s.jsonl").torn_tail
    assert outcome.lost_acknowledged == 0


def test_a_sigkill_tears_long_lines_at_a_page_boundary(tmp_path: Path) -> None:
    # A 1 MB line takes long enough to write that about one kill in three lands inside it
    # (measured). Kill in small batches until one does; 32 misses in a row would be news.
    outcomes: list[CrashOutcome] = []
    for batch in range(8):
        outcomes += run_crash_trials(
            "ledger",
            runs=4,
            directory=tmp_path,
            prefill=0,
            max_delay=0.02,
            seed=batch,
            text_bytes=1_000_000,
            keep_files=False,
        )
        if summarise(outcomes).torn_tails:
            break
    torn = [o for o in outcomes if o.torn_tail]
    assert torn, f"no kill landed inside a long write in {len(outcomes)} runs"
    assert list(tmp_path.iterdir()) == []  # keep_files=False cleaned up
    for outcome in outcomes:
        assert outcome.readable and outcome.lost_acknowledged == 0
    # The kernel checks for a pending kill only between the pages it copies.
    assert all(o.file_size % 4096 == 0 for o in torn)
