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

`list_session_files` lists the files. A file is resumable if it reads as a session; every newer
file passed over is returned with its reason, so that the program can name it instead of
silently resuming something older. A file that holds no message is passed over too.
"""
# << prod

from __future__ import annotations

# >> prod
import os

# << prod
from dataclasses import dataclass
from pathlib import Path

# >> prod
from entries import NotAnEntry, parse_entry
from session_file import SessionError

# << prod
from session_file import UnusableSessionFile

# >> 03 until prod
# from session_file import list_session_files, read_header
# << 03 until prod
# >> prod
from stores import STORES, stored_lines

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
    with stored_lines(Path(path)) as lines:  # through its own store: a file, a database
        for batch in lines.batches:
            for line in batch:
                if not isinstance(line, bytes):  # a line too long to read: no message to find
                    continue
                try:
                    if parse_entry(line)["type"] in ("message", "compaction"):
                        return True
                except NotAnEntry:
                    continue
    return False


# << prod
# >> prod


def list_session_files(directory: Path | str) -> list[Path]:
    """Every `*.jsonl` and `*.sqlite` name in `directory`, most recently modified first.

    Usable or not (a folder, a FIFO or a dangling link so named included): that takes opening
    them, and the caller names each one it passes over. A missing folder has none.
    """
    directory = Path(directory)
    try:
        with os.scandir(directory) as found:
            suffixes = tuple(store.suffix for store in STORES.values())
            names = [Path(item.path) for item in found if item.name.endswith(suffixes)]
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
    """When a file was last written; for a dangling link, when the link was made. A SQLite
    session's last entries may still be in its -wal file, until a checkpoint copies them."""
    try:
        wal = Path(f"{path}-wal")
        found = wal.stat().st_mtime_ns if path.name.endswith(".sqlite") and wal.exists() else 0
        return max(path.stat().st_mtime_ns, found)
    except OSError:
        try:
            return path.lstat().st_mtime_ns
        except OSError:
            return 0


# << prod
