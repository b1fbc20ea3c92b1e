"""Wrong: collects the finished messages and appends them all in a `finally:` block.

"finally always runs, so nothing is lost": true for an exception, which is how a crash looks
in a test. A real crash is a killed process (SIGKILL, a power cut for the process, the OOM
killer): no Python code runs after it, `finally:` included, and every message collected but
not yet written is gone, the user's line first of all.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd
from messages import Message
from session import Session

EXPECTED_FAIL = "SIGKILL in the tool: it kept no message, expected user+assistant"


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    finished: list[Message] = []
    try:
        for event in events:
            if isinstance(event, MessageEnd):
                finished.append(event.message)
    finally:  # "even if the turn crashes, what was finished gets saved"
        for message in finished:
            session.append_message(message)
    return len(finished)
