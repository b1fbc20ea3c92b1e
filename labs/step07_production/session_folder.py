"""The folder of sessions: which files are there, and which one `--continue` resumes.

session_file.py lists the files. A file is resumable if it reads as a session and holds at
least one message; every newer file passed over is returned with its reason, so that the
program can name it instead of silently resuming something older.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from entries import NotAnEntry, parse_entry
from session_file import UnusableSessionFile, list_session_files, read_lines


@dataclass(frozen=True)
class LatestSession:
    """The session `--continue` resumes (None if there is none), and each file passed over."""

    path: Path | None
    passed_over: list[UnusableSessionFile]


def find_latest_session(directory: Path | str) -> LatestSession:
    """The most recently modified usable session in `directory` that holds a message."""
    passed_over: list[UnusableSessionFile] = []
    for path in list_session_files(directory):
        try:
            if holds_a_message(path):
                return LatestSession(path, passed_over)
            passed_over.append(UnusableSessionFile(path, "holds no message"))
        except UnusableSessionFile as error:
            passed_over.append(error)
    return LatestSession(None, passed_over)


def holds_a_message(path: Path | str) -> bool:
    """True once a message entry is found: usually on the second line, so this is cheap. A
    compaction counts: its summary is a message the model is given."""
    with read_lines(Path(path)) as lines:
        for line in lines.lines():
            if not isinstance(line, bytes):  # a line too long to read: no message to find
                continue
            try:
                if parse_entry(line)["type"] in ("message", "compaction"):
                    return True
            except NotAnEntry:
                continue
    return False
