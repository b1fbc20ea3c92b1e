"""Wrong: the lock is a file beside the session, created with O_EXCL and removed by unlock.

O_EXCL makes the creation atomic: of two runs, one creates it and the other is refused, and
a clean end removes it. But a run SIGKILLed while it holds the lock never removes it: the
file stays, and every later run is refused, though nobody holds the session.
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "the holder SIGKILLed after a write: then raised SessionInUse"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    lock = Path(f"{path}.lock")
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise SessionInUse(Path(path)) from None
    os.close(fd)
    return lock


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    held.unlink()


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
