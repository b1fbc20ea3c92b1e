# >>file prod
"""What a session file and its folder are asked beyond open, read and write.

Whether a new file can be created there at all, or an existing one appended to, asked before
any turn so that a run that could never save says so at once and leaves nothing behind; and,
with --fsync, the folder synced, so that a new file's name survives a power loss as its bytes do.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from session_format import SessionError


def check_creatable(path: Path) -> None:
    """Refuse now a session file that its first save could not create: a folder on the way
    that is a file, a name too long, a folder this process may not write in. Nothing is
    created: a run that saves nothing leaves nothing behind."""
    folder, missing = path.parent.absolute(), [path.name]
    try:
        while not os.path.lexists(folder) and folder != folder.parent:
            missing.append(folder.name)
            folder = folder.parent
        if not os.path.isdir(folder):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        longest = os.pathconf(folder, "PC_NAME_MAX")
        if any(len(os.fsencode(name)) > longest for name in missing):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
        if len(os.fsencode(path.absolute())) >= os.pathconf(folder, "PC_PATH_MAX"):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))  # the whole path
        if os.statvfs(folder).f_flag & os.ST_RDONLY:  # access() says only "no": say why
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        if not os.access(folder, os.W_OK | os.X_OK, effective_ids=True):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as error:
        only_the_file = len(missing) == 1 and os.path.isdir(folder)
        where = "session file in" if only_the_file else "session folder"
        raise SessionError(f"cannot create {where} {path.parent}: {error.strerror}") from None


def check_appendable(path: Path, flags: int) -> None:
    """`path` must open for appending with the writer's `flags`, as a regular file."""
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise SessionError(f"cannot append to {path}: {error.strerror}") from None
    try:
        found = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(found.st_mode):
        raise SessionError(f"cannot append to {path}: not a regular file")


def fsync_folder(folder: Path) -> None:
    """A new file's name lives in its folder: until the folder is synced, a power loss can
    lose the name, and with it every synced byte of the file. Some filesystems (network and
    shared folders) cannot sync a folder at all and say EINVAL: there is nothing more to ask
    for, and the line is written, so that is no reason to end the run."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def companions(path: Path) -> tuple[Path, Path]:
    """The files SQLite keeps beside a database: its write-ahead log and its shared memory."""
    return Path(f"{path}-wal"), Path(f"{path}-shm")


def check_no_companions(path: Path) -> None:
    """Refuse to make a database where an earlier one's -wal or -shm is left: SQLite would
    read that log into the new database as its own (a conversion once took another session's
    entries so, and said it had copied this one)."""
    for left in companions(path):
        if os.path.lexists(left):
            raise SessionError(f"{left} is left from an earlier database; move it away first")
