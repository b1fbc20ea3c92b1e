"""The folder of sessions: which files are there, and which one `--continue` resumes.

session_file.py lists the files. A file is resumable if it reads as a session; every newer
file passed over is returned with its reason, so that the program can name it instead of
silently resuming something older.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from session_file import UnusableSessionFile, list_session_files, read_header


@dataclass(frozen=True)
class LatestSession:
    """The session `--continue` resumes (None if there is none), and each file passed over."""

    path: Path | None
    passed_over: list[UnusableSessionFile]


def find_latest_session(directory: Path | str) -> LatestSession:
    """The most recently modified file in `directory` that reads as a session."""
    passed_over: list[UnusableSessionFile] = []
    for path in list_session_files(directory):
        try:
            read_header(path)  # UnusableSessionFile, saying why, if it cannot be a session
            return LatestSession(path, passed_over)
        except UnusableSessionFile as error:
            passed_over.append(error)
    return LatestSession(None, passed_over)
