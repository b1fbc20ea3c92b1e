# >>file 03
# >> 03 until prod
# """The folder of sessions: which files are there, and which one `--continue` resumes.
#
# session_file.py lists the files. A file is resumable if it reads as a session; every newer
# file passed over is returned with its reason, so that the program can name it instead of
# silently resuming something older.
# """
# << 03 until prod
# >> prod
"""The folder of sessions: which files are there, and which one `--continue` resumes.

session_file.py lists the files. A file is resumable if it reads as a session and holds at
least one message; every newer file passed over is returned with its reason, so that the
program can name it instead of silently resuming something older.
"""
# << prod

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# >> 03 until prod
# from session_file import UnusableSessionFile, list_session_files, read_header
# << 03 until prod
# >> prod
from entries import NotAnEntry, parse_entry
from session_file import UnusableSessionFile, list_session_files, read_lines

# << prod


@dataclass(frozen=True)
class LatestSession:
    """The session `--continue` resumes (None if there is none), and each file passed over."""

    path: Path | None
    passed_over: list[UnusableSessionFile]


def find_latest_session(directory: Path | str) -> LatestSession:
    # >> 03 until prod
    # """The most recently modified file in `directory` that reads as a session."""
    # << 03 until prod
    # >> prod
    """The most recently modified usable session in `directory` that holds a message."""
    # << prod
    passed_over: list[UnusableSessionFile] = []
    for path in list_session_files(directory):
        try:
            # >> 03 until prod
            # read_header(path)  # UnusableSessionFile, saying why, if it cannot be a session
            # return LatestSession(path, passed_over)
            # << 03 until prod
            # >> prod
            if holds_a_message(path):
                return LatestSession(path, passed_over)
            passed_over.append(UnusableSessionFile(path, "holds no message"))
            # << prod
        except UnusableSessionFile as error:
            passed_over.append(error)
    return LatestSession(None, passed_over)


# >> prod


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


# << prod
