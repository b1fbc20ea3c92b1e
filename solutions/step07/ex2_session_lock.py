"""Exercise 07.2: a lock that a SIGKILLed holder never leaves behind.

Two runs that `--continue` one session both read the same leaf and both append the next id:
their turns interleave, and one is lost (notebook 07, section 3). So a run that writes a
session holds a lock on it, and a second run is refused. The hard case is the run that dies
holding it: SIGKILL, the OOM killer, a power cut. No `finally:` and no exit handler runs
then, so a lock that something must remove (a `.lock` file, a pid written down) stays, and
the session is locked out for good. Write `lock_session(path)` and `unlock_session(held)`:

- `lock_session(path)` takes an exclusive lock on the session file `path` itself, without
  waiting, and returns what holds it (a descriptor or an open file: yours to choose). A
  session another process holds raises `SessionInUse(path)` at once: it never waits for the
  holder, and raises nothing else for it. Nothing else raises SessionInUse: a missing file
  is not in use, and a run told it is would wait for no one. A refusal leaves nothing open:
  a run that asks again and again would run out of file descriptors.
- The lock ends with its holder, however it ends: a holder SIGKILLed leaves no lock. Let the
  kernel hold it, on an open file, so that it goes when the holder's descriptors close (a
  process that dies closes them all).
- It lasts while the run writes: the step's writer opens and closes the file for every line.
  A lock that goes at one of those closes is no lock: `fcntl.lockf`'s does (a POSIX lock
  belongs to the process, and goes at its first close of ANY descriptor of the file), an
  `fcntl.flock` belongs to the open file it was taken on.
- It changes nothing on disk: the session's bytes stay as they are, and no file is created
  (a lock file beside the session is just what SIGKILL leaves behind).
- `unlock_session(held)` lets go of it: the session can be locked again, and nothing the
  lock held stays open.

The rest is given: `open_locked(path)`, what `--continue` does with your lock. Check it with
`python -m exercises check 07.2` or the notebook.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)  # read only: the lock writes nothing
    try:
        # flock: the lock belongs to this open file, so the writer's own opens and closes
        # leave it alone; and the kernel drops it when the last descriptor closes, which a
        # process that dies, however, does. LOCK_NB: a held lock is refused, never waited for.
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SessionInUse(Path(path)) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    os.close(held)  # the last descriptor of that open file: the lock goes with it


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
