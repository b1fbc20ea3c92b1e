"""The demo prints exactly expected-output.txt from any directory; the graph is the chain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import STEP

from entry_graph import entry_graph, network_text
from ledger_store import LedgerStore
from measure import measure_append_cost
from messages import make_history


def test_demo_prints_expected_output_from_another_directory(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(STEP / "demo.py")], cwd=tmp_path,
                          capture_output=True, check=True)
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
