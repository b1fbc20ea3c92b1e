"""Wrong: fcntl.lockf instead of fcntl.flock.

lockf takes a POSIX record lock: exclusive, refused without waiting, and dropped by the
kernel when the holder dies, all as wanted. But a POSIX lock belongs to the process, and goes
the first time the process closes ANY descriptor of the file: the step's writer opens and
closes the file for every line, so the first line written unlocks the session.
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "the holder alive after a write: it took the lock"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    fd = os.open(path, os.O_RDWR)  # lockf's exclusive lock needs the file open for writing
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
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
