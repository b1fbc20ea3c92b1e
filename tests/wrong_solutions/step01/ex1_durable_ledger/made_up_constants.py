"""Wrong: measure_fsync_cost returns numbers written down, not measured.

The append is right; the "measurement" returns two plausible constants (a few µs plain, a few
ms with fsync) without creating a store or timing anything. The check must see that nothing
was measured, instead of printing these numbers as measured on the student's machine.
"""

from __future__ import annotations

import os
import time  # noqa: F401  (you will need time.perf_counter)
from pathlib import Path

from ledger_store import LedgerStore
from messages import Message, make_message

EXPECTED_FAIL = "appends=10: it left 0 whole ledgers in the folder"


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
    _ = make_message
    return 0.000003, 0.004  # "about what it costs on a laptop"
