"""Wrong: unlock_session lets go of the lock with LOCK_UN, and keeps the descriptor open.

The lock is right, and so is the refusal: the session can be locked again at once. But the
descriptor lock_session opened is never closed, so every lock and unlock leaves one more open
file in the process: a program that opens one session after another runs out of descriptors.
Closing the descriptor is what lets go of an flock; LOCK_UN before it changes nothing.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse

EXPECTED_FAIL = "unlock_session lets go of it; 50 locks and unlocks: 50 descriptors left open"


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
    fcntl.flock(held, fcntl.LOCK_UN)  # unlocked: the session can be locked again


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
