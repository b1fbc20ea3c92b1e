"""Exercise 07.2: a lock that a SIGKILLed holder never leaves behind.

Fill-in exercise, about 25 minutes.

Two runs that `--continue` one session both read the same leaf and both append the next id:
their turns interleave, and one is lost (notebook 07, section 3). So a run that writes a
session holds a lock on it, and a second run is refused. The hard case is the run that dies
holding it: SIGKILL, the OOM killer, a power cut. No `finally:` and no exit handler runs then,
so a lock that something must remove (a `.lock` file, a pid written down) stays, and the
session is locked out for good.
Write `lock_session(path)`, which locks the session file `path` for this run and returns what
holds the lock (yours to choose), and `unlock_session(held)`, which lets go of it.

What the check holds you to (in this process, and with real processes that hold your lock):

- A session another run holds is refused at once: `lock_session` raises `SessionInUse(path)`,
  never waits for the holder, and raises nothing else for it. Nothing else raises
  SessionInUse: a missing file is not in use, and another session of the folder stays free.
- A holder SIGKILLed (right after writing a line) leaves no lock: the next run locks at once.
- A live holder keeps the lock for as long as it writes. The step's writer opens and closes
  the session file for every line it appends: the lock must outlive all of that.
- The lock changes nothing on disk: the session's bytes stay, and no file appears beside it
  (a lock file is just what SIGKILL leaves behind).
- `unlock_session` lets go: the session can be locked again. Neither a lock and its unlock
  nor a refusal leaves a descriptor open: a run that asks again and again must not run out
  of them (the check asks 50 times).

The rest is given: `open_locked(path)`, what `--continue` does with your lock. Check it with
`python -m exercises check 07.2` or the notebook.
"""

from __future__ import annotations

import fcntl  # noqa: F401
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    # TODO: the lock, or SessionInUse at once.
    raise NotImplementedError("lock_session is not written yet")


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    # TODO: let go of it.
    raise NotImplementedError("unlock_session is not written yet")


# --- Given: what `--continue` does with the lock ------------------------------------------


def open_locked(path: Path | str) -> tuple[Any, Resumed]:
    """Lock the session, then read it: the lock is held before the leaf is read, so no other
    run can append between this read and this run's first write."""
    held = lock_session(path)
    try:
        return held, Session.open(path)
    except BaseException:
        unlock_session(held)
        raise
