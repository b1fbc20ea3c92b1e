"""Wrong: current_view keeps the FIRST correction of a message, not the latest.

A ledger is read in file order, so a later line overrides an earlier one; keeping the first
one found (setdefault) shows a fix that was itself corrected later.
"""

from __future__ import annotations

from pathlib import Path

from ledger_store import LedgerStore, read_ledger
from messages import Message, text_message

EXPECTED_FAIL = "message 2 is 'fix 1 of e2', expected 'fix 2 of e2'"


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
    reading = read_ledger(path)
    latest: dict[str, str] = {}
    for entry in reading.other_entries:
        if entry["type"] == "correction":
            latest.setdefault(entry["corrects"], entry["text"])  # the first one found
    view = []
    for entry in reading.entries:
        message = entry["message"]
        if entry["id"] in latest:
            message = text_message(message["role"], latest[entry["id"]])
        view.append(message)
    return view
