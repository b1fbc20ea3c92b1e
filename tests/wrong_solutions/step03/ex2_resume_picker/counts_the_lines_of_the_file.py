"""Wrong: counts the file's lines after the header: "one line per message".

That is true of a file this step wrote and nothing ever damaged. A torn last line (the crash
the reader is built to survive) is a line and no message, and so is a model change; a
branch left behind is lines of messages that resuming never restores.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from messages import Message, preview
from session import Session, UnusableSessionFile, list_session_files

EXPECTED_FAIL = "[torn 0s ago, hello 1s ago]: row 1 (s1) has messages 3, expected 2"


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
            messages = Session.open(path).context.messages
        except UnusableSessionFile:
            continue
        users = [message for message in messages if message["role"] == "user"]
        title = preview(users[0]) if users else "(no user message)"
        count = len(path.read_bytes().splitlines()) - 1  # "one line per message after the header"
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
