"""Wrong: unlock_session does nothing: the lock goes when the process ends anyway.

That is true, and it is why a SIGKILL leaves no lock. But a run may let go of a session and
go on (switch to another one, fork it and hand it over): a session it let go of is locked
until it exits.
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "lock, unlock, lock a session no one holds: raised SessionInUse"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SessionInUse(Path(path)) from None
    return fd


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    pass  # the kernel drops the lock when the process ends


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
