"""Wrong: choose turns the answer into an index with int(answer) - 1, and asks nothing more.

"2" gives rows[1], and a number past the end raises IndexError (turned into ValueError).
But "0" gives rows[-1], the LAST row, and "-1" the one before it: Python's negative indexes
quietly resume a session the user never picked.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from messages import Message, preview
from session import Session, UnusableSessionFile, list_session_files

EXPECTED_FAIL = "choose(1 rows, '0'): gave s1-hello, expected ValueError"


class SessionRow(NamedTuple):
    path: Path
    title: str  # preview of the first user message of the conversation resuming restores
    messages: int  # how many messages resuming it restores
    modified: float  # st_mtime, seconds


def list_sessions(directory: Path | str) -> list[SessionRow]:
    """Every usable session in `directory`, newest first."""
    rows: list[SessionRow] = []
    for path in list_session_files(directory):  # already newest first
        try:
            # What resuming restores: the path from the leaf, however many lines the file has.
            messages = Session.open(path).context.messages
        except UnusableSessionFile:
            continue
        users = [message for message in messages if message["role"] == "user"]
        title = preview(users[0]) if users else "(no user message)"
        rows.append(SessionRow(path, title, len(messages), path.stat().st_mtime))
    return rows


def choose(rows: list[SessionRow], answer: str) -> Path:
    """The path of the row the user picked by number; ValueError for anything else."""
    try:
        return rows[int(answer) - 1].path  # int() refuses "two" with ValueError
    except IndexError:
        raise ValueError(f"there is no session {answer.strip()}") from None


def format_rows(rows: list[SessionRow]) -> str:
    """The table `--resume` prints (given)."""
    return "\n".join(
        f"{number:>3}  {row.title:<40} {row.messages:>3} messages   {row.path.name}"
        for number, row in enumerate(rows, start=1)
    )


def resume(directory: Path | str, answer: str) -> tuple[Session, list[Message]]:
    """What `main.py --resume` would do once the user has answered (given)."""
    resumed = Session.open(choose(list_sessions(directory), answer))
    return resumed.session, resumed.context.messages
