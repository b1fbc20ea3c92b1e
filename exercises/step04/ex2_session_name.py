"""Exercise 04.2: a session name, recorded as an entry and shown in the session list.

A list of sessions titled by their first message reads "hello", "hello", "what is 2+3": you
cannot tell them apart. Let the user name a session. The name is one more thing that happens
during a session, so it is one more entry kind (renaming appends another; nothing is
rewritten):

    {"type": "session_info", "id": "e5", "parentId": "e4", "name": "tax questions"}

Write four functions (the rest of this file is given):

1. `append_session_name(session, name)` writes that entry through the session's one write
   path, `session.append_entry(kind, fields)`, which picks the id, hangs the entry under the
   leaf, creates the file (header first) if needed and moves the leaf. Return the entry.
2. `name_command(chat, argument)`, the command `/name [TEXT]` (TEXT may hold spaces):
   - `/name` alone answers one line: `session name: NAME`, or a line saying the session has
     no name;
   - `/name TEXT` appends the entry, sets `chat.name` and answers `session named TEXT`;
   - TEXT that is already the name answers one line and writes nothing.
   A command never becomes a message: `chat.messages` and the cursor stay as they are.
3. `session_name_at(entries, leaf_id)`: the name of the LAST `session_info` on the path from
   the leaf (`entries.path_to_leaf`), not the last one in the file: once the file has a
   branch, the two differ. None when the path has none, or when that last one's `name` is
   not a string (a file is data: a hand edit, a newer program).
4. `session_title(entries, leaf_id)`: what the session list shows for a session: its name in
   force; with no name, `preview()` of the first user message of the conversation (the path
   from the leaf, not the file); with neither, "(no user message)", as in exercise 03.2.

The step folder is never edited by an exercise, so this file holds what main.py would use:
`NamedChat`, `/name` in the step's own command table (its run_command dispatches the line),
`open_chat` (what `--continue` would do) and `list_sessions` (the picker of exercise 03.2,
titled by `session_title`). Check it with `python -m exercises check 04.2` or the notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf  # noqa: F401  (you will need path_to_leaf)
from messages import preview  # noqa: F401  (you will need it)
from model import DEFAULT_MODEL, MODELS
from session import Session, UnusableSessionFile, list_session_files


@dataclass
class NamedChat(Chat):
    """A run of the program that also holds the session's name in force (None: unnamed)."""

    name: str | None = None


def append_session_name(session: Session, name: str) -> Entry:
    """Record the name `name` as a child of the leaf, then advance the leaf."""
    # TODO: one call to the session's one write path, with the kind and the field above.
    raise NotImplementedError("append_session_name is not written yet")


def name_command(chat: NamedChat, argument: str) -> CommandResult:
    """`/name` shows the name; `/name TEXT` names the session and records it."""
    # TODO: show, refuse (the name in force), or append and set chat.name.
    raise NotImplementedError("name_command is not written yet")


def session_name_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str | None:
    """The session's name at `leaf_id`: the last session_info on the path from the leaf."""
    # TODO: walk path_to_leaf(entries, leaf_id).entries; remember each session_info's name.
    raise NotImplementedError("session_name_at is not written yet")


def session_title(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The list's title for a session: its name, else its first user message."""
    # TODO: the name in force, else preview() of the path's first user message,
    # else "(no user message)".
    raise NotImplementedError("session_title is not written yet")


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
