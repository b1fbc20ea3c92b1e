"""Wrong: collects every match, sorts them by modification time, and takes the last.

Re-sorting what list_session_files already sorted looks harmless, and it is, until two
sessions have the same modification time (a coarse clock, two saves in one tick): a stable
sort keeps them as listed (later name first), so the last of the pair is the earlier
session, not the newer one.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = "[a 0s ago, a 0s ago] from a: s1 (a), expected s2 (a)"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()
    matches = []
    for path in list_session_files(directory):
        try:
            if Path(read_header(path)["cwd"]).resolve() == wanted:
                matches.append(path)
        except UnusableSessionFile:
            continue
    matches.sort(key=lambda path: path.stat().st_mtime)  # "oldest to newest, to be sure"
    return matches[-1] if matches else None
