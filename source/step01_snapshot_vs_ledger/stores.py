"""One name for each way of storing the history, so experiments can treat them alike.

- "snapshot": rewrite the whole JSON array in place (SnapshotStore)
- "atomic":   rewrite the whole JSON array into a temporary file, then os.replace it
- "ledger":   append one JSON line per message to a file kept open (LedgerStore)
- "ledger-reopen": the same lines, opening and closing the file for each (ReopeningLedgerStore),
  as steps 02 on do
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ledger_store import LedgerStore, ReopeningLedgerStore, UnreadableLedger, read_ledger
from messages import Message
from snapshot_store import AtomicSnapshotStore, SnapshotStore, UnreadableSnapshot, read_snapshot

STORE_KINDS = ("snapshot", "atomic", "ledger", "ledger-reopen")
LEDGER_KINDS = ("ledger", "ledger-reopen")  # the kinds whose file is a session file
FILE_NAMES = {
    "snapshot": "history.json",
    "atomic": "history.json",
    "ledger": "session.jsonl",
    "ledger-reopen": "session.jsonl",
}


class Store(Protocol):
    def append(self, message: Message) -> int: ...

    def close(self) -> None: ...


class UnreadableHistory(Exception):
    """The file left on disk gives back no history at all."""


def create_store(
    kind: str, path: Path, history: list[Message] | None = None, cwd: str | None = None
) -> Store:
    """A store of `kind` at `path` that already holds `history`.

    A snapshot writes the given history once; a ledger appends it entry by entry, exactly
    as it would have been written while the conversation happened.
    """
    if kind == "snapshot":
        return SnapshotStore(path, history)
    if kind == "atomic":
        return AtomicSnapshotStore(path, history)
    if kind in LEDGER_KINDS:
        ledger_class = LedgerStore if kind == "ledger" else ReopeningLedgerStore
        store = ledger_class.create(
            path, session_id="lab", created_at="2026-01-01T00:00:00.000Z", cwd=cwd
        )
        for message in history or []:
            store.append(message)
        return store
    raise ValueError(f"unknown store kind {kind!r}; choose from {', '.join(STORE_KINDS)}")


def read_history(kind: str, path: Path) -> list[Message]:
    """The messages a store's file gives back; UnreadableHistory when it gives back none."""
    try:
        if kind in LEDGER_KINDS:
            return read_ledger(path).messages
        return read_snapshot(path)
    except (UnreadableSnapshot, UnreadableLedger, FileNotFoundError) as error:
        raise UnreadableHistory(str(error)) from None
