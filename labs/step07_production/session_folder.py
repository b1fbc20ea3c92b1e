"""The folder of sessions: which files are there, and which one `--continue` resumes.

`list_session_files` lists the files. A file is resumable if it reads as a session; every newer
file passed over is returned with its reason, so that the program can name it instead of
silently resuming something older. A file that holds no message is passed over too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from entries import NotAnEntry, parse_entry
from session_file import SessionError, UnusableSessionFile, read_lines


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


def list_session_files(directory: Path | str) -> list[Path]:
    """Every `*.jsonl` name in `directory`, most recently modified first.

    Usable or not (a folder, a FIFO or a dangling link named *.jsonl included): that takes
    opening them, and the caller names each one it passes over. A missing folder has none.
    """
    directory = Path(directory)
    try:
        with os.scandir(directory) as found:
            names = [Path(item.path) for item in found if item.name.endswith(".jsonl")]
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise SessionError(f"cannot list {directory}: not a folder") from None
    except OSError as error:
        raise SessionError(f"cannot list {directory}: {error.strerror}") from None
    # Two files with the same time go by name: session ids sort by creation time.
    names.sort(key=lambda path: (_modified_ns(path), path.name), reverse=True)
    return names


def _modified_ns(path: Path) -> int:
    """When a file was last written; for a dangling link, when the link was made."""
    try:
        return path.stat().st_mtime_ns
    except OSError:
        try:
            return path.lstat().st_mtime_ns
        except OSError:
            return 0
