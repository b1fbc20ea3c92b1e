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

import os  # noqa: F401
import time  # noqa: F401
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message  # noqa: F401


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        # TODO: an append acknowledged only once its line is on the disk.
        raise NotImplementedError("DurableLedgerStore.append does not fsync yet")


def measure_fsync_cost(directory: Path, appends: int = 200) -> tuple[float, float]:
    """Seconds per append (plain ledger, durable ledger), each measured over `appends` appends."""
    # TODO: measure both ledgers.
    raise NotImplementedError("measure_fsync_cost is not written yet")
