"""Wrong: a held lock raises what flock raises, BlockingIOError.

The lock is right: flock, LOCK_NB, on the file itself. But the caller is told "[Errno 11]
Resource temporarily unavailable", which main.py does not know as a session in use: it gets a
traceback, or a message that says nothing about another run.
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "the holder alive after a write: raised BlockingIOError"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # refused at once: that is enough
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
