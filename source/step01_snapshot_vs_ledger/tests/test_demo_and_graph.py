"""The demo prints exactly expected-output.txt from any directory; the graph is the chain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import STEP

from entry_graph import entry_graph, network_text
from ledger_store import LedgerStore
from measure import AppendCost, measure_all, measure_append_cost, time_ratios
from messages import make_history, make_long_message, message_text


def test_demo_prints_expected_output_from_another_directory(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(STEP / "demo.py")], cwd=tmp_path, capture_output=True, check=True
    )
    assert done.stdout == (STEP / "expected-output.txt").read_bytes()
    assert list(tmp_path.iterdir()) == []  # it cleans up after itself


def test_entry_graph_is_a_chain_in_append_order(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with LedgerStore.create(path) as ledger:
        for message in make_history(4):
            ledger.append(message)
    graph = entry_graph(path)
    assert list(graph.edges) == [("e1", "e2"), ("e2", "e3"), ("e3", "e4")]
    text = network_text(graph)
    assert text.splitlines()[0].endswith("e1 user: question 1: what is 1…")
    assert len(text.splitlines()) == 4


def test_measure_reports_the_bytes_the_append_wrote(tmp_path: Path) -> None:
    small = measure_append_cost("snapshot", 10, tmp_path, repeats=2)
    large = measure_append_cost("snapshot", 1000, tmp_path, repeats=2)
    ledger = measure_append_cost("ledger", 1000, tmp_path, repeats=2)
    assert large.bytes_written > 50 * small.bytes_written
    assert ledger.bytes_written < small.bytes_written
    assert large.seconds > 0 and ledger.seconds > 0


def test_time_ratios_divide_at_each_size() -> None:
    costs = [
        AppendCost("snapshot", 10, 830, 0.5),
        AppendCost("ledger", 10, 137, 0.25),
        AppendCost("snapshot", 100, 7741, 3.0),
        AppendCost("ledger", 100, 141, 0.5),
    ]
    assert time_ratios(costs, "snapshot", "ledger") == {10: 2.0, 100: 6.0}


def test_a_long_message_has_the_text_size_asked_for() -> None:
    message = make_long_message(3, 10_000)
    assert message["role"] == "assistant"
    assert len(message_text(message)) == 10_000
    assert message_text(message).startswith(message_text(make_history(4)[3]))


def test_measure_all_gives_one_cost_per_kind_and_size_in_order(tmp_path: Path) -> None:
    costs = measure_all(("snapshot", "ledger-reopen"), [10, 100], tmp_path, repeats=2, rounds=2)
    assert [(c.kind, c.history_length) for c in costs] == [
        ("snapshot", 10),
        ("ledger-reopen", 10),
        ("snapshot", 100),
        ("ledger-reopen", 100),
    ]
    # the bytes of the first timed append, the same as a store measured on its own
    assert [c.bytes_written for c in costs] == [830, 137, 7741, 141]
    assert all(c.seconds > 0 for c in costs)
