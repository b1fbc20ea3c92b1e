"""Exercise 04.2: a session name, recorded as an entry and shown in the session list.

Fill-in exercise, about 20 minutes.

A list of sessions titled by their first message reads "hello", "hello", "what is 2+3": you
cannot tell them apart. Let the user name a session. A name is one more thing that happens
during a session, so it is one more entry kind (renaming appends another; nothing is
rewritten):

    {"type": "session_info", "id": "e5", "parentId": "e4", "name": "tax questions"}

Write `append_session_name(session, name)` (the entry; it returns it), `name_command(chat,
argument)` (the command `/name [TEXT]`, TEXT may hold spaces), `session_name_at(entries,
leaf_id)` (the name in force at a leaf) and `session_title(entries, leaf_id)` (what the session
list shows).

What the check holds you to (scripts of turns and commands, played through the step's own
dispatcher on your code and the solution's; names and titles on generated trees of entries,
and in a new process that reopens and lists a file):

- After every line of a script, the same file, chat and answers as the solution's. Only a
  new name writes: one entry, under the leaf, which becomes the leaf, like every entry the
  session writes. A command never becomes a message: the messages and the cursor stay.
- `/name` alone answers one line: `session name: NAME`, or a line of your own saying there
  is none. `/name TEXT` records TEXT, puts it in `chat.name` and answers `session named
  TEXT`; TEXT that is the name already answers one line of your own and writes nothing.
- The name in force at a leaf is the one the last `session_info` on the conversation's path
  to that leaf holds (not the file's last: once it has a branch, they differ); None with
  none, or when that last one's name is no text (a hand edit, a newer program).
- A session's title is its name in force; with none, `preview()` of the first user message
  of the conversation at the leaf (not the file's first); with neither, "(no user message)",
  as in exercise 03.2.

The step folder is never edited by an exercise, so this file holds what main.py would use:
`NamedChat`, `/name` in the step's own command table, `open_chat` (what `--continue` would
do) and `list_sessions` (the picker of exercise 03.2, titled by `session_title`). Check it
with `python -m exercises check 04.2` or the notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf  # noqa: F401
from messages import preview  # noqa: F401
from model import DEFAULT_MODEL, MODELS
from session import Session, UnusableSessionFile, list_session_files


@dataclass
class NamedChat(Chat):
    """A run of the program that also holds the session's name in force (None: unnamed)."""

    name: str | None = None


def append_session_name(session: Session, name: str) -> Entry:
    """Record the name `name` as a child of the leaf, then advance the leaf."""
    # TODO: the entry that records the name.
    raise NotImplementedError("append_session_name is not written yet")


def name_command(chat: NamedChat, argument: str) -> CommandResult:
    """`/name` shows the name; `/name TEXT` names the session and records it."""
    # TODO: show the name, or name the session.
    raise NotImplementedError("name_command is not written yet")


def session_name_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str | None:
    """The session's name at `leaf_id`: the last session_info on the path from the leaf."""
    # TODO: the name in force at the leaf.
    raise NotImplementedError("session_name_at is not written yet")


def session_title(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The list's title for a session: its name, else its first user message."""
    # TODO: the title the session list shows.
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
