"""Right: compares folders with os.path.samefile, and treats a folder it cannot find as no match.

samefile asks the disk whether two paths are one folder (same device, same inode), so every
spelling and every symlink agrees; a session whose folder was deleted raises OSError, which
simply means "not this folder".
"""

from __future__ import annotations

import os
from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header


def same_folder(a: str, b: Path | str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is gone (or unreadable): it is not the folder we are in
        return False


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    for path in list_session_files(directory):
        try:
            header = read_header(path)
        except UnusableSessionFile:
            continue
        if same_folder(header["cwd"], cwd):
            return path
    return None
