"""Exercise 01.1: make the ledger durable against a power cut, and measure what it costs.

When `write` returns, your line is in the kernel's page cache, not yet on the disk. A killed
process loses nothing (the kernel still has the line), but a power cut loses whatever the
kernel had not yet written out. `os.fsync(fd)` waits until the disk has the file's data.

1. Complete `DurableLedgerStore.append`: append the entry exactly as `LedgerStore.append`
   does, then call `os.fsync` on the file's descriptor (`self._file.fileno()`) before
   returning, so every acknowledged message is really on the disk. (`os.fdatasync`, which
   skips metadata such as the modification time, does the job too.)
2. Complete `measure_fsync_cost`: time `appends` appends to a plain `LedgerStore` and to a
   `DurableLedgerStore` (use `time.perf_counter`) and return the seconds per append of each.

Check it with `python -m exercises check 01.1` (or the last cells of the notebook). The check
watches the system calls your append makes, makes sure your measurement really measured
(it makes one sync cost a pretend second and expects your number to notice), then prints
what fsync cost on your machine. (On a RAM-backed folder such as /tmp on some systems fsync
is almost free: the number tells you where your files really live.) Stuck: `make hint ID=01.1`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        written = super().append(message)  # the line is now in the kernel's page cache
        os.fsync(self._file.fileno())  # ...and now on the disk: only then acknowledge it
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
