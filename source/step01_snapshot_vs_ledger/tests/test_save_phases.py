"""The phase timer makes the same calls as SnapshotStore.save, and its picture is drawn."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # draw without a screen
import matplotlib.pyplot as plt  # noqa: E402

from messages import make_history  # noqa: E402
from save_phases import BREAKS_THE_FILE, PHASES, draw_save_phases, time_save_phases  # noqa: E402
from snapshot_store import SnapshotStore  # noqa: E402


def test_timing_the_phases_leaves_the_bytes_save_leaves(tmp_path: Path) -> None:
    phases = time_save_phases(30, tmp_path, saves=5)
    saved = SnapshotStore(tmp_path / "by-save.json", make_history(30))
    assert (tmp_path / "phases-30.json").read_bytes() == saved.path.read_bytes()
    assert list(phases.seconds) == list(PHASES)
    assert all(seconds > 0 for seconds in phases.seconds.values())
    assert 0 < phases.share(BREAKS_THE_FILE) < 1
    assert abs(phases.share(PHASES) - 1) < 1e-9


def test_the_picture_has_a_row_per_history_length(tmp_path: Path) -> None:
    measured = [time_save_phases(n, tmp_path, saves=3) for n in (10, 100)]
    fig, ax = plt.subplots()
    draw_save_phases(measured, ax)
    assert [label.get_text() for label in ax.get_yticklabels()] == ["10 messages", "100 messages"]
    # four phases and one hatched window per row
    assert len(ax.collections) == 2 * (len(PHASES) + 1)
    plt.close(fig)
