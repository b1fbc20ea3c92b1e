"""Exercise 01.3: correct a message the ledger's way: append, never rewrite.

The assistant said something wrong in entry e2. A snapshot would overwrite it; a ledger
cannot (its old bytes are never rewritten), and that is the point: the record says what was
said AND that it was corrected later. You add a new entry kind for it.

1. `append_correction(store, target_id, text)` appends one entry
       {"type": "correction", "id": <next id>, "parentId": <last id>,
        "corrects": target_id, "text": text}
   through `store.write_entry` (ids come from `store.next_entry_id()`, the parent is
   `store.last_id`) and returns the new entry's id. A target that is not a message entry
   already in the file is a mistake: raise ValueError.
2. `current_view(path)` returns the messages as they read now, reading the file and never
   writing it: each corrected message's text replaced by its LATEST correction (corrections
   are in `read_ledger(path).other_entries`: this step's reader skips kinds it does not know).
"""

from __future__ import annotations

from pathlib import Path

from ledger_store import LedgerStore, read_ledger
from messages import Message, text_message


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
            message = text_message(message["role"], latest[entry["id"]])
        view.append(message)
    return view
