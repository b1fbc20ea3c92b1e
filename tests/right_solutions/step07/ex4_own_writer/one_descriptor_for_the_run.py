"""Right, another design: the file is opened once for the run, and its descriptor kept (one
open per session, not one per line), checked against the path before each line so that a
file deleted or replaced meanwhile is refused rather than written into; a fragment at the end
is ended with a write of its own, before the line's (a kill between the two leaves a whole
file), and the line's write is checked for its length."""

from __future__ import annotations

import os
from pathlib import Path

from session_file import SessionError, SessionFile
from session_format import encode

OPEN: dict[Path, int] = {}  # the descriptor this run appends through, by path


def append_line(path: Path, line: bytes, header: bytes | None) -> None:
    try:
        fd = descriptor(path, header is not None)
        if header is not None:
            write(fd, header)
        else:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                write(fd, b"\n")  # end the fragment a crash or a full disk left
        write(fd, line)
    except OSError as error:
        raise SessionError(f"cannot write {path}: {error}") from None


def descriptor(path: Path, creating: bool) -> int:
    """The run's descriptor of `path`: made now (a new file, never over another), or kept
    from before if the path still names the file it was opened on."""
    fd = OPEN.get(path)
    if fd is not None:
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same and not creating:
            return fd
        os.close(OPEN.pop(path))
    flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | (os.O_CREAT | os.O_EXCL if creating else 0), 0o600)
    except FileExistsError:
        raise SessionError(f"{path} exists: a new session never goes over it") from None
    except FileNotFoundError:
        raise SessionError(f"{path} is gone") from None
    if creating:
        os.fchmod(fd, 0o600)
    OPEN[path] = fd
    return fd


def write(fd: int, data: bytes) -> None:
    done = 0
    while done < len(data):
        done += os.write(fd, data[done:])


class OwnFile(SessionFile):
    def append(self, line: bytes) -> None:
        header = None if self.exists else encode(self.path, self._header)  # type: ignore[arg-type]
        if header is not None:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        append_line(self.path, line, header)
        found = os.stat(self.path)
        self._file, self._size, self.exists = (found.st_dev, found.st_ino), found.st_size, True
