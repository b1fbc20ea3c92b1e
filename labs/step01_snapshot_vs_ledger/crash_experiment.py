"""Kill a real writer process at a random moment and inspect what it left on disk.

SIGKILL cannot be caught: the process stops between two machine instructions, possibly in
the middle of a write. That is a process crash. The data already handed to the kernel stays
in the page cache and reaches the disk later, so this experiment is *not* a power cut: only
fsync protects against that, and it is not measured here.
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

from stores import FILE_NAMES, UnreadableHistory, read_history

WRITER = Path(__file__).resolve().parent / "crash_writer.py"


@dataclass(frozen=True)
class CrashOutcome:
    kind: str
    acknowledged: int  # messages the writer reported as saved before it died
    readable: bool  # does the file still parse as a history?
    recovered: int  # messages read back from the file (0 when unreadable)
    file_size: int  # bytes left in the file: 0 means the kill landed right after truncation

    @property
    def lost_acknowledged(self) -> int:
        """Messages the writer promised were saved and that are not in the file."""
        return max(0, self.acknowledged - self.recovered)


def crash_once(kind: str, path: Path, prefill: int, delay: float) -> CrashOutcome:
    """Start a writer, let it append for `delay` seconds, SIGKILL it, read what is left."""
    process = subprocess.Popen(
        [sys.executable, str(WRITER), kind, str(path), "--prefill", str(prefill)],
        stdout=subprocess.PIPE,
        text=True,
    )
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

    try:
        recovered, readable = len(read_history(kind, path)), True
    except UnreadableHistory:
        recovered, readable = 0, False
    return CrashOutcome(kind, acknowledged[-1], readable, recovered, path.stat().st_size)


def run_crash_trials(
    kind: str,
    runs: int,
    directory: Path,
    prefill: int = 2000,
    max_delay: float = 0.05,
    seed: int = 1,
) -> list[CrashOutcome]:
    """`runs` crashes of one store kind, each after a seeded-random delay."""
    rng = random.Random(seed)
    outcomes = []
    for run in range(runs):
        path = Path(directory) / f"{kind}-{run}-{FILE_NAMES[kind]}"
        outcomes.append(crash_once(kind, path, prefill, rng.uniform(0, max_delay)))
    return outcomes


@dataclass(frozen=True)
class CrashSummary:
    kind: str
    runs: int
    unreadable: int  # files that gave back no history at all
    runs_losing_acknowledged: int  # runs where at least one acknowledged message is gone
    lost_acknowledged: int  # acknowledged messages lost, over all runs
    acknowledged: int  # acknowledged messages, over all runs


def summarise(outcomes: list[CrashOutcome]) -> CrashSummary:
    return CrashSummary(
        kind=outcomes[0].kind,
        runs=len(outcomes),
        unreadable=sum(not o.readable for o in outcomes),
        runs_losing_acknowledged=sum(o.lost_acknowledged > 0 for o in outcomes),
        lost_acknowledged=sum(o.lost_acknowledged for o in outcomes),
        acknowledged=sum(o.acknowledged for o in outcomes),
    )
