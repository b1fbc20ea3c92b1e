"""Wrong: filters by folder and passes over unusable files, but not sessions with no message.

A header alone (what an older version wrote for a run that said nothing) is a usable file,
started in the right folder: resuming it restores nothing, and it hides the real
conversation, one file older. --continue passes such a session over, by name.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header

EXPECTED_FAIL = (
    "for cwd a it returned 20260104-a3.jsonl, which was started in a but holds no message"
)


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()
    for path in list_session_files(directory):
        try:
            if Path(read_header(path)["cwd"]).resolve() == wanted:
                return path
        except UnusableSessionFile:
            continue
    return None
