"""Measure what one append costs when the history already holds N messages.

Building a history append by append would cost O(N^2) for the snapshot, so each size gets a
store that starts with N messages, and only the next few appends are timed.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from messages import make_history, make_message
from stores import FILE_NAMES, create_store


@dataclass(frozen=True)
class AppendCost:
    kind: str
    history_length: int  # messages already stored before the timed append
    bytes_written: int  # bytes the append wrote (deterministic)
    seconds: float  # median wall time of one append (varies from run to run)


def measure_append_cost(
    kind: str, history_length: int, directory: Path, repeats: int = 5
) -> AppendCost:
    """Time `repeats` appends to a store that already holds `history_length` messages."""
    path = Path(directory) / f"{kind}-{history_length}-{FILE_NAMES[kind]}"
    store = create_store(kind, path, make_history(history_length))
    timings: list[float] = []
    written: list[int] = []
    try:
        for offset in range(repeats):
            message = make_message(history_length + offset)
            start = time.perf_counter()
            written.append(store.append(message))
            timings.append(time.perf_counter() - start)
    finally:
        store.close()
    # The median ignores the odd append the operating system chose to delay.
    return AppendCost(kind, history_length, written[0], statistics.median(timings))


def measure_all(
    kinds: tuple[str, ...], sizes: list[int], directory: Path, repeats: int = 5
) -> list[AppendCost]:
    """Every kind at every size, sizes in order."""
    return [
        measure_append_cost(kind, size, directory, repeats) for size in sizes for kind in kinds
    ]
