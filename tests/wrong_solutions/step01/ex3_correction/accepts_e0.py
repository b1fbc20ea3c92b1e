"""Wrong: a target is accepted when its number is below the next id's, without reading the file.

Quick, and it refuses e99; but e0 was never an id, and the ids below the next one include
corrections, which are no messages.
"""

from __future__ import annotations

from pathlib import Path

from ledger_store import LedgerStore, read_ledger
from messages import Message, text_message

EXPECTED_FAIL = "after 6 messages, fix e0: it gave"


def append_correction(store: LedgerStore, target_id: str, text: str) -> str:
    """Append a correction of entry `target_id`; return the correction's own id."""
    next_number = int(store.next_entry_id().removeprefix("e"))
    number = target_id.removeprefix("e")
    if not number.isdigit() or int(number) >= next_number:
        raise ValueError(f"no entry {target_id!r} yet")
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
