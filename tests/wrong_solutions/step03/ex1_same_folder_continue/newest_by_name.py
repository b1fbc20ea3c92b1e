"""Wrong: "newest" by session id: the files sorted by name, last first.

Session ids start with their creation time, so the name says which session was CREATED
last. --continue wants the one USED last: a session resumed yesterday was modified after a
newer one that was left alone, and it is the conversation the user means.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, read_header

EXPECTED_FAIL = "[a 0s ago, a 2s ago] from a: s2 (a), expected s1 (a)"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()
    for path in sorted(Path(directory).glob("*.jsonl"), reverse=True):  # "ids sort by time"
        try:
            if Path(read_header(path)["cwd"]).resolve() == wanted:
                return path
        except UnusableSessionFile:
            continue
    return None
