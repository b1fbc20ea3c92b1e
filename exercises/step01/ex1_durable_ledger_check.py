"""Check 01.1: every append syncs the session file after writing its line, and
measure_fsync_cost really measures: it makes the files, the syncs happen while it times, and
its numbers move with the cost of a sync.

A power cut cannot be staged in a test, so durability is checked where it is decided: at the
system call. Spies stand in for os.fsync and os.fdatasync (either one makes the data durable;
fdatasync skips metadata such as the modification time) before the student's module is
loaded, so every way of calling them is seen, `from os import fsync` included. Each spy calls
the real function and records which file it synced and how long that file was.

A measurement is checked by changing what it measures: with a stand-in clock on which every
sync costs exactly one (pretend) second, a per-append timing of the durable store must come
out one second above the plain one. Made-up numbers, a total instead of a per-append figure,
swapped results or a clock that does not count waiting all miss that.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from ledger_store import LedgerStore, UnreadableLedger, read_ledger
from messages import make_history

SYNC_FUNCTIONS = ("fsync", "fdatasync")  # fdatasync does not exist on macOS
PRETEND_SYNC_SECONDS = 1.0  # what one sync costs on the stand-in clock
PROOF_APPENDS = 10  # appends per store while the stand-in clock runs
REAL_APPENDS = 50  # appends per store for the numbers the PASS line reports


@dataclass(frozen=True)
class Sync:
    function: str  # "fsync" or "fdatasync"
    file: tuple[int, int]  # (device, inode): which file, whatever name or descriptor was used
    size: int  # the file's length when it was synced


syncs: list[Sync] = []


class StandInClock:
    """The real clocks plus an offset that only grows: still monotonic, and exactly as much
    slower per sync as the check says. Every wall clock the time module offers is replaced,
    because a student may time with any of them."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.sync_cost = 0.0  # added to the offset at every sync while the proof runs

    def install(self) -> None:
        for name in ("perf_counter", "monotonic", "time"):
            setattr(time, name, self._seconds(getattr(time, name)))
            setattr(time, f"{name}_ns", self._nanoseconds(getattr(time, f"{name}_ns")))

    def _seconds(self, real: Callable[[], float]) -> Callable[[], float]:
        return lambda: real() + self.offset

    def _nanoseconds(self, real: Callable[[], int]) -> Callable[[], int]:
        return lambda: real() + round(self.offset * 1e9)


clock = StandInClock()


def _spy(function: str, real: Callable[[int], None]) -> Callable[[object], None]:
    def spying(fd: object) -> None:
        real(fd)  # type: ignore[arg-type]  # an int or an object with fileno(), as os allows
        number = fd if isinstance(fd, int) else fd.fileno()  # type: ignore[attr-defined]
        status = os.fstat(number)
        syncs.append(Sync(function, (status.st_dev, status.st_ino), status.st_size))
        clock.offset += clock.sync_cost

    return spying


def before_load() -> None:
    """Spies and the stand-in clock go in before the student's module binds any name."""
    platform = importlib.import_module(os.name)  # `posix`: where os.fsync really comes from
    for function in SYNC_FUNCTIONS:
        real = getattr(os, function, None)
        if real is not None:
            spy = _spy(function, real)
            setattr(os, function, spy)
            setattr(platform, function, spy)
    clock.install()


def file_id(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_dev, status.st_ino


def check(module: ModuleType) -> str:
    store_class = module.DurableLedgerStore
    assert issubclass(store_class, LedgerStore), (
        "DurableLedgerStore must extend LedgerStore",
        store_class,
    )
    append = store_class.append
    history = make_history(5)
    with tempfile.TemporaryDirectory() as temporary:
        path = Path(temporary) / "durable.jsonl"
        store = store_class.create(path)
        for number, message in enumerate(history, start=1):
            before = len(syncs)
            store.append(message)
            size = path.stat().st_size
            mine = [s for s in syncs[before:] if s.file == file_id(path)]
            assert mine, (
                f"append number {number} returned without syncing the session file: after "
                "writing the line, call os.fsync (or os.fdatasync) on the file's descriptor",
                append,
            )
            assert mine[-1].size == size, (
                f"append number {number} synced the file before writing its line (the file "
                f"had {mine[-1].size} of {size} bytes): write first, then sync",
                append,
            )
        store.close()
        reading = read_ledger(path)
        assert reading.messages == history, (
            "the durable ledger does not read back the history: let super().append write it",
            append,
        )
        assert [e["id"] for e in reading.entries] == ["e1", "e2", "e3", "e4", "e5"], (
            "entry ids must stay e1, e2, ...: let LedgerStore build the entry",
            append,
        )
    function = mine[-1].function

    # The proof: a sync now costs one pretend second, so the durable number must rise by one.
    clock.sync_cost = PRETEND_SYNC_SECONDS
    try:
        plain, durable = measured(module, PROOF_APPENDS)
    finally:
        clock.sync_cost = 0.0
    extra = durable - plain
    if not 0.5 < extra / PRETEND_SYNC_SECONDS < 1.5 or plain >= 0.5 * PRETEND_SYNC_SECONDS:
        raise AssertionError(
            f"with every sync made to cost {PRETEND_SYNC_SECONDS:.0f} s on a stand-in clock, "
            f"measure_fsync_cost(directory, appends={PROOF_APPENDS}) returned "
            f"plain={plain:.3g} s and durable={durable:.3g} s per append, expected durable "
            f"about {PRETEND_SYNC_SECONDS:.0f} s above plain: {advice(plain, durable)}",
            module.measure_fsync_cost,
        )

    # The numbers for this machine, with the real clock: the same checks, no pretend cost.
    plain, durable = measured(module, REAL_APPENDS)
    assert plain > 0 and durable > 0, (
        f"seconds per append must be above zero: plain={plain!r}, durable={durable!r}",
        module.measure_fsync_cost,
    )
    return (
        f"every append wrote its line, then called {function} on the file before returning; "
        f"measure_fsync_cost timed real appends (a sync made to cost 1 s added {extra:.2f} s "
        f"per append); here one append took {plain * 1e6:.1f} µs plain and "
        f"{durable * 1e6:.1f} µs with {function} ({durable / plain:.0f}x)"
    )


def measured(module: ModuleType, appends: int) -> tuple[float, float]:
    """Call measure_fsync_cost and prove it did the work: two ledgers of `appends` messages in
    the folder it was given, one synced at every append and one never synced."""
    history = make_history(appends)
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        before = len(syncs)
        result = module.measure_fsync_cost(directory, appends=appends)
        synced = [s.file for s in syncs[before:]]
        found = []  # (file name, messages, syncs) of every ledger left in the folder
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            try:
                messages = read_ledger(path).messages
            except UnreadableLedger:
                continue
            found.append((path.name, messages, synced.count(file_id(path))))
    blame = module.measure_fsync_cost
    full = [(name, count) for name, messages, count in found if messages == history]
    assert full, (
        f"measure_fsync_cost(directory, appends={appends}) left no ledger holding "
        f"make_message(0) to make_message({appends - 1}) in `directory` (it left "
        f"{describe(found)}): create a LedgerStore and a DurableLedgerStore there and time "
        "real appends; a number nobody measured proves nothing",
        blame,
    )
    assert any(count >= appends for _, count in full), (
        f"no ledger was synced at each of its {appends} appends while measure_fsync_cost "
        "ran: time a DurableLedgerStore for the second number",
        blame,
    )
    assert any(count == 0 for _, count in full), (
        "every ledger was synced while measure_fsync_cost ran: time a plain LedgerStore "
        "for the first number",
        blame,
    )
    assert isinstance(result, tuple) and len(result) == 2, (
        f"measure_fsync_cost must return a pair (plain, durable), not {result!r}",
        blame,
    )
    plain, durable = result
    assert all(isinstance(x, int | float) and not isinstance(x, bool) for x in result), (
        f"measure_fsync_cost must return two numbers of seconds, not {result!r}",
        blame,
    )
    return float(plain), float(durable)


def describe(found: list[tuple[str, list[object], int]]) -> str:
    if not found:
        return "no ledger at all"
    return ", ".join(f"{name} with {len(messages)} messages" for name, messages, _ in found)


def advice(plain: float, durable: float) -> str:
    """What to change, guessed from the shape of the wrong numbers."""
    extra = durable - plain
    if extra > 0.5 * PROOF_APPENDS * PRETEND_SYNC_SECONDS:
        return f"that is the time of all {PROOF_APPENDS} appends: divide by `appends`"
    if extra < -0.5 * PRETEND_SYNC_SECONDS:
        return "the two numbers are the wrong way round: return (plain, durable)"
    if abs(extra) < 0.5 * PRETEND_SYNC_SECONDS and plain < 0.5 * PRETEND_SYNC_SECONDS:
        return (
            "your timing does not see the syncs: time the appends with a wall clock such as "
            "time.perf_counter (time.process_time does not count waiting for the disk)"
        )
    return "time each store's appends alone, and divide by `appends`"
