"""Check 01.1: every append fsyncs the session file after writing its line, and nothing else
changes: the file still reads back as the same ledger."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import ModuleType

from ledger_store import LedgerStore, read_ledger
from messages import make_history


def check(module: ModuleType) -> str:
    store_class = module.DurableLedgerStore
    assert issubclass(store_class, LedgerStore), "DurableLedgerStore must extend LedgerStore"
    history = make_history(5)
    real_fsync = os.fsync
    with tempfile.TemporaryDirectory() as temporary:
        path = Path(temporary) / "durable.jsonl"
        synced_sizes: list[int] = []  # the session file's size at each fsync of it

        def spying_fsync(fd: int) -> None:
            if os.fstat(fd).st_ino == path.stat().st_ino:
                synced_sizes.append(os.fstat(fd).st_size)
            real_fsync(fd)

        os.fsync = spying_fsync  # the student's module calls os.fsync: we see every call
        try:
            store = store_class.create(path)
            for number, message in enumerate(history, start=1):
                before = len(synced_sizes)
                store.append(message)
                size = path.stat().st_size
                assert len(synced_sizes) > before, (
                    f"append number {number} returned without calling os.fsync on the file"
                )
                assert synced_sizes[-1] == size, (
                    f"append number {number} called fsync before writing its line "
                    f"(file had {synced_sizes[-1]} of {size} bytes)"
                )
            store.close()
        finally:
            os.fsync = real_fsync
        reading = read_ledger(path)
        assert reading.messages == history, "the durable ledger does not read back the history"
        assert [e["id"] for e in reading.entries] == ["e1", "e2", "e3", "e4", "e5"], (
            "entry ids must stay e1, e2, ...: let LedgerStore build the entry"
        )

        plain, durable = module.measure_fsync_cost(Path(temporary), appends=50)
    assert isinstance(plain, float) and isinstance(durable, float), (
        "measure_fsync_cost must return two floats (seconds per append)"
    )
    assert 0 < plain < 1 and 0 < durable < 1, (
        f"seconds per append look wrong: plain={plain!r}, durable={durable!r}"
    )
    return (
        f"every append fsyncs; here one append took {plain * 1e6:.1f} µs plain and "
        f"{durable * 1e6:.1f} µs with fsync ({durable / plain:.0f}x)"
    )
