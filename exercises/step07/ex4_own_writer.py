"""Exercise 07.4: a writer of your own, that no crash point can trick.

Open exercise, about 45 minutes.

Everything a session file holds got there through one function: the writer, which appends a
line (session_file.SessionFile.append is the step's). A crash, a full disk or another run
killed half-way can leave a file ending in a fragment of a line; the next run must go on
without losing a finished entry, or the one it writes next. Write `append_line(path, line,
header)`, a writer of your own design: how it opens the file, finds how it ends, writes, fails.
`OwnFile` below (given) is the step's JSONL store with your writer for its appends.

What the check holds you to (every crash point of tools/crash_points.py, and real processes):

- Every crash point: a real session cut at each of its byte boundaries, as a crash can leave
  it; the next run resumes it and appends through your writer, and the run after reads it
  back. No cut may raise, cost a finished entry, or lose the entry appended after it.
- The file's old bytes never change: it is only ever appended to. A line is appended whole:
  when `append_line` returns, all of it is in the file, so a SIGKILL right after loses
  nothing (the check kills a process that has appended ten lines, and counts them).
- A write the disk refuses, or cuts short (a full disk; the check sets a file size limit),
  raises SessionError, never returns as if it wrote; and the same run's next append, once
  the disk takes it again, still loses nothing: the file's end is what the file says now.
- `header` is the header line when this append creates the file (None when it exists): the
  file then starts with it, is created by this append and never over another file (an
  existing one raises SessionError, and keeps its bytes), and is private, mode 0600,
  whatever the umask (022 in the check). A file that is gone when it should exist raises
  SessionError and is not made again: a file without its header is no session.

The folder exists when `append_line` is called. Check it with `python -m exercises check 07.4`
or the notebook; stuck: `make hint ID=07.4`.
"""

from __future__ import annotations

import os
from pathlib import Path

from session_file import SessionError, SessionFile  # noqa: F401
from session_format import encode


def append_line(path: Path, line: bytes, header: bytes | None) -> None:
    """Append `line` (it ends in `\\n`) to the session file `path`, created with `header`
    first if `header` is given."""
    # TODO: your writer.
    raise NotImplementedError("append_line is not written yet")


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
