"""Wrong: keeps the finished messages until TurnEnd, then appends them together.

One write burst per turn, like main.py's persist after the turn: tidy, and every message
reaches the file. But until the turn ends they live only in memory, so a process killed
while the tool runs (or while the model streams) loses the whole turn, which is exactly what
this exercise was meant to fix.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd, TurnEnd
from messages import Message
from session import Session

EXPECTED_FAIL = "SIGKILL in the tool: it kept no message, expected user+assistant"


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    pending: list[Message] = []
    written = 0
    for event in events:
        if isinstance(event, MessageEnd):
            pending.append(event.message)
        elif isinstance(event, TurnEnd):  # "the turn is complete: save it in one go"
            for message in pending:
                session.append_message(message)
            written += len(pending)
            pending.clear()
    return written
