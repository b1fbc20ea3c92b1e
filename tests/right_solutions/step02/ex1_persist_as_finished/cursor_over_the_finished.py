"""Right: keeps its own list of finished messages and writes it with the step's cursor.

Each MessageEnd adds one message to the list and persist_new_messages writes what is new at
once, before the next event is asked for: the same lines, at the same moments, through the
function main.py uses after a turn.
"""

from __future__ import annotations

from collections.abc import Iterable

import loop
from messages import Message
from session import Session, persist_new_messages


def persist_as_finished(events: Iterable[loop.LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    finished: list[Message] = []
    cursor = 0
    for event in events:
        if isinstance(event, loop.MessageEnd):
            finished.append(event.message)
            cursor = persist_new_messages(session, finished, cursor)
    return cursor
