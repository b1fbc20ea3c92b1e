"""Wrong: turns the events into a list first, then appends each MessageEnd's message.

The appends are right, but `list(events)` runs the whole turn (the model calls and the tool)
before the first append: the events are a generator, and nothing is written until it is
exhausted. A process killed while the tool runs has written nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd
from session import Session

EXPECTED_FAIL = "SIGKILL in the tool: it kept no message, expected user+assistant"


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    events = list(events)  # "look at the whole turn first"
    finished = [event.message for event in events if isinstance(event, MessageEnd)]
    for message in finished:
        session.append_message(message)
    return len(finished)
