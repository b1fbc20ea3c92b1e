"""Wrong: measure_fsync_cost returns the time of all the appends, not the time of one.

The stores, the files and the syncs are all real; the result is just never divided by
`appends`, so it says "seconds per append" and means "seconds for all of them".
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message

EXPECTED_FAIL = "durable 10 s: divide by appends"


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
        start = time.perf_counter()
        for i in range(appends):
            store.append(make_message(i))
        results.append(time.perf_counter() - start)
        store.close()
    return results[0], results[1]
