"""Wrong: always drop the last parsed message, "in case it was torn".

A message that parses is complete: JSON cannot parse a value that was cut short. Dropping it
anyway loses one acknowledged message from every file, including the intact ones.
"""

from __future__ import annotations

import json

from messages import Message

EXPECTED_FAIL = 'cut after 80/555 bytes, ending `1 * 7?"}]}`: 0 messages, expected 1'


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    text = data.decode("utf-8", errors="ignore")
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
    return messages[:-1]  # the last one might be damaged
