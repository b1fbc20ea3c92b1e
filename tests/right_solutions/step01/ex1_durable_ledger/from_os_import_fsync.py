"""Right: fsync imported by name (`from os import fsync`), and given the file object itself.

os.fsync accepts a descriptor or any object with fileno(). A check that patched `os.fsync`
after this module was loaded would never see these calls; this variant keeps the check
honest about import styles.
"""

from __future__ import annotations

from os import fsync
from pathlib import Path
from time import perf_counter

from ledger_store import LedgerStore
from messages import Message, make_message


class DurableLedgerStore(LedgerStore):
    """A ledger whose append returns only once the new line is on the disk."""

    def append(self, message: Message) -> int:
        written = super().append(message)
        fsync(self._file)
        return written


def measure_fsync_cost(directory: Path, appends: int = 200) -> tuple[float, float]:
    """Seconds per append (plain ledger, durable ledger), each measured over `appends` appends."""
    results = []
    for store_class in (LedgerStore, DurableLedgerStore):
        with store_class.create(Path(directory) / f"{store_class.__name__}.jsonl") as store:
            start = perf_counter()
            for i in range(appends):
                store.append(make_message(i))
            results.append((perf_counter() - start) / appends)
    return results[0], results[1]
