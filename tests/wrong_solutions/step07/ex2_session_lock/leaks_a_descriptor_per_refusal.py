"""Wrong: a refusal raises SessionInUse, and leaves the descriptor it opened open.

The lock is right: flock, LOCK_NB, on the session file, the descriptor closed by unlock. But
a refused lock is never returned, so nothing will ever close what it opened: every refusal
costs the process one descriptor. A run that retries while another holds the session, or a
program that asks about many sessions, runs out of them (EMFILE) and can open no file at all.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse

EXPECTED_FAIL = "a refusal leaves nothing open; 50 refused locks: 50 descriptors left open"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionInUse(Path(path)) from None  # someone else's: nothing of ours to undo
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
