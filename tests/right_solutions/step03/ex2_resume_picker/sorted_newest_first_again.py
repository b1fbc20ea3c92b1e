"""Right: sorts the rows again, newest first, with a stable sort, and parses with a pattern.

sorted(..., reverse=True) keeps rows with equal keys in the order they came, so re-sorting
what list_session_files already ordered changes nothing, ties included. A full-match pattern
of digits (spaces around allowed) is another honest way to read a row number.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from messages import Message, preview
from session import Session, UnusableSessionFile, list_session_files

_NUMBER = re.compile(r"\s*([0-9]+)\s*")


class SessionRow(NamedTuple):
    path: Path
    title: str  # preview of the first user message of the conversation resuming restores
    messages: int  # how many messages resuming it restores
    modified: float  # st_mtime, seconds


def list_sessions(directory: Path | str) -> list[SessionRow]:
    """Every usable session in `directory`, newest first."""
    rows: list[SessionRow] = []
    for path in list_session_files(directory):
        try:
            conversation = Session.open(path).context.messages
        except UnusableSessionFile:
            continue
        users = [message for message in conversation if message["role"] == "user"]
        title = preview(users[0]) if users else "(no user message)"
        rows.append(SessionRow(path, title, len(conversation), path.stat().st_mtime))
    return sorted(rows, key=lambda row: row.modified, reverse=True)


def choose(rows: list[SessionRow], answer: str) -> Path:
    """The path of the row the user picked by number; ValueError for anything else."""
    match = _NUMBER.fullmatch(answer)
    if match is None or not 1 <= int(match.group(1)) <= len(rows):
        raise ValueError(f"{answer.strip()!r} is not a number from 1 to {len(rows)}")
    return rows[int(match.group(1)) - 1].path


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
