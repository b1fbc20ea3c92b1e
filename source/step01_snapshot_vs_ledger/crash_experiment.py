"""Kill a real writer process at a random moment and inspect what it left on disk.

SIGKILL cannot be caught: the process stops wherever it was, possibly in the middle of a
write. That is a process crash. The data already handed to the kernel stays in the page
cache and reaches the disk later, so this experiment is *not* a power cut: only fsync
protects against that, and it is not measured here.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ledger_store import UnreadableLedger, read_ledger
from stores import FILE_NAMES, LEDGER_KINDS, UnreadableHistory, read_history

WRITER = Path(__file__).resolve().parent / "crash_writer.py"


@dataclass(frozen=True)
class CrashOutcome:
    kind: str
    acknowledged: int  # messages the writer reported as saved before it died
    readable: bool  # does the file still parse as a history?
    recovered: int  # messages read back from the file (0 when unreadable)
    file_size: int  # bytes left in the file: 0 means the kill landed right after truncation
    torn_tail: bool = False  # a ledger whose last line has no "\n": a write cut short

    @property
    def lost_acknowledged(self) -> int:
        """Messages the writer promised were saved and that are not in the file."""
        return max(0, self.acknowledged - self.recovered)


def inspect_file(kind: str, path: Path, acknowledged: int) -> CrashOutcome:
    """Read what a writer left at `path` with the store's own reader, as a restart would."""
    try:
        if kind in LEDGER_KINDS:  # read once: a file of long lines takes a while to parse
            reading = read_ledger(path)
            recovered, torn_tail = len(reading.messages), reading.torn_tail
        else:
            recovered, torn_tail = len(read_history(kind, path)), False
        readable = True
    except (UnreadableHistory, UnreadableLedger, FileNotFoundError):
        recovered, readable, torn_tail = 0, False, False
    size = path.stat().st_size if path.exists() else 0
    return CrashOutcome(kind, acknowledged, readable, recovered, size, torn_tail)


def crash_once(
    kind: str, path: Path, prefill: int, delay: float, text_bytes: int = 0
) -> CrashOutcome:
    """Start a writer, let it append for `delay` seconds, SIGKILL it, read what is left.

    `text_bytes` pads every appended message to that size: long lines take long writes.
    """
    command = [sys.executable, str(WRITER), kind, str(path), "--prefill", str(prefill)]
    if text_bytes:
        command += ["--text-bytes", str(text_bytes)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    first = process.stdout.readline()
    if not first.startswith("ready"):
        process.kill()
        process.wait()
        raise RuntimeError(f"writer did not start: {first!r}")
    acknowledged = [int(first.split()[1])]

    # Read acknowledgements in the background: if nobody empties the pipe, the writer
    # blocks on print() and the kill would always land there instead of at a random moment.
    def collect() -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            acknowledged.append(int(line))

    reader = threading.Thread(target=collect)
    reader.start()
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    reader.join()  # the pipe still holds everything printed before the kill
    process.stdout.close()
    return inspect_file(kind, path, acknowledged[-1])


def run_crash_trials(
    kind: str,
    runs: int,
    directory: Path,
    prefill: int = 2000,
    max_delay: float = 0.05,
    seed: int = 1,
    text_bytes: int = 0,
    keep_files: bool = True,
) -> list[CrashOutcome]:
    """`runs` crashes of one store kind, each after a seeded-random delay.

    `keep_files=False` deletes each file once inspected (long lines make files of megabytes).
    """
    rng = random.Random(seed)
    outcomes = []
    for run in range(runs):
        path = Path(directory) / f"{kind}-{run}-{FILE_NAMES[kind]}"
        outcomes.append(crash_once(kind, path, prefill, rng.uniform(0, max_delay), text_bytes))
        if not keep_files:
            path.unlink(missing_ok=True)
            path.with_name(path.name + ".tmp").unlink(missing_ok=True)
    return outcomes


@dataclass(frozen=True)
class CrashSummary:
    kind: str
    runs: int
    unreadable: int  # files that gave back no history at all
    runs_losing_acknowledged: int  # runs where at least one acknowledged message is gone
    lost_acknowledged: int  # acknowledged messages lost, over all runs
    acknowledged: int  # acknowledged messages, over all runs
    torn_tails: int = 0  # ledger files left ending in a torn line


def summarise(outcomes: list[CrashOutcome]) -> CrashSummary:
    return CrashSummary(
        kind=outcomes[0].kind,
        runs=len(outcomes),
        unreadable=sum(not o.readable for o in outcomes),
        runs_losing_acknowledged=sum(o.lost_acknowledged > 0 for o in outcomes),
        lost_acknowledged=sum(o.lost_acknowledged for o in outcomes),
        acknowledged=sum(o.acknowledged for o in outcomes),
        torn_tails=sum(o.torn_tail for o in outcomes),
    )
