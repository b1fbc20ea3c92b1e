"""Wrong: one fsync when the store closes, instead of one per append.

Cheaper, and the file is durable in the end; but every append is acknowledged before its
line is on the disk, so a power cut before close() loses messages the caller was told were
saved. The measurement is right (and flatters this store).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message

EXPECTED_FAIL = "every time; append 1 of 5: it returned unsynced"


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        return super().append(message)  # the sync happens once, in close()

    def close(self) -> None:
        os.fsync(self._file.fileno())
        super().close()


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
        store.close()
        results.append((time.perf_counter() - start) / appends)
    return results[0], results[1]
