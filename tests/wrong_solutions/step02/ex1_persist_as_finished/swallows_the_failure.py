"""Wrong: catches any exception of the turn, so that "saving never crashes the program".

Every finished message is in the file, but a turn that failed (the model went away) returns
like a turn that ended: the caller never learns that the answer is missing, prints nothing,
and the next turn goes on from a history with a tool result and no reply.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd
from session import Session

EXPECTED_FAIL = "a turn's exception goes on; a model failing mid-turn: it returned"


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    written = 0
    try:
        for event in events:
            if isinstance(event, MessageEnd):
                session.append_message(event.message)
                written += 1
    except Exception:  # "what was finished is saved; keep going"
        pass
    return written
