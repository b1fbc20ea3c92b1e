"""Right: reads each file with read_session and rebuilds the conversation with build_context.

Session.open does exactly this (plus a test that the file can be appended to): the leaf is
the last usable entry, and build_context walks from it. Reading without opening for append
is what a listing needs. choose parses with int() and checks the range itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from entries import build_context
from messages import Message, preview
from session import Session, UnusableSessionFile, list_session_files, read_session


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
            reading = read_session(path)
        except UnusableSessionFile:
            continue
        leaf = reading.entries[-1]["id"] if reading.entries else None  # the last usable entry
        messages = build_context(reading.by_id, leaf).messages
        title = next((preview(m) for m in messages if m["role"] == "user"), "(no user message)")
        rows.append(SessionRow(path, title, len(messages), os.path.getmtime(path)))
    return rows


def choose(rows: list[SessionRow], answer: str) -> Path:
    """The path of the row the user picked by number; ValueError for anything else."""
    number = int(answer)  # ValueError for "two", "", "1.5"; int() allows surrounding spaces
    if number < 1 or number > len(rows):
        raise ValueError(f"choose a number from 1 to {len(rows)}")
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
