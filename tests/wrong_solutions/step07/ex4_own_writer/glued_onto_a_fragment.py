"""Wrong: the line is written where the file ends, whatever it ends in: after a crash that cut
a line, the next entry is glued onto the fragment, and lost with it."""

from __future__ import annotations

import os
from pathlib import Path

from session_file import SessionError, SessionFile
from session_format import encode

PRIVATE = 0o600  # a session holds everything said: its owner's alone
# Read and write (the last byte is read before each line), always at the end.
APPENDING = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC

EXPECTED_FAIL = "no crash point costs a finished entry, or the next"


def append_line(path: Path, line: bytes, header: bytes | None) -> None:
    """Append `line` (it ends in `\\n`) to the session file `path`, created with `header`
    first if `header` is given."""
    creating = header is not None
    try:  # O_EXCL: never over another file; without O_CREAT, a file gone stays gone
        fd = os.open(path, APPENDING | (os.O_CREAT | os.O_EXCL if creating else 0), PRIVATE)
    except FileExistsError:
        raise SessionError(f"session file already exists: {path}") from None
    except FileNotFoundError:
        raise SessionError(f"session file {path} is gone") from None
    except OSError as error:
        raise SessionError(f"cannot write {path}: {error.strerror}") from None
    try:
        if header is not None:
            os.fchmod(fd, PRIVATE)  # the umask may have taken more away than asked
            data = header + line
        else:
            data = line  # at the end, as O_APPEND puts it
        view = memoryview(data)  # one write, looped only if the kernel cut it short
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:  # a full disk: what was written stays, and the next line ends it
        raise SessionError(f"cannot write {path}: {error.strerror}") from None
    finally:
        os.close(fd)


# --- Given: the step's JSONL store, with your writer for its appends ----------------------


class OwnFile(SessionFile):
    """SessionFile, its reading, locking and the rest as they are, its appends yours."""

    def append(self, line: bytes) -> None:
        header = None if self.exists else encode(self.path, self._header)  # type: ignore[arg-type]
        if header is not None:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        append_line(self.path, line, header)
        found = os.stat(self.path)  # how far the file goes now: lines past it are another's
        self._file, self._size, self.exists = (found.st_dev, found.st_ino), found.st_size, True
