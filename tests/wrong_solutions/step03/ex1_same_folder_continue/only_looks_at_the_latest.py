"""Wrong: takes the session --continue would resume, and keeps it only if its cwd matches.

It never resumes another project's session, which looks like the whole point. But when the
latest session belongs to another project, it gives up instead of looking further down the
list: project a's own session, one file older, is never found.
"""

from __future__ import annotations

from pathlib import Path

from session import find_latest_session, read_header

EXPECTED_FAIL = "[b 0s ago, a 1s ago] from a: None, expected s2 (a)"


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    latest = find_latest_session(directory).path
    if latest is not None and Path(read_header(latest)["cwd"]).resolve() == Path(cwd).resolve():
        return latest
    return None  # "the latest session is someone else's: nothing to continue here"
