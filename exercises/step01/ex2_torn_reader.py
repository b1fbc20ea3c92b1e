"""Exercise 01.2: rescue what you can from a torn snapshot, and compare with the ledger.

Fill-in exercise, about 15 minutes.

The snapshot reader gives up on a torn file: one JSON array cut short is not JSON. Yet the
messages at its start are complete. Write `salvage_snapshot(data)`: given the bytes of a
snapshot file (`[` message `,` message ... `]`, as SnapshotStore writes it), possibly cut
anywhere, it returns what can be rescued.

What the check holds you to (it cuts snapshots of many histories at every byte):

- It returns every message whose JSON object is complete in `data`, in order, and nothing
  after the first one that is not: exactly the messages that were whole when the cut came.
- It never raises: a cut anywhere, inside a multi-byte character too; the file at its full
  length with zero bytes after the cut, as a power cut can leave it; an empty file.
- A message's text may hold anything, `]`, `}`, `,`, `"`, a backslash, a line break included,
  and its content may nest lists and objects.

Then think: what does your salvage do with a file the crash left EMPTY (the truncating open
ran, the write did not)? What did the ledger's reader need to do the same job?
Check it with `python -m exercises check 01.2` or the notebook; stuck: `make hint ID=01.2`.
"""

from __future__ import annotations

from messages import Message


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    # TODO: the messages that were whole when the cut came.
    raise NotImplementedError("salvage_snapshot is not written yet")
