"""Exercise 01.1: a ledger whose every acknowledged append survives a power cut, and its cost.

Fill-in exercise, about 20 minutes.

When `write` returns, a line is in the kernel's page cache, not yet on the disk. A killed
process loses nothing (the kernel still has the line); a power cut loses whatever the kernel had
not written out yet. Make `DurableLedgerStore` a ledger that acknowledges a message only once it
is on the disk, and measure what that costs.

What the check holds you to (it spies on `os.fsync` and `os.fdatasync`, and on the clocks):

- `DurableLedgerStore.append` writes the entry as `LedgerStore.append` does (five appends read
  back as e1 to e5, the same messages), and before it returns, that very file has been synced
  with the line in it. A sync before the write, or of another file, is no sync of the line.
- `measure_fsync_cost(directory, appends)` returns `(plain, durable)`: the seconds per append
  of a `LedgerStore` and of a `DurableLedgerStore`, each over `appends` appends of
  `make_message(0)`, `make_message(1)`, ... to a ledger of its own, left in `directory` (the
  check finds both there, and counts each one's syncs). The check makes one sync cost a
  pretend second: your durable number must then be about one second above the plain one, so
  your clock must count the time the process waits for the disk.

The PASS line then says what a sync cost on your machine. (On a RAM-backed folder, such as /tmp
on some systems, almost nothing: the number tells you where your files really live.) Check it
with `python -m exercises check 01.1` or the notebook; stuck: `make hint ID=01.1`.
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
