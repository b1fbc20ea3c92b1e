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

import json

from messages import Message


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    text = data.decode("utf-8", errors="ignore")
    decoder = json.JSONDecoder()
    messages: list[Message] = []
    if not text.startswith("["):
        return messages  # empty (the truncating open won the race): nothing to salvage
    index = 1
    while index < len(text):
        try:
            message, index = decoder.raw_decode(text, index)  # one value, and where it ended
        except json.JSONDecodeError:
            break  # the torn message: everything before it is safe
        messages.append(message)
        if text[index : index + 1] != ",":
            break  # "]" (the whole array was there) or the cut
        index += 1
    return messages
