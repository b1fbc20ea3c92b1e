"""Wrong: counts the conversation right, but takes the title from the file's first message.

The first message line is the first message of the conversation only while nothing was
left behind. When the conversation starts again at a second root, the first line belongs
to a conversation resuming never shows, and the row is titled with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from messages import Message, preview
from session import Session, UnusableSessionFile, list_session_files, read_session

EXPECTED_FAIL = "row 1 (s1) has title 'what is 1+1', expected 'hello again'"


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
            count = len(Session.open(path).context.messages)
            entries = read_session(path).entries
        except UnusableSessionFile:
            continue
        said = [e["message"] for e in entries if e["type"] == "message"]
        users = [message for message in said if message["role"] == "user"]
        title = preview(users[0]) if users else "(no user message)"  # "the first thing said"
        rows.append(SessionRow(path, title, count, path.stat().st_mtime))
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
