"""Wrong: a session "holds something" when its reading has any entry, of any kind.

It passes over a header with nothing after it. But an entry is not always a message: a
session that holds only a model change (an entry kind a later step writes) has nothing to
resume, and it hides the real conversation one file older, as an empty one would.
"""

from __future__ import annotations

from pathlib import Path

from session import UnusableSessionFile, list_session_files, read_header, read_session

EXPECTED_FAIL = (
    "for cwd a it returned 20260104-a4.jsonl, which was started in a but holds no message, "
    "only a model change"
)


def find_latest_session_in(directory: Path | str, cwd: Path | str) -> Path | None:
    """The most recent usable session in `directory` that was started in `cwd`."""
    wanted = Path(cwd).resolve()
    for path in list_session_files(directory):
        try:
            if Path(read_header(path)["cwd"]).resolve() != wanted:
                continue
            if read_session(path).entries:  # "there is something in it to resume"
                return path
        except UnusableSessionFile:
            continue
    return None
