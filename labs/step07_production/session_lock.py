"""One writer to a session: the advisory lock a run holds on the file it appends to.

Two runs that continue one session would both read the same leaf and append the same next id.
A run that writes a session locks it for as long as it runs; a second one is refused
(SessionInUse) instead of splicing its entries into the first one's.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import suppress
from pathlib import Path

from session_format import SessionError, SessionInUse
from session_reader import open_for_reading


def hold_lock(path: Path) -> int:
    """Lock an existing session file (a regular file: never block on a FIFO)."""
    with open_for_reading(path) as file:
        return lock_file(path, file.fileno())


def lock_file(path: Path, fd: int) -> int:
    """Take an exclusive advisory lock on the open file `fd`, without waiting, and return a
    descriptor of its own that holds it until it is closed.

    flock, not fcntl/lockf: a POSIX lock is dropped when the process closes *any* descriptor
    of the file, and every write opens and closes one. An flock belongs to the open file, so
    the duplicate keeps it. Advisory: only runs that ask for the lock are kept out.
    """
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionInUse(path) from None
    except OSError as error:
        raise SessionError(f"cannot lock {path}: {error.strerror}") from None
    held = os.dup(fd)
    _HELD_LOCKS.add(held)
    return held


# The descriptors that hold a session's lock. A forked child gets a copy of each, and an flock
# lasts while any copy is open: a child that outlived the run (a tool's helper forked without
# exec) would keep the session locked. So the child closes its copies the moment it is born.
# (exec closes them anyway: os.dup makes them non-inheritable.)
_HELD_LOCKS: set[int] = set()


def unlock(fd: int) -> None:
    _HELD_LOCKS.discard(fd)
    os.close(fd)


def _let_go_of_locks_in_child() -> None:
    for fd in _HELD_LOCKS:
        with suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


os.register_at_fork(after_in_child=_let_go_of_locks_in_child)
