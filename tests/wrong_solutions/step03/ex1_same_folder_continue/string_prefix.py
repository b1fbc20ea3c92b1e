"""Wrong: a session matches when its cwd starts with the folder given (a string prefix).

"Same project, or somewhere inside it" sounds generous, but it is a string test: /x/proj-old
starts with /x/proj, so the newest session of ANOTHER project is resumed; and a session of a
subfolder counts as the parent's.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = "for cwd proj it returned 20260103-proj-old.jsonl, which was started in proj-old"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    for path in list_session_files(directory):
        try:
            if read_header(path)["cwd"].startswith(str(cwd)):
                return path
        except UnusableSessionFile:
            continue
    return None
