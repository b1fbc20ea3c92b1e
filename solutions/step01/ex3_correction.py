"""Exercise 01.3: correct a message the ledger's way: append, never rewrite.

Fill-in exercise, about 15 minutes.

The assistant said something wrong in entry e2. A snapshot would overwrite it; a ledger cannot
(its old bytes are never rewritten), and that is the point: the record says what was said AND
that it was corrected later. Add a new entry kind for it, a correction:

    {"type": "correction", "id": "e7", "parentId": "e6", "corrects": "e2", "text": "..."}

What the check holds you to (the same corrections, on your ledger and the solution's):

- `append_correction(store, target_id, text)` adds one such entry, whose `id` and `parentId`
  are those the store gives its next entry, written through `store.write_entry` (once per
  correction: the check counts the calls), and returns the correction's own id. The file
  only grows: its old bytes stay as they were.
- Only a message entry already in the file can be corrected. Any other target (an id no
  entry has, the header's, a correction's, the next id, `E2` for `e2`) raises ValueError and
  writes nothing.
- `current_view(path)` only reads the file, and returns its messages in order, each with its
  own role; a corrected one reads as its latest correction's text. Every other message is
  as it was. (This step's reader skips kinds it does not know: what does it do with yours?)

Check it with `python -m exercises check 01.3` or the notebook; stuck: `make hint ID=01.3`.
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
