"""Wrong: appends the prompt when the turn starts, and every MessageEnd's message as well.

TurnStart carries the user's message, so writing it there looks like the earliest possible
save. But the loop also announces the user's message with a MessageEnd, so it is written
twice, and a resumed session would show the user saying everything twice.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd, TurnStart
from session import Session

EXPECTED_FAIL = "it kept user+user+assistant, expected user+assistant"


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    written = 0
    for event in events:
        if isinstance(event, TurnStart):  # "save the user's line before anything else"
            session.append_message(event.prompt)
            written += 1
        elif isinstance(event, MessageEnd):
            session.append_message(event.message)
            written += 1
    return written
