"""The snapshot: keep the whole history in memory and rewrite the whole file on every append.

This is the obvious design (`json.dump(messages, file)` after each change). It works, and it
is easy to edit. This module exists so that you can measure what it costs and see how it breaks.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from messages import Message


class UnreadableSnapshot(Exception):
    """The snapshot file is empty or is not one complete JSON array."""


class SnapshotStore:
    """Naive snapshot: truncate the file, then write the full JSON array.

    Between the truncating `open` and the end of `write` the file holds an empty or partial
    array: a crash in that window loses the *whole* history, not just the newest message.
    """

    def __init__(self, path: Path, history: list[Message] | None = None) -> None:
        self.path = Path(path)
        self.messages: list[Message] = list(history or [])
        self.save()

    def append(self, message: Message) -> int:
        """Add one message and rewrite the file. Returns the number of bytes written."""
        self.messages.append(message)
        return self.save()

    def replace(self, index: int, message: Message) -> int:
        """Edit history: trivial for a snapshot, since every save rewrites everything anyway."""
        self.messages[index] = message
        return self.save()

    def save(self) -> int:
        """Write the whole history. Returns the number of bytes written."""
        data = orjson.dumps(self.messages)  # serialise first: keep the danger window small
        with open(self.path, "wb") as file:  # <- "wb" truncates: the old history is gone now
            file.write(data)
            # Python keeps a small write (under 8 KiB) in its own buffer until close; flush
            # hands every byte to the kernel now. From the truncating open until flush
            # returns, the file is empty or partial: a kill in that window breaks it.
            file.flush()
        return len(data)

    def close(self) -> None:
        """Nothing stays open between appends; here so all stores can be used alike."""


class AtomicSnapshotStore(SnapshotStore):
    """The fair snapshot: write a temporary file, then `os.replace` it over the real one.

    `os.replace` swaps the name in one step, so a reader sees either the old file or the
    new one, never a partial one. It is crash-safe, but it still rewrites everything.
    """

    def save(self) -> int:
        data = orjson.dumps(self.messages)
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "wb") as file:
            file.write(data)
            # Against power loss these bytes would also have to reach the disk here, and
            # the directory's new entry after the replace (exercise 01.1 measures such a
            # sync). A killed process does not need them: the kernel keeps what was written.
        os.replace(temporary, self.path)  # the atomic step: old name now means the new bytes
        return len(data)


def read_snapshot(path: Path) -> list[Message]:
    """Read a snapshot back. All or nothing: one bad byte anywhere and nothing parses."""
    data = Path(path).read_bytes()
    if not data:
        raise UnreadableSnapshot("the file is empty")
    try:
        messages = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise UnreadableSnapshot("not valid JSON") from error
    if not isinstance(messages, list):
        raise UnreadableSnapshot("not a JSON array")
    return messages
