"""Wrong: any entry with an id can be corrected, a correction included.

It looks up the target among message entries AND the other entries, so a correction can be
"corrected"; current_view then has a correction of something that is not a message.
"""

from __future__ import annotations

from pathlib import Path

from ledger_store import LedgerStore, read_ledger
from messages import Message, text_message

EXPECTED_FAIL = "after 6 messages, fix e2, fix e7: it gave"


def append_correction(store: LedgerStore, target_id: str, text: str) -> str:
    """Append a correction of entry `target_id`; return the correction's own id."""
    reading = read_ledger(store.path)
    known = {entry["id"] for entry in reading.entries + reading.other_entries}
    if target_id not in known:
        raise ValueError(f"no entry {target_id!r} to correct")
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
            latest[entry["corrects"]] = entry["text"]
    view = []
    for entry in reading.entries:
        message = entry["message"]
        if entry["id"] in latest:
            message = text_message(message["role"], latest[entry["id"]])
        view.append(message)
    return view
