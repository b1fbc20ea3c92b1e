"""What `make bench` runs: the lab's figures at scale, side by side, in one run.

- tools/session_bench.py on the production step (in its own processes): a 100,000-entry session with
  branches, resumed, against the floor of parsing every line with orjson, and peak memory
  against the file; then the same session compacted, resumed by step 05, step 06 and the
  production step; and a session of 1,050,000 short entries (one-line messages, the leaf moved
  far back now and then, never compacted) resumed against its floor the same way;
- the production step's two stores side by side, on the same entries (the session converted
  to SQLite, byte for byte): an append without and with fsync (median of 200, in the current
  folder, where `.sessions` would be), the resumes above, and the size on disk, each beside the
  targets of issue 38 (SQLite's append at most 2x the file's at the same durability; its
  compacted resume at most 0.02x the file's full resume), met or not in this run;
- step 01's append costs at 100 and 10,000 messages: what one more message costs a snapshot
  (rewrite everything) and a ledger (append a line), the choice everything else builds on.

Each step runs as its own process (step folders share module names and never meet in one
interpreter). Figures vary from run to run and machine to machine; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
STEP01 = LAB_ROOT / "labs" / "step01_snapshot_vs_ledger"
KINDS = ("snapshot", "atomic", "ledger", "ledger-reopen")
SIZES = (100, 10_000)

STEP01_SCRIPT = f"""
import json, sys, tempfile
from pathlib import Path
sys.path.insert(0, {str(STEP01)!r})
from measure import measure_all
with tempfile.TemporaryDirectory() as folder:
    costs = measure_all({KINDS!r}, {list(SIZES)!r}, Path(folder), repeats=5, rounds=3)
print(json.dumps([[c.kind, c.history_length, c.bytes_written, c.seconds] for c in costs]))
"""


class StepFailed(Exception):
    """A measuring process ended without its figures; the message is its last word."""


def figures_of(command: list[str], what: str) -> object:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise StepFailed(f"{what}: {last}")
    return json.loads(done.stdout)


def met(ratio: float, most: float) -> str:
    return f"target at most {most:g}x: {'met' if ratio <= most else 'not met'}"


def print_resumes(resume: dict, short: dict) -> None:
    """Each session read whole, not compacted: the production step against the floor."""
    print("\nresume, the file read whole (not compacted): against the floor, orjson on every line")
    print(f"  {'':30}{'time':>9}{'peak memory':>14}{'resume/floor':>14}{'peak/file':>11}")
    for figures, what in [(resume, "entries"), (short, "short entries")]:
        print(
            f"  {figures['entries']:,} {what}: {figures['file_mib']:.0f} MiB file, "
            f"{figures['messages_on_path']:,} messages on the path"
        )
        for name, key in [("floor", "floor"), ("production: Session.open", "resume")]:
            row = f"{figures[f'{key}_seconds']:>8.2f}s{figures[f'{key}_peak_mib']:>10.0f} MiB"
            if key == "resume":
                ratios = figures["resume_over_floor"], figures["resume_peak_over_file"]
                row += f"{ratios[0]:>13.2f}x{ratios[1]:>10.2f}x"
            print(f"    {name:28}{row}")
    worst_time = max(resume["resume_over_floor"], short["resume_over_floor"])
    worst_memory = max(resume["resume_peak_over_file"], short["resume_peak_over_file"])
    print(f"  resume / floor, {met(worst_time, 1)}; peak memory / file, {met(worst_memory, 2)}")


def print_stores(resume: dict, stored: dict) -> None:
    """JSONL and SQLite, side by side: the same entries, the same appends, in this run."""
    database, appended = resume["sqlite"], stored["sqlite"]
    print("\nthe two stores side by side: the same entries, byte for byte")
    print(f"  {'':36}{'JSONL':>12}{'SQLite':>12}{'SQLite/JSONL':>14}")
    for name, what in [("plain", "append, without fsync"), ("fsync", "append, with fsync")]:
        jsonl, sqlite = stored[f"{name}_seconds"] * 1e3, appended[f"{name}_seconds"] * 1e3
        ratio = appended[f"{name}_over_jsonl"]
        print(f"  {what:36}{jsonl:>9.3f} ms{sqlite:>9.3f} ms{ratio:>13.2f}x  {met(ratio, 2)}")
    print(f"    (median of {stored['appends']} appends of a 1.2 kB message, in {Path.cwd()})")
    full, compacted = database["resume"], database["compacted"]
    production = resume["compacted"]["production"]
    measured = [  # what, JSONL's, SQLite's, and whether it is a time (else MiB)
        (f"resume, {resume['entries']:,} entries", resume["resume_seconds"], full["seconds"], 1),
        ("  peak memory", resume["resume_peak_mib"], full["peak_mib"], 0),
        ("resume, compacted", production["seconds"], compacted["seconds"], 1),
        ("  peak memory", production["peak_mib"], compacted["peak_mib"], 0),
        ("size on disk (SQLite: and its -wal)", resume["file_mib"], database["file_mib"], 0),
    ]
    for what, jsonl, sqlite, timed in measured:
        cells = (
            f"{jsonl:>11.3f}s{sqlite:>11.3f}s" if timed else f"{jsonl:>8.0f} MiB{sqlite:>8.0f} MiB"
        )
        print(f"  {what:36}{cells}{sqlite / jsonl:>13.2f}x")
    floor, over = resume["floor_seconds"], database["resume_over_floor"]
    print(
        f"  floor, orjson on every line of the file: {floor:.3f}s; resume / floor: "
        f"JSONL {resume['resume_over_floor']:.2f}x, SQLite {over:.2f}x"
    )
    ratio = database["compacted_over_jsonl_resume"]
    print(f"  SQLite's compacted resume / JSONL's full resume: {ratio:.4f}x ({met(ratio, 0.02)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--entries", type=int, default=100_000, help="the session's size (quicker: 20000)"
    )
    parser.add_argument(
        "--short-entries", type=int, help="the short entries' session (default: 10.5 times that)"
    )
    args = parser.parse_args(argv)  # --help: help, not a run
    short_entries = args.short_entries or round(args.entries * 10.5)
    tool = [sys.executable, str(LAB_ROOT / "tools" / "session_bench.py")]
    print(
        f"the production step: generating and resuming a {args.entries:,}-entry session...",
        flush=True,
    )
    try:
        resume = figures_of(
            [*tool, "--json", "--sqlite", "--entries", str(args.entries)],
            "the production step's benchmark",
        )
        print(f"and a session of {short_entries:,} short entries...", flush=True)
        short = figures_of(
            [*tool, "--json", "--short", "--entries", str(short_entries)],
            "the short entries' benchmark",
        )
        stored = figures_of(
            [*tool, "--fsync-cost", "--sqlite", "--json"], "the two stores' append costs"
        )
        appends = figures_of([sys.executable, "-c", STEP01_SCRIPT], "step 01's append costs")
    except StepFailed as failed:
        print(f"error: {failed}", file=sys.stderr)
        return 1
    assert isinstance(resume, dict) and isinstance(short, dict)
    assert isinstance(stored, dict) and isinstance(appends, list)

    print_resumes(resume, short)
    print(f"  moving the leaf: {resume['move_leaf_seconds'] * 1e6:.0f} µs (one appended line)")
    print(f"  rebuilding from a new leaf: {resume['rebuild_longest_path_seconds'] * 1e3:.0f} ms")
    print("\nthe same session, its last compaction keeping the last 1,000 entries")
    print(f"  {'':34}{'time':>9}{'peak memory':>14}")
    for name, measured in resume["compacted"].items():
        row = f"{measured['seconds']:>8.3f}s{measured['peak_mib']:>10.0f} MiB"
        print(f"  {name:34}{row}")
    step06, production = resume["compacted_step06_over_step05"], resume["compacted_over_step05"]
    print(
        f"  step 06 / step 05: {step06:.3f}x; production / step 05: {production:.3f}x "
        "(production's target: at most 0.1x, in at most 100 MiB)"
    )
    print_stores(resume, stored)

    print("\nstep 01: one more message, when the history already holds N")
    print(f"  {'store':16}" + "".join(f"{f'N={size:,}':>22}" for size in SIZES))
    cost = {(kind, size): (written, seconds) for kind, size, written, seconds in appends}
    for kind in KINDS:
        cells = []
        for size in SIZES:
            written, seconds = cost[kind, size]
            cells.append(f"{written:>10,} B {seconds * 1e6:>7.1f} µs")
        print(f"  {kind:16}" + "".join(f"{cell:>22}" for cell in cells))
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
