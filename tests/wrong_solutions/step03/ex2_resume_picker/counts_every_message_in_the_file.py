"""Wrong: reads the file with read_session and counts its message entries, in file order.

The tolerant reader already drops torn and damaged lines, so this looks exact. But the file
holds every branch ever written: the messages of a branch the conversation left behind (or
of an older root) are entries too, and resuming restores only the path from the leaf.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from messages import Message, preview
from session import Session, UnusableSessionFile, list_session_files, read_session

EXPECTED_FAIL = "[branched 0s ago, hello 1s ago]: row 1 (s1) has messages 10, expected 6"


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
            reading = read_session(path)
        except UnusableSessionFile:
            continue
        messages = [e["message"] for e in reading.entries if e["type"] == "message"]
        users = [message for message in messages if message["role"] == "user"]
        title = preview(users[0]) if users else "(no user message)"
        rows.append(SessionRow(path, title, len(messages), path.stat().st_mtime))
    return rows


def choose(rows: list[SessionRow], answer: str) -> Path:
    """The path of the row the user picked by number; ValueError for anything else."""
    answer = answer.strip()
    if not answer.isdecimal():
        raise ValueError(f"{answer!r} is not a session number")
    number = int(answer)
    if not 1 <= number <= len(rows):
        raise ValueError(f"there is no session {number} (choose 1 to {len(rows)})")
    return rows[number - 1].path


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
