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

import os  # noqa: F401  (you will need os.fsync)
import time  # noqa: F401  (you will need time.perf_counter)
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        # TODO: write the entry like LedgerStore.append (hint: super()), then os.fsync.
        raise NotImplementedError("DurableLedgerStore.append does not fsync yet")


def measure_fsync_cost(directory: Path, appends: int = 200) -> tuple[float, float]:
    """Seconds per append (plain ledger, durable ledger), each measured over `appends` appends.

    Create each store with `LedgerStore.create(path)` / `DurableLedgerStore.create(path)` in
    `directory` and append `make_message(i)` for i in range(appends).
    """
    _ = make_message  # used by your solution
    # TODO: time both stores and return (plain_seconds_per_append, durable_seconds_per_append)
    raise NotImplementedError("measure_fsync_cost is not written yet")
