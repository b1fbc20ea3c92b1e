"""Exercise 02.1: save each message the moment it is finished, not at the end of the turn.

main.py persists once a turn is over, so a crash in the middle of a turn loses all of it,
even the user's line. Write `persist_as_finished(events, session)`: it consumes the events of
one `run_turn` and appends each message to `session` as soon as its `MessageEnd` event
arrives, each once. It returns how many messages it appended. A turn that fails (the model
goes away mid-turn) raises out of `events`: let it go on to the caller, who tells the user;
what was finished before it is already saved.

The loop must stay ignorant of disk: you only read its events, you do not change loop.py.
(This is how a real harness does it: the session subscribes to "message finished" events.)

The check crashes a real process: it runs a turn through your function in a child process
and kills it with SIGKILL while the tool runs. No `finally:`, no exit handler, no buffer
flush runs after SIGKILL, so only what was already written survives. When it works, the file
holds the two messages finished before the kill: the user's line and the assistant's tool
call. Check it with `python -m exercises check 02.1` or the notebook; stuck: `make hint
ID=02.1`.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd
from session import Session


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; append every finished message to `session`."""
    written = 0
    for event in events:
        # The loop announces a message only after appending it to the list, so what we
        # write here is exactly what the list holds, in the same order. It is on disk before
        # the loop goes on (to the model, or to a tool): a kill after this line cannot undo it.
        if isinstance(event, MessageEnd):
            session.append_message(event.message)
            written += 1
    return written
