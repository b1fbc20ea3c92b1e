"""Exercise 03.1: --continue should resume a session started in the same working directory.

Fill-in exercise, about 15 minutes.

`find_latest_session` resumes the most recent session in the folder, wherever it was started.
Keep all your sessions in one folder (as some production agents do, in your home folder) and
`--continue` in project A happily resumes the conversation you just had in project B. Every
header records where its session was started (`"cwd": "/abs/path"`). Write
`find_latest_session_in(directory, cwd)`: the session `--continue` should resume when it is run
in the folder `cwd`.

What the check holds you to (folders of sessions, each asked from one folder, compared with
the solution's answer):

- It returns the newest session of `directory` that was started in `cwd`, in the order
  `--continue` uses (`list_session_files`: most recently modified first, a tie to the later
  name), or None when there is none.
- Only usable sessions count: a file that cannot be a session (a folder, an empty file, a
  newer version, a dangling link...) is passed over, as `--continue` passes it over.
- "Started in `cwd`" means the same folder, however either is spelled: `/home/ada/proj`,
  `/home/ada/proj/`, `/home/ada/x/../proj` and a symlink to it are one folder; a subfolder,
  or a folder whose name merely starts the same, is another.

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
