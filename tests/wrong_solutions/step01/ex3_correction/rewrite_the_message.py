"""Wrong: the snapshot habit: rewrite the corrected message's line in place.

It finds the target's line, replaces its text, writes the file back and appends nothing: the
record no longer says what was said, and a crash while rewriting can lose the whole file.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from ledger_store import LedgerStore, read_ledger
from messages import Message, text_message

EXPECTED_FAIL = "fix e2: its bytes changed"


def append_correction(store: LedgerStore, target_id: str, text: str) -> str:
    """Append a correction of entry `target_id`; return the correction's own id."""
    lines = store.path.read_bytes().splitlines(keepends=True)
    for number, line in enumerate(lines[1:], start=1):
        entry = orjson.loads(line)
        if entry["type"] == "message" and entry["id"] == target_id:
            entry["message"] = text_message(entry["message"]["role"], text)
            lines[number] = orjson.dumps(entry) + b"\n"
            with open(store.path, "r+b") as file:  # overwrite, keep the same file
                file.write(b"".join(lines))
                file.truncate()
            return target_id
    raise ValueError(f"no message entry {target_id!r} to correct")


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
