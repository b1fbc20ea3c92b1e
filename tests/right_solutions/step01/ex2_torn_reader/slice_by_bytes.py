"""Right: stay in bytes; trim the cut to the last whole character, then raw_decode.

Another honest way to meet a cut inside a multi-byte character: instead of ignoring bad
bytes anywhere, drop only the incomplete character at the very end (a valid UTF-8 file can
only be damaged there), and skip spaces between values as JSON allows.
"""

from __future__ import annotations

import json

from messages import Message


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    data = data.rstrip(b"\x00")  # a power cut can leave the unwritten end as zero bytes
    for trim in range(4):  # a UTF-8 character is at most 4 bytes long
        try:
            text = data[: len(data) - trim].decode("utf-8")
            break
        except UnicodeDecodeError:
            continue
    else:
        return []
    decoder = json.JSONDecoder()
    messages: list[Message] = []
    index = len(text) - len(text.lstrip())
    if text[index : index + 1] != "[":
        return messages
    index += 1
    while True:
        index += len(text[index:]) - len(text[index:].lstrip())
        try:
            message, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            return messages
        messages.append(message)
        index += len(text[index:]) - len(text[index:].lstrip())
        if text[index : index + 1] != ",":
            return messages
        index += 1
