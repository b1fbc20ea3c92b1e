"""Wrong: resolves the folder it was given, and compares the header's cwd as written.

Resolving the query handles a trailing slash, ".." and a symlink typed by the user. But a
header can hold a symlinked path too (a harness that records $PWD keeps the link's name):
compared unresolved, that session no longer looks like it belongs to this folder.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = (
    "for cwd real it returned 20260101-by-real.jsonl, which is the older of real's two sessions"
)


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()
    for path in list_session_files(directory):
        try:
            if Path(read_header(path)["cwd"]) == wanted:
                return path
        except UnusableSessionFile:
            continue
    return None
