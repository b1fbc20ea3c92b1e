"""Wrong: find each message's end by counting { and } , ignoring that texts contain them too.

Depth counting is how a parser starts, but a parser also knows when it is inside a string. A
text such as 'tricky: ], }' moves the count, so a message is cut in the wrong place and that
piece does not parse.
"""

from __future__ import annotations

import json

from messages import Message

EXPECTED_FAIL = 'cut after 410/555 bytes, ending `otes\\""}]}`: 4 messages, expected 5'


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    text = data.decode("utf-8", errors="ignore")
    messages: list[Message] = []
    depth, start = 0, None
    for index, character in enumerate(text):
        if character == "{":
            if depth == 0:
                start = index
            depth += 1
        elif character == "}":
            depth -= 1
            if depth == 0 and start is not None:
                try:
                    messages.append(json.loads(text[start : index + 1]))
                except json.JSONDecodeError:
                    return messages
    return messages
