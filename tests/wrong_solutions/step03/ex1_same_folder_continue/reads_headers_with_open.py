"""Wrong: reads each header itself, with open() and json, skipping files that raise.

It catches every error a broken file raises, so it looks as tolerant as read_header. But a
FIFO named like a session raises nothing: a plain open() of a FIFO waits for a writer, and
--continue hangs forever before the user has typed a word. read_header opens without
blocking and refuses anything that is not a regular file.
"""

from __future__ import annotations

import json
from pathlib import Path

from session import holds_a_message, list_session_files

EXPECTED_FAIL = "find_latest_session_in did not return within 2 s: it blocked on a FIFO"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()
    for path in list_session_files(directory):
        try:
            with open(path, "rb") as file:
                header = json.loads(file.readline())
            started_in = header["cwd"] if header.get("version") == 1 else None
        except (OSError, ValueError, KeyError, AttributeError):
            continue  # "anything broken is not a candidate"
        started_here = isinstance(started_in, str) and Path(started_in).resolve() == wanted
        if started_here and holds_a_message(path):
            return path
    return None
