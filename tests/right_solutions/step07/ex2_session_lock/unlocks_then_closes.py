"""Right: LOCK_UN first, then the close; the refusal tested with errno.

An explicit unlock reads as intended; the close that follows would have dropped the lock
anyway. flock's refusal is OSError with EWOULDBLOCK (BlockingIOError is the same thing).
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    import errno

    fd = os.open(path, os.O_RDONLY | os.O_NOCTTY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        os.close(fd)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise SessionInUse(Path(path)) from None
        raise
    return fd


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    fcntl.flock(held, fcntl.LOCK_UN)
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
