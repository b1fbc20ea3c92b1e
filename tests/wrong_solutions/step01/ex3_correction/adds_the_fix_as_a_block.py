"""Wrong: the correction is added to the message as one more text block; the old text stays.

Shown one line a message, it can look right (the new text is there). But the model is given
every block: the wrong text and the fix, side by side, and nothing says which one holds.
"""

from __future__ import annotations

from pathlib import Path

from ledger_store import LedgerStore, read_ledger
from messages import Message

EXPECTED_FAIL = "message 2 is '1 * 7 = 7.|fix 1 of e2'"


def append_correction(store: LedgerStore, target_id: str, text: str) -> str:
    """Append a correction of entry `target_id`; return the correction's own id."""
    known = {entry["id"] for entry in read_ledger(store.path).entries}
    if target_id not in known:
        raise ValueError(f"no message entry {target_id!r} to correct")
    entry = {
        "type": "correction",
        "id": store.next_entry_id(),
        "parentId": store.last_id,
        "corrects": target_id,  # what it fixes; the fixed entry itself stays as it was
        "text": text,
    }
    store.write_entry(entry)
    return entry["id"]


def current_view(path: Path) -> list[Message]:
    """The history with every correction applied (the latest correction wins)."""
    reading = read_ledger(path)
    latest: dict[str, str] = {}
    for entry in reading.other_entries:  # in file order, so a later correction overwrites
        if entry["type"] == "correction":
            latest[entry["corrects"]] = entry["text"]
    view = []
    for entry in reading.entries:
        message = entry["message"]
        if entry["id"] in latest:
            fix = {"type": "text", "text": latest[entry["id"]]}
            message = {**message, "content": [*message["content"], fix]}
        view.append(message)
    return view
