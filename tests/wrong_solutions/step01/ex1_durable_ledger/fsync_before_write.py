"""Wrong: append syncs first and writes the line afterwards.

The sync makes the file durable as it was BEFORE this line: the new line is acknowledged
while it is still only in the page cache. The measurement is right.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message

EXPECTED_FAIL = "append 1 of 5: it synced before writing"


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        os.fsync(self._file.fileno())  # "sync, then append"
        return super().append(message)


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
