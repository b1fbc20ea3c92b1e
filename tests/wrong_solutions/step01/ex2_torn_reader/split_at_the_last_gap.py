"""Wrong: parse the whole file; on failure cut back to the last "},{" and close the array.

"},{" is where one message ends and the next begins, unless it is inside a text, or the file
was cut right after a message's "}" before any ",": then the last complete message is lost.
"""

from __future__ import annotations

import json

from messages import Message

EXPECTED_FAIL = 'cut after 80/555 bytes, ending `1 * 7?"}]}`: 0 messages, expected 1'


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    text = data.decode("utf-8", errors="ignore")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    end = text.rfind("},{")
    if end < 0:
        return []
    try:
        return json.loads(text[: end + 1] + "]")
    except json.JSONDecodeError:
        return []
