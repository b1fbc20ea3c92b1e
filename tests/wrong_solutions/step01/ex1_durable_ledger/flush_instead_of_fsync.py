"""Wrong: append calls flush() instead of fsync, believing that flushing reaches the disk.

flush() empties Python's own buffer into the kernel (and this file has none: it is opened
with buffering=0). The line then sits in the kernel's page cache, exactly where a power cut
loses it. The measurement is right.
"""

from __future__ import annotations

import time
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message

EXPECTED_FAIL = "every time; append 1 of 5: it returned unsynced"


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        written = super().append(message)
        self._file.flush()  # "make sure it is written"
        return written


def measure_fsync_cost(directory: Path, appends: int = 200) -> tuple[float, float]:
    """Seconds per append (plain ledger, durable ledger), each measured over `appends` appends.

    Create each store with `LedgerStore.create(path)` / `DurableLedgerStore.create(path)` in
    `directory` and append `make_message(i)` for i in range(appends).
    """
    results = []
    for store_class in (LedgerStore, DurableLedgerStore):
        store = store_class.create(Path(directory) / f"{store_class.__name__}.jsonl")
        start = time.perf_counter()
        for i in range(appends):
            store.append(make_message(i))
        results.append((time.perf_counter() - start) / appends)
        store.close()
    return results[0], results[1]
