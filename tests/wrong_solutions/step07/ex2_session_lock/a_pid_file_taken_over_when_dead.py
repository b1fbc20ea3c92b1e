"""Wrong: a lock file beside the session holding the holder's pid; a lock whose pid is dead
is taken over.

It survives the check a plain lock file fails (SIGKILL leaves the file, but the next run
finds its pid dead), and is still wrong: the file is made on disk, two runs that both find a
dead pid both take it over, and a pid is reused (a new process with the dead one's pid
holds the session for good).
"""

from __future__ import annotations

import fcntl  # noqa: F401  (you may need it)
import os  # noqa: F401
from pathlib import Path
from typing import Any

from session import Resumed, Session
from session_file import SessionInUse  # noqa: F401

EXPECTED_FAIL = "a holder alive, after a write: the folder: it made"


def lock_session(path: Path | str) -> Any:
    """Lock the session file `path` for this run, without waiting; SessionInUse if held."""
    lock = Path(f"{path}.lock")
    if lock.exists():
        try:
            os.kill(int(lock.read_text()), 0)  # is its holder alive?
            raise SessionInUse(Path(path))
        except (ProcessLookupError, ValueError):
            lock.unlink()  # a dead holder's: take it over
    lock.write_text(str(os.getpid()))
    return lock


def unlock_session(held: Any) -> None:
    """Let go of the lock `lock_session` returned."""
    held.unlink(missing_ok=True)


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
