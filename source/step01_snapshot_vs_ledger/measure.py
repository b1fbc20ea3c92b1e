"""Measure what one append costs when the history already holds N messages.

Building a history append by append would cost O(N^2) for the snapshot, so each size gets a
store that starts with N messages, and only the next few appends are timed. The store kinds
are the names in `stores.py`: two snapshots, and two ledgers that differ only in whether the
file stays open between appends.
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
    kinds: tuple[str, ...],
    sizes: list[int],
    directory: Path,
    repeats: int = 5,
    rounds: int = 1,
) -> list[AppendCost]:
    """Every kind at every size, sizes in order: the median of `repeats * rounds` appends each.

    Each round times `repeats` appends in a row to every store in turn. With several rounds,
    a busy moment of the machine (another program, the kernel flushing to disk) spoils a few
    appends of many stores, which the medians ignore, instead of all the appends of the one
    store that happened to be measured then.
    """
    stores = {
        (kind, size): create_store(
            kind, Path(directory) / f"{kind}-{size}-{FILE_NAMES[kind]}", make_history(size)
        )
        for size in sizes
        for kind in kinds
    }
    timings: dict[tuple[str, int], list[float]] = {key: [] for key in stores}
    written: dict[tuple[str, int], int] = {}
    try:
        for round_number in range(rounds):
            for (kind, size), store in stores.items():
                for offset in range(repeats):
                    message = make_message(size + round_number * repeats + offset)
                    start = time.perf_counter()
                    bytes_written = store.append(message)
                    timings[kind, size].append(time.perf_counter() - start)
                    written.setdefault((kind, size), bytes_written)  # the first append's
    finally:
        for store in stores.values():
            store.close()
    return [
        AppendCost(kind, size, written[kind, size], statistics.median(timings[kind, size]))
        for (kind, size) in stores
    ]


def time_ratios(costs: list[AppendCost], slower: str, faster: str) -> dict[int, float]:
    """At each history length: how many times the time of a `faster` append a `slower` one took."""
    seconds = {(c.kind, c.history_length): c.seconds for c in costs}
    sizes = sorted({c.history_length for c in costs})
    return {size: seconds[slower, size] / seconds[faster, size] for size in sizes}
