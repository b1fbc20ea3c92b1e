"""Wrong: every error of the lock is taken for "someone holds it".

`except OSError` catches BlockingIOError, the one error that means another run holds the
lock, and every other one with it: a session file that is missing, unreadable, or a folder.
The run is then told the session is in use, and waits for a holder that does not exist.
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "lock_session of a file that does not exist: raised SessionInUse"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise SessionInUse(Path(path)) from None
    return fd


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    os.close(held)


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
