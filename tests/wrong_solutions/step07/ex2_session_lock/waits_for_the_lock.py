"""Wrong: flock without LOCK_NB: a held session is waited for, not refused.

It is a lock, the kernel drops it when its holder dies, and two runs never write at once. But
the second run hangs, without a word, for as long as the first one lives: an hour, a day. It
must be refused at once, so the user can be told.
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "the holder alive after a write: it waited 2 s"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # the other run finishes first
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
