"""Exercise 03.1: --continue should resume a session started in the same working directory.

`find_latest_session` resumes the most recent session in the folder, wherever it was started.
Keep all your sessions in one folder (as some production agents do, in your home folder) and
`--continue` in project A happily resumes the conversation you just had in project B.

Every header records where its session was started: `"cwd": "/abs/path"`. Write
`find_latest_session_in(directory, cwd)`: the session `--continue` would resume if it only
looked at sessions started in the folder `cwd`, or None when there is none. That is, the
first file in `list_session_files(directory)` (most recently modified first; a tie goes to
the later name) that is a usable session and was started in `cwd`.

- `read_header(path)` raises `UnusableSessionFile` for a file that cannot be a session (a
  folder, an empty file, a newer version...): pass such files over, as `--continue` does.
- One folder has many spellings: `/home/ada/proj`, `/home/ada/proj/`, `/home/ada/x/../proj`,
  a symlink to it. Compare folders, not strings: `Path(a).resolve() == Path(b).resolve()`.
  A subfolder, or a folder whose name merely starts the same, is another folder.

Check it with `python -m exercises check 03.1` or the notebook; stuck: `make hint ID=03.1`.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()  # one folder, however it was written
    for path in list_session_files(directory):  # newest first, ties by name
        try:
            started_in = Path(read_header(path)["cwd"]).resolve()
            if started_in == wanted:
                return path
        except UnusableSessionFile:
            continue  # main.py would warn; here it simply is not a candidate
    return None
