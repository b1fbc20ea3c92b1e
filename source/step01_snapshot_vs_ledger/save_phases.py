"""Where one snapshot save spends its time, and the window in which a kill breaks the file.

`SnapshotStore.save` does four things in order: serialise the history, open the file with
"wb" (which truncates it), write and flush the bytes, close. A kill during the second or the
third leaves the file empty or partial; a kill during the first or the last is harmless.
This module times each phase with `time.perf_counter`, over many saves, so the window can be
drawn to scale on a time axis.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
from matplotlib.axes import Axes
from matplotlib.patches import Patch

from messages import make_history
from snapshot_store import SnapshotStore

PHASES = ("serialise", "open (truncates)", "write + flush", "close")
BREAKS_THE_FILE = ("open (truncates)", "write + flush")  # a kill here: empty or partial file
FIXED_COST = ("open (truncates)", "close")  # paid once per save, whatever the history's size
COLOURS = {
    "serialise": "#8ecae6",
    "open (truncates)": "#e63946",
    "write + flush": "#f4a261",
    "close": "#adb5bd",
}


@dataclass(frozen=True)
class SavePhases:
    history_length: int  # messages in the history being saved
    saves: int  # how many saves were timed
    seconds: dict[str, float]  # the median time of each phase, in PHASES order

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    def share(self, phases: tuple[str, ...]) -> float:
        """The fraction of a save spent in `phases`."""
        return sum(self.seconds[name] for name in phases) / self.total


def time_save_phases(history_length: int, directory: Path, saves: int = 200) -> SavePhases:
    """Time each phase of `SnapshotStore.save`, `saves` times, for a history of that length.

    The loop makes exactly the calls `save` makes, in the same order, with a clock reading
    between them (a test checks that it leaves the same bytes as `save`).
    """
    store = SnapshotStore(
        Path(directory) / f"phases-{history_length}.json", make_history(history_length)
    )  # a real file of that size to truncate
    samples: dict[str, list[float]] = {name: [] for name in PHASES}
    for _ in range(saves):
        t0 = time.perf_counter()
        data = orjson.dumps(store.messages)
        t1 = time.perf_counter()
        file = open(store.path, "wb")  # noqa: SIM115 (open and close are timed apart)
        t2 = time.perf_counter()
        file.write(data)
        file.flush()
        t3 = time.perf_counter()
        file.close()
        t4 = time.perf_counter()
        for name, seconds in zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            samples[name].append(seconds)
    # The median of each phase ignores the odd save the operating system chose to delay.
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return SavePhases(history_length, saves, medians)


def draw_save_phases(measured: list[SavePhases], ax: Axes) -> None:
    """One row per history length: a typical save's phases on a time axis (µs), with the
    window in which a kill leaves a broken file hatched."""
    for row, phases in enumerate(measured):
        start, window_start = 0.0, 0.0
        for name, seconds in phases.seconds.items():
            if name == BREAKS_THE_FILE[0]:
                window_start = start
            ax.broken_barh([(start, seconds * 1e6)], (row - 0.3, 0.6), color=COLOURS[name])
            start += seconds * 1e6
            if name == BREAKS_THE_FILE[-1]:
                ax.broken_barh(
                    [(window_start, start - window_start)],
                    (row - 0.42, 0.84),
                    facecolor="none",
                    edgecolor="black",
                    hatch="//",
                    linewidth=1.2,
                )
        ax.annotate(
            f"{start:,.0f} µs",
            (start, row),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=9,
        )
    ax.set_yticks(
        range(len(measured)), [f"{phases.history_length:,} messages" for phases in measured]
    )
    ax.set_ylim(-0.6, len(measured) - 0.4)
    ax.set_xlim(0, max(phases.total for phases in measured) * 1e6 * 1.15)
    ax.set_xlabel("µs since the save began (median of each phase)")
    legend = [Patch(color=COLOURS[name], label=name) for name in PHASES]
    legend.append(
        Patch(facecolor="none", edgecolor="black", hatch="//", label="a kill here breaks the file")
    )
    ax.legend(handles=legend, loc="lower right", fontsize=9)
