"""Exercise 02.1: save each message the moment it is finished, not at the end of the turn.

Fill-in exercise, about 15 minutes.

main.py saves once a turn is over, so a crash in the middle of a turn loses all of it, even the
user's line. Write `persist_as_finished(events, session)`, which runs one turn by consuming the
events of `run_turn`, and saves as it goes. The loop stays ignorant of disk: loop.py is not
changed, you only read its events (a real harness subscribes to "message finished" the same
way).

What the check holds you to:

- A message is in the file from the moment its `MessageEnd` event has reached you, before the
  turn goes on: the check runs a turn in a child process and kills it with SIGKILL while the
  tool runs (no `finally:`, no exit handler, no buffer flush runs after that), and the file
  must then hold the two messages finished before the kill, the user's line and the
  assistant's tool call.
- Each message is saved once, in order, turn after turn, and nothing else is written.
- It returns how many messages it saved.
- A turn that fails (the model goes away mid-turn) raises out of `events`: the exception goes
  on to the caller, who tells the user, and what was finished before it is already saved.

Check it with `python -m exercises check 02.1` or the notebook; stuck: `make hint ID=02.1`.
"""

from __future__ import annotations

from collections.abc import Iterable

from loop import LoopEvent, MessageEnd  # noqa: F401
from session import Session


def persist_as_finished(events: Iterable[LoopEvent], session: Session) -> int:
    """Run a turn by consuming its events; save every finished message to `session`."""
    # TODO: run the turn, saving as it goes.
    raise NotImplementedError("persist_as_finished is not written yet")
