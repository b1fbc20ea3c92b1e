"""Right: the lock is taken on a Python file object, returned and closed by unlock.

fcntl.flock takes a file object as well as a descriptor, and the lock lives as long as the
object's open file. A check that wanted an int back would fail it.
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
    file = open(path, "rb")  # noqa: SIM115  (held until unlock)
    try:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.close()
        raise SessionInUse(Path(path)) from None
    return file


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    held.close()


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
