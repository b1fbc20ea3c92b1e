"""Wrong: append the correction by rewriting the whole file through a temporary one.

The new file holds the old bytes and the correction line, and os.replace makes the swap
atomic, like the atomic snapshot. But it is still a rewrite: every correction copies the
whole session, and the store's open file now points at the replaced file, so its next
appends are lost.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from ledger_store import LedgerStore, read_ledger
from messages import Message, text_message

EXPECTED_FAIL = "fix e2: it was replaced by a new file"


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
    temporary = store.path.with_name(store.path.name + ".tmp")
    temporary.write_bytes(store.path.read_bytes() + orjson.dumps(entry) + b"\n")
    os.replace(temporary, store.path)  # atomic: a crash leaves the old file or the new one
    store.entry_count += 1
    store.last_id = entry["id"]
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
