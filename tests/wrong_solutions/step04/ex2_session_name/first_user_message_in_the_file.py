"""Wrong: an unnamed session's title is the first user message in the FILE, not on the path.

The file's first user message is the conversation's first only while the file has one tree.
Once a branch starts over from the very beginning, the file's first user message belongs to
the tree the leaf left behind, and the list titles the session by a question it never asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf
from messages import preview
from model import DEFAULT_MODEL, MODELS
from session import Session, UnusableSessionFile, list_session_files

EXPECTED_FAIL = "[e1 msg u:left, e2^root msg u:here, e3 msg a:a] at e3: 'left', expected 'here'"


@dataclass
class NamedChat(Chat):
    """A run of the program that also holds the session's name in force (None: unnamed)."""

    name: str | None = None


def append_session_name(session: Session, name: str) -> Entry:
    """Record the name `name` as a child of the leaf, then advance the leaf."""
    return session.append_entry("session_info", {"name": name})


def name_command(chat: NamedChat, argument: str) -> CommandResult:
    """`/name` shows the name; `/name TEXT` names the session and records it."""
    if not argument:
        if chat.name is None:
            return CommandResult(["this session has no name (/name TEXT names it)"])
        return CommandResult([f"session name: {chat.name}"])
    if argument == chat.name:
        return CommandResult([f"the session is already named {argument}"])
    append_session_name(chat.session, argument)  # the file first, then the memory
    chat.name = argument
    return CommandResult([f"session named {argument}"])


def session_name_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str | None:
    """The session's name at `leaf_id`: the last session_info on the path from the leaf."""
    name = None
    for entry in path_to_leaf(entries, leaf_id).entries:  # the path, never the file's order
        if entry["type"] == "session_info":
            name = entry.get("name")  # the last one on the path wins
    return name if isinstance(name, str) else None


def session_title(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The list's title for a session: its name, else its first user message."""
    name = session_name_at(entries, leaf_id)
    if name is not None:
        return name
    for entry in entries.values():  # the file's entries, first to last
        if entry["type"] == "message" and entry["message"]["role"] == "user":
            return preview(entry["message"])
    return "(no user message)"


# --- Given: what main.py would do with them --------------------------------------------------

# The command goes into the step's own table, so the step's run_command (the one main.py
# calls) dispatches `/name` like any other command.
COMMANDS["/name"] = Command("/name [TEXT]", "show the session's name, or name it", name_command)


def open_chat(path: Path | str) -> NamedChat:
    """What `--continue` would do with this session: the messages, the model and the name in
    force at the leaf, all read from the file (a fresh process knows nothing else)."""
    resumed = Session.open(path)
    messages = resumed.context.messages
    model = resumed.context.model
    return NamedChat(
        resumed.session,
        messages,
        cursor=len(messages),
        model=model if model in MODELS else DEFAULT_MODEL,
        name=session_name_at(resumed.session.entries, resumed.session.leaf_id),
    )


class SessionRow(NamedTuple):
    path: Path
    title: str  # session_title: the name in force, else the first user message
    messages: int  # how many messages resuming it restores
    modified: float  # st_mtime, seconds


def list_sessions(directory: Path | str) -> list[SessionRow]:
    """Every usable session in `directory`, newest first: the picker of exercise 03.2, each
    row titled by session_title at the leaf `Session.open` resumes from."""
    rows = []
    for path in list_session_files(directory):  # newest first
        try:
            resumed = Session.open(path)
        except UnusableSessionFile:
            continue  # not a session at all: nothing to list
        session, messages = resumed.session, resumed.context.messages
        title = session_title(session.entries, session.leaf_id)
        rows.append(SessionRow(path, title, len(messages), path.stat().st_mtime))
    return rows


def format_rows(rows: list[SessionRow]) -> str:
    """The table --resume would print."""
    return "\n".join(
        f"{number:>3}  {row.title:<40} {row.messages:>3} messages   {row.path.name}"
        for number, row in enumerate(rows, start=1)
    )
