"""A scripted, deterministic comparison of the snapshot and the ledger.

    python demo.py

Prints bytes, line counts and what survives a torn write: numbers that are the same on every
machine. Timings and real crashes vary from run to run, so they live in the notebook.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from ledger_store import LedgerStore, read_ledger  # noqa: E402
from messages import make_history, make_message, message_text, text_message  # noqa: E402
from snapshot_store import SnapshotStore, read_snapshot  # noqa: E402
from stores import UnreadableHistory, create_store, read_history  # noqa: E402
from torn_write import tear_last_append  # noqa: E402

HISTORY = make_history(6)


def new_ledger(path: Path) -> LedgerStore:
    # Injected id, time and directory: the header has the same bytes on every machine.
    return LedgerStore.create(
        path, session_id="demo", created_at="2026-01-01T00:00:00.000Z", cwd="/home/student/lab"
    )


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def section_bytes_per_append(folder: Path) -> None:
    print("1. Bytes written by each append")
    snapshot = SnapshotStore(folder / "history.json")
    ledger = new_ledger(folder / "session.jsonl")
    header_bytes = (folder / "session.jsonl").stat().st_size
    print(f"  {'append':>6}  {'snapshot':>8}  {'ledger':>6}")
    totals = [0, 0]
    for number, message in enumerate(HISTORY, start=1):
        costs = [snapshot.append(message), ledger.append(message)]
        totals = [total + cost for total, cost in zip(totals, costs, strict=True)]
        print(f"  {number:>6}  {costs[0]:>8}  {costs[1]:>6}")
    print(
        f"  {'total':>6}  {totals[0]:>8}  {totals[1]:>6}   (plus the ledger's header line, "
        f"written once: {header_bytes} bytes)"
    )
    ledger.close()
    print("  A ledger line carries more than the bare message (type, id, parentId), so the")
    print("  first append costs more; but the snapshot's cost grows with every message, and")
    print("  the ledger's stays flat.")
    print()
    print("  The next append when the history already holds N messages:")
    print(f"  {'N':>6}  {'snapshot':>8}  {'ledger':>6}  {'ratio':>5}")
    for size in (10, 100, 1000, 10000):
        costs = []
        for kind in ("snapshot", "ledger"):
            store = create_store(kind, folder / f"{kind}-{size}", make_history(size))
            costs.append(store.append(make_message(size)))
            store.close()
        print(f"  {size:>6}  {costs[0]:>8}  {costs[1]:>6}  {costs[0] // costs[1]:>4}x")
    print()


def section_files(folder: Path) -> None:
    print("2. The files")
    snapshot_path, ledger_path = folder / "history.json", folder / "session.jsonl"
    print(f"  {snapshot_path.name}: one JSON array, {snapshot_path.stat().st_size} bytes")
    print(
        f"  {ledger_path.name}: {line_count(ledger_path)} lines, {ledger_path.stat().st_size} bytes"
    )
    reading = read_ledger(ledger_path)
    print(f"    header  version={reading.header['version']} id={reading.header['id']}")
    for entry in reading.entries:
        message = entry["message"]
        print(
            f"    {entry['id']:<3} parent={entry['parentId'] or '-':<3} "
            f"{message['role']:<9}  {message_text(message)}"
        )
    same = reading.messages == read_snapshot(snapshot_path)
    print(f"  Both files give back the same {len(HISTORY)} messages: {same}")

    tricky = text_message("user", 'a newline\nhere, "quotes", tab\t, and 你好 / é')
    path = folder / "tricky.jsonl"
    with new_ledger(path) as ledger:
        ledger.append(tricky)
    back = read_ledger(path).messages
    print(
        f"  A text with a newline, quotes and non-ASCII is one line "
        f"({line_count(path) - 1} entry line) and reads back equal: {back == [tricky]}"
    )
    print()


def section_torn_write(folder: Path) -> None:
    print("3. A torn write: the process dies halfway through the last append")
    for kind in ("snapshot", "atomic", "ledger"):
        path = tear_last_append(kind, folder, HISTORY, keep=0.5)
        try:
            recovered = f"{len(read_history(kind, path))} of {len(HISTORY)} messages survive"
        except UnreadableHistory as error:
            recovered = f"unreadable ({error}): 0 of {len(HISTORY)} messages survive"
        print(f"  {kind:<8}  {recovered}")
    torn = read_ledger(folder / "torn-ledger-session.jsonl")
    print(
        f"  The ledger skipped its torn last line: {torn.torn_tail}; "
        f"every complete line was kept ({len(torn.entries)} entries)."
    )
    print("  The atomic snapshot survives because the half-written copy was a temporary file;")
    print("  the message it was writing is lost, but it was never acknowledged.")
    print()


def section_editing(folder: Path) -> None:
    print("4. Editing history")
    snapshot = SnapshotStore(folder / "edit.json", HISTORY)
    rewritten = snapshot.replace(1, text_message("assistant", "1 * 7 = 8."))
    print(
        f"  snapshot: replacing message 2 rewrote all {rewritten} bytes; "
        f"the old answer is gone without a trace"
    )
    path = folder / "edit.jsonl"
    ledger = new_ledger(path)
    before = b""
    prefix_kept = True
    for message in HISTORY:
        ledger.append(message)
        after = path.read_bytes()
        prefix_kept = prefix_kept and after.startswith(before)
        before = after
    ledger.close()
    print(
        f"  ledger: has no edit method; after every append the old bytes were a prefix "
        f"of the new file: {prefix_kept}"
    )
    print("  A ledger records what happened, in order. To fix a message, append a correction")
    print("  (exercise 01.3): the mistake and its fix both stay on record.")


def main() -> None:
    print("Step 01: snapshot vs ledger")
    print()
    print(f"One history of {len(HISTORY)} messages, stored two ways:")
    print("  snapshot  history.json   rewrites the whole JSON array on every append")
    print("  ledger    session.jsonl  appends one JSON line per message")
    print()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        section_bytes_per_append(folder)
        section_files(folder)
        section_torn_write(folder)
        section_editing(folder)


if __name__ == "__main__":
    main()
