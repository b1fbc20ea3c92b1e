"""Wrong: flock inside `with open(path) as file:`, returning the descriptor number.

Tidy: the file is closed whatever happens. But the lock belongs to the open file, and the
`with` closes it on the way out: the lock goes before lock_session has returned, and the
number it returns names nothing.
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
    with open(path, "rb") as file:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SessionInUse(Path(path)) from None
        return file.fileno()


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    pass  # the with block closed the file already


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
