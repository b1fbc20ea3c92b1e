"""Wrong: compares os.path.abspath of both paths: strings, made absolute and tidied.

abspath removes a trailing slash and folds "x/../", so most spellings of a folder agree. But
it never looks at the disk: a folder reached through a symlink keeps the link's name, and
the newest session of this very folder, recorded through the link, is passed over.
"""

from __future__ import annotations

import os
from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = "[link-to-a 1s ago, a 2s ago] from a: s2 (a), expected s1 (link-to-a)"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = os.path.abspath(cwd)
    for path in list_session_files(directory):
        try:
            started_in = os.path.abspath(read_header(path)["cwd"])
            if started_in == wanted:
                return path
        except UnusableSessionFile:
            continue
    return None
