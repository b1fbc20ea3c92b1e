"""Right: os.path.realpath on both sides, and the step's module imported whole.

realpath is what Path.resolve does (symlinks, "..", a trailing slash), on strings; `import
session` sees the same functions as `from session import ...`.
"""

from __future__ import annotations

import os
from pathlib import Path

import session


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = os.path.realpath(cwd)
    candidates = session.list_session_files(directory)
    for path in candidates:
        try:
            if os.path.realpath(session.read_header(path)["cwd"]) == wanted:
                return path
        except session.UnusableSessionFile:
            pass
    return None
