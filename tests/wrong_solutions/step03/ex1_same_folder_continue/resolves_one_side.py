"""Wrong: resolves the folder it was given, and compares the header's cwd as written.

Resolving the query handles a trailing slash, ".." and a symlink typed by the user. But a
header can hold a symlinked path too (a harness that records $PWD keeps the link's name):
compared unresolved, that session no longer looks like it belongs to this folder.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = "[link-to-a 1s ago, a 2s ago] from a: s2 (a), expected s1 (link-to-a)"


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
