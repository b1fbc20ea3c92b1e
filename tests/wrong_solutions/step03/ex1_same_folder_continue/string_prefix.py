"""Wrong: a session matches when its cwd starts with the folder given (a string prefix).

"Same project, or somewhere inside it" sounds generous, but it is a string test: /x/proj-old
starts with /x/proj, so the newest session of ANOTHER project is resumed; and a session of a
subfolder counts as the parent's.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = "[a-old 0s ago, a 1s ago] from a: s1 (a-old), expected s2 (a)"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    for path in list_session_files(directory):
        try:
            if read_header(path)["cwd"].startswith(str(cwd)):
                return path
        except UnusableSessionFile:
            continue
    return None
