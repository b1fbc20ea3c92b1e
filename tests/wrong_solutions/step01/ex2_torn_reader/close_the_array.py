"""Wrong: cut back to the last "}" and close the array with "]", then parse it all at once.

It works when the cut lands between messages, which is where people picture it. But the last
"}" may close a block inside a message (the message itself is still open), or sit inside a
text; then the repaired array does not parse and everything is lost, or it parses into the
wrong thing.
"""

from __future__ import annotations

import json

from messages import Message

EXPECTED_FAIL = 'cut after 147/555 bytes, ending `* 7 = 7."}`: 0 messages, expected 1'


def salvage_snapshot(data: bytes) -> list[Message]:
    """Every complete message at the start of a (possibly torn) snapshot file."""
    text = data.decode("utf-8", errors="ignore")
    end = text.rfind("}")
    if end < 0:
        return []
    try:
        return json.loads(text[: end + 1] + "]")
    except json.JSONDecodeError:
        return []
