"""Check 01.1: a power cut cannot be staged, so durability is checked at the system call:
spies on os.fsync and os.fdatasync, in place before the student's module binds them, record
which file each synced and how long it was. A measurement is checked by changing what it
measures: on a stand-in clock where a sync costs one second, durable must be 1 s above plain."""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from types import ModuleType

from exercises import harness as h
from ledger_store import UnreadableLedger, read_ledger
from messages import make_history

SYNCED: list[tuple[int, int, int]] = []  # (device, inode, size) of every file synced
COST = [0.0, 0.0]  # [what one sync costs on the stand-in clock now, the clock's offset]
APPEND_RULE = "append writes its line, then fsyncs the file, every time"
MEASURE_RULE = "measure_fsync_cost times real appends, per append"


def before_load() -> None:
    """Spies on both syncs, and every wall clock made to jump by COST[0] at each sync."""
    platform = importlib.import_module(os.name)  # `posix`: where os.fsync really comes from
    for name in ("fsync", "fdatasync"):
        if (real := getattr(os, name, None)) is not None:
            setattr(os, name, spy(real))
            setattr(platform, name, getattr(os, name))
    for name in ("perf_counter", "monotonic", "time"):
        real_s, real_ns = getattr(time, name), getattr(time, f"{name}_ns")
        setattr(time, name, lambda real=real_s: real() + COST[1])
        setattr(time, f"{name}_ns", lambda real=real_ns: real() + round(COST[1] * 1e9))


def spy(real: Callable[[int], None]) -> Callable[[object], None]:
    def synced(fd: object) -> None:
        real(fd)  # type: ignore[arg-type]  # an int or an object with fileno(), as os allows
        status = os.fstat(fd if isinstance(fd, int) else fd.fileno())  # type: ignore[attr-defined]
        SYNCED.append((status.st_dev, status.st_ino, status.st_size))
        COST[1] += COST[0]

    return synced


def check(module: ModuleType) -> str:
    store_class, history = module.DurableLedgerStore, make_history(5)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "durable.jsonl"
        store = store_class.create(path)
        for number, message in enumerate(history, start=1):
            before = len(SYNCED)
            store.append(message)
            mine = [size for dev, ino, size in SYNCED[before:] if (dev, ino) == file_of(path)]
            if not mine or mine[-1] != path.stat().st_size:
                said = "it returned unsynced" if not mine else "it synced before writing"
                h.fail(APPEND_RULE, f"append {number} of 5", said, store_class.append)
        store.close()
        ids = [e["id"] for e in read_ledger(path).entries]
        if read_ledger(path).messages != history or ids != ["e1", "e2", "e3", "e4", "e5"]:
            h.fail(APPEND_RULE, "5 appends", "they do not read back as e1..e5", store_class.append)
    COST[0] = 1.0  # the proof: a sync now costs a pretend second
    plain, durable = measured(module, 10)
    COST[0], extra = 0.0, durable - plain
    if not 0.5 < extra < 1.5 or plain >= 0.5:
        said = f"plain {plain:.2g}, durable {durable:.2g} s: {advice(extra)}"
        h.fail(MEASURE_RULE, "a sync costing 1 s", said, module.measure_fsync_cost)
    plain, durable = measured(module, 50)
    return (
        f"every append wrote, then synced; a sync made to cost 1 s added {extra:.2f} s per "
        f"append; here one took {plain * 1e6:.1f} µs, synced {durable * 1e6:.1f} µs"
    )


def file_of(path: Path) -> tuple[int, int]:
    return (found := path.stat()).st_dev, found.st_ino


def measured(module: ModuleType, appends: int) -> tuple[float, float]:
    """measure_fsync_cost's numbers, once it is proved to have made the two ledgers."""
    history, case = make_history(appends), f"appends={appends}"
    with tempfile.TemporaryDirectory() as folder:
        before = len(SYNCED)
        result = module.measure_fsync_cost(Path(folder), appends=appends)
        synced = [(dev, ino) for dev, ino, _ in SYNCED[before:]]
        counts = []  # syncs of each ledger left in the folder holding the whole history
        for path in (p for p in Path(folder).rglob("*") if p.is_file()):
            with suppress(UnreadableLedger):
                if read_ledger(path).messages == history:
                    counts.append(synced.count(file_of(path)))
    if not any(n >= appends for n in counts) or 0 not in counts:
        said = f"it left {len(counts)} whole ledgers in the folder, synced {counts} times"
        h.fail(MEASURE_RULE, case, said, module.measure_fsync_cost)
    if not (isinstance(result, tuple) and all(type(x) in (int, float) and x > 0 for x in result)):
        h.fail(MEASURE_RULE, case, f"it returned {h.short(result)}", module.measure_fsync_cost)
    return float(result[0]), float(result[1])


def advice(extra: float) -> str:
    """What to change, guessed from the shape of the wrong numbers."""
    if abs(extra) < 0.5:
        return "its clock misses syncs"
    return "divide by appends" if extra > 5 else "return (plain, durable)"
