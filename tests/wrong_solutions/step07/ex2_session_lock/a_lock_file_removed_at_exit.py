"""Wrong: a lock file holding the holder's pid, removed by unlock or, whatever happens, by an
atexit handler.

"Whatever happens" is the trap: atexit handlers run at a normal exit and after an uncaught
exception, as a `finally:` would. SIGKILL runs nothing: the file stays, naming a dead pid,
and the session is locked out. (Reading the pid back to test it is a race, and pids are
reused.)
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
    import atexit

    lock = Path(f"{path}.lock")
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise SessionInUse(Path(path)) from None
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    atexit.register(lock.unlink, missing_ok=True)  # never left behind, it seems
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
