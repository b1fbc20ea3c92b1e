"""Wrong: measure_fsync_cost times with time.process_time, a clock of CPU work.

While fsync waits for the disk, the process uses no CPU, so this clock does not move: the
durable store looks as cheap as the plain one, and the measurement misses the very cost it
was written to show.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message

EXPECTED_FAIL = "s: its clock misses syncs"


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        written = super().append(message)
        os.fsync(self._file.fileno())
        return written


def measure_fsync_cost(directory: Path, appends: int = 200) -> tuple[float, float]:
    """Seconds per append (plain ledger, durable ledger), each measured over `appends` appends.

    Create each store with `LedgerStore.create(path)` / `DurableLedgerStore.create(path)` in
    `directory` and append `make_message(i)` for i in range(appends).
    """
    results = []
    for store_class in (LedgerStore, DurableLedgerStore):
        store = store_class.create(Path(directory) / f"{store_class.__name__}.jsonl")
        start = time.process_time()  # "more precise: only this process's time"
        for i in range(appends):
            store.append(make_message(i))
        results.append((time.process_time() - start) / appends)
        store.close()
    return results[0], results[1]
