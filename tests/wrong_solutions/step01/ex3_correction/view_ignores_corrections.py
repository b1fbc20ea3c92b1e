"""Wrong: current_view ignores the corrections and returns the messages as first written.

append_correction is right. A check whose last correction repeats the original text cannot
see the difference; this one can.
"""

from __future__ import annotations

from pathlib import Path

from ledger_store import LedgerStore, read_ledger
from messages import Message

EXPECTED_FAIL = "message 2 is '1 * 7 = 7.', expected 'fix 1 of e2'"


def append_correction(store: LedgerStore, target_id: str, text: str) -> str:
    """Append a correction of entry `target_id`; return the correction's own id."""
    known = {entry["id"] for entry in read_ledger(store.path).entries}
    if target_id not in known:
        raise ValueError(f"no message entry {target_id!r} to correct")
    entry = {
        "type": "correction",
        "id": store.next_entry_id(),
        "parentId": store.last_id,
        "corrects": target_id,
        "text": text,
    }
    store.write_entry(entry)
    return entry["id"]


def current_view(path: Path) -> list[Message]:
    """The history with every correction applied (the latest correction wins)."""
    return read_ledger(path).messages  # the corrections are in the file, after all
