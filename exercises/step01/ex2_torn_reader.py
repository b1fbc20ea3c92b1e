"""Exercise 01.2: rescue what you can from a torn snapshot, and compare with the ledger.

The snapshot reader gives up on a torn file: one JSON array cut short is not JSON. But the
messages at its start are complete. Write `salvage_snapshot(data)`, which returns every
message that is complete in `data` (the bytes of a snapshot file, possibly cut anywhere).

Hint: the file is `[` + message + `,` + message + ... + `]`. The standard library's
`json.JSONDecoder().raw_decode(text, index)` parses ONE value starting at `index` and tells
you where it ended. A cut can land inside a multi-byte UTF-8 character, so decode the bytes
with `errors="ignore"`. A text may itself contain `]`, `}`, `,` or `"`: never look for those
characters yourself.

The check cuts snapshots of many histories at every byte. It also tries what a power cut
can leave: the file at its full length, with zero bytes where the data never arrived. Your
salvage must never raise on any of them.

Then think: what does your salvage do with a file the crash left EMPTY (the truncating open
ran, the write did not)? The ledger's reader does the same job with `split(b"\n")`.
"""

from __future__ import annotations

import json  # noqa: F401  (you will need json.JSONDecoder)

from messages import Message


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    # TODO: skip "[", then raw_decode one message at a time, skipping "," between them,
    # until the end of the data or a value that does not parse.
    raise NotImplementedError("salvage_snapshot is not written yet")
