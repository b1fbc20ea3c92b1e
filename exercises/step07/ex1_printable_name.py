"""Exercise 07.1: a session name shown escaped, whether it was typed or read from the file.

Fill-in exercise, about 15 minutes.

A terminal obeys some characters instead of showing them: ESC starts a sequence that can clear
the screen, recolour the rest of the output or retitle the window; a carriage return rewrites
the line; U+202E shows the rest backwards. A session name is text anyone could have put in the
file (a hand edit, another program, a pasted line), and a name read back from the file is shown
as often as one just typed: by `/name`, in the session list. Write `name_command(chat,
argument)`, the command `/name [TEXT]`, and `session_title(entries, leaf_id)`, the session
list's title, so that no name can take over the terminal, and the file still records what was
typed (notebook 09, section 3: escaping is how text is shown, not what it is).

What the check holds you to (names holding ESC sequences, a carriage return, a bidirectional
override, a backslash; typed in scripts through the step's dispatcher, and held in generated
trees of entries, as a file may hold them), compared with the solution word for word:

- Every name shown is `printable(name)` (terminal_text.py), wherever the name came from.
- The file, and `chat.name`, keep the name as typed.
- `/name` alone answers one line: `session name: NAME`, or `this session has no name`.
  `/name TEXT` records TEXT (`append_session_name`), puts it in `chat.name` and answers
  `session named NAME`; TEXT that is the name already answers `already named NAME` and
  writes nothing. NAME is the name as shown. A command never becomes a message.
- A session's title is its name in force (`session_name_at`) as shown; else `preview()` of
  the first user message on the path from the leaf (preview escapes already); else
  "(no user message)".

The rest is given: `NamedChat`, `append_session_name`, `session_name_at` (the last
session_info on the path, if its name is text), `open_chat` (what `--continue` does: the name
comes from the file) and `/name` in the step's own command table. Check it with
`python -m exercises check 07.1` or the notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf
from messages import preview  # noqa: F401
from model import DEFAULT_MODEL
from model_registry import MODELS
from session import Session
from terminal_text import printable  # noqa: F401


@dataclass
class NamedChat(Chat):
    """A run of the program that also holds the session's name in force (None: unnamed)."""

    name: str | None = None


def name_command(chat: NamedChat, argument: str) -> CommandResult:
    """`/name` shows the name; `/name TEXT` names the session and records it."""
    # TODO: show the name, or name the session.
    raise NotImplementedError("name_command is not written yet")


def session_title(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The list's title for a session: its name, else its first user message."""
    # TODO: the title the session list shows.
    raise NotImplementedError("session_title is not written yet")


# --- Given: the entry, the restore, and what --continue would do ----------------------------


def append_session_name(session: Session, name: str) -> Entry:
    """Record the name `name`, as typed, as a child of the leaf; the leaf moves to it."""
    return session.append_entry("session_info", {"name": name})


def session_name_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str | None:
    """The session's name at `leaf_id`: the last session_info on the path, if it is text."""
    name = None
    for entry in path_to_leaf(entries, leaf_id).entries:
        if entry["type"] == "session_info":
            name = entry.get("name")
    return name if isinstance(name, str) else None


COMMANDS["/name"] = Command("/name [TEXT]", "show the session's name, or name it", name_command)


def open_chat(path: Path | str) -> NamedChat:
    """What `--continue` would do: the messages, the model and the name, from the file."""
    resumed = Session.open(path)
    session, messages, model = resumed.session, resumed.context.messages, resumed.context.model
    return NamedChat(
        session,
        messages,
        cursor=len(messages),
        model=model if model in MODELS else DEFAULT_MODEL,
        name=session_name_at(session.entries, session.leaf_id),
    )
