"""Wrong: compares folders with os.path.samefile, and lets its error end the search.

samefile is the right idea (it compares what is on disk, so symlinks and spellings agree),
but it has to look both folders up: for a session whose project folder was deleted since,
it raises FileNotFoundError, and --continue fails for every project instead of passing over
one stale session.
"""

from __future__ import annotations

import os
from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = "[gone 0s ago, a 1s ago] from a: raised FileNotFoundError"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    for path in list_session_files(directory):
        try:
            header = read_header(path)
        except UnusableSessionFile:
            continue
        if os.path.samefile(header["cwd"], cwd):
            return path
    return None
