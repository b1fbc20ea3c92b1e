"""Right: a `match` on the event, and the entry written with session.append_entry.

append_message is one line on top of append_entry("message", {"message": ...}); writing the
entry through the lower call is the same line in the file, and a class pattern is another
honest way to pick out MessageEnd.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd
from session import Session


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    written = 0
    for event in events:
        match event:
            case MessageEnd(message=message):
                session.append_entry("message", {"message": message})
                written += 1
            case _:
                pass
    return written
