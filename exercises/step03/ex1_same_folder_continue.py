"""Exercise 03.1: --continue should resume a session started in the same working directory.

`find_latest_session` resumes the most recent session in the folder, wherever it was started.
Keep all your sessions in one folder (as Pi does, under ~/.pi) and `--continue` in project A
happily resumes the conversation you just had in project B.

Every header records where its session was started: `"cwd": "/abs/path"`. Write
`find_latest_session_in(directory, cwd)`: the most recently modified usable session in
`directory` whose header's cwd is `cwd`, or None when there is none.

- `list_session_files(directory)` gives the candidates, newest first.
- `read_header(path)` reads only the first line; it raises `UnusableSessionFile` for a file
  that cannot be a session: pass such files over.
- Compare paths, not strings: `Path(a).resolve() == Path(b).resolve()`. A header without a
  string cwd matches nothing.

Check it with `python -m exercises check 03.1` or the notebook.
"""

from __future__ import annotations

from pathlib import Path

from session import (  # noqa: F401  (you will need these)
    UnusableSessionFile,
    find_latest_session,
    list_session_files,
    read_header,
)


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    # TODO: this resumes the latest session wherever it was started. Go through
    # list_session_files(directory) instead and return the first usable one whose
    # header's "cwd" is the same folder as `cwd`.
    latest, _ = find_latest_session(directory)
    return latest
