"""Wrong: writes the right messages at the right time, but counts every event it sees.

The return value is documented as "how many messages it appended"; a caller that moves a
cursor by it (as main.py does with persist_new_messages) would skip messages or write past
the end of its list.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd
from session import Session

EXPECTED_FAIL = "after what is 12*8: it returned 11, expected 4"


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    written = 0
    for event in events:
        if isinstance(event, MessageEnd):
            session.append_message(event.message)
        written += 1  # "one more thing handled"
    return written
