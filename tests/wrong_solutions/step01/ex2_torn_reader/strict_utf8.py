"""Wrong: decode the bytes strictly, so a cut inside a multi-byte character raises.

Every cut between characters works. But a crash stops a write after any BYTE, and "é", "你"
and "🙂" take two to four bytes: cut between them and `decode("utf-8")` raises
UnicodeDecodeError, losing every complete message before the cut.
"""

from __future__ import annotations

import json

from messages import Message

EXPECTED_FAIL = "salvage never raises; the tricky history cut after 477/555 bytes"


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    text = data.decode("utf-8")
    decoder = json.JSONDecoder()
    messages: list[Message] = []
    if not text.startswith("["):
        return messages
    index = 1
    while index < len(text):
        try:
            message, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            break
        messages.append(message)
        if text[index : index + 1] != ",":
            break
        index += 1
    return messages
