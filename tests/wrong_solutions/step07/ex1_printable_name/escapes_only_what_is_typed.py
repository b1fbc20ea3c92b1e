"""Wrong: the name is made printable where it is typed; a name restored from the file is shown as
it is.

The file keeps the name as typed, and the chat holds it escaped, once, so every `/name` after
`/name TEXT` shows it safely: trying it at the prompt looks right. But the name the file
gives (a hand edit, another program, an earlier run's) reaches the chat by open_chat, not by
/name: it is shown raw by `/name` and in the session list, where an ESC clears the screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf
from messages import preview  # noqa: F401  (you will need it)
from model import DEFAULT_MODEL
from model_registry import MODELS
from session import Session
from terminal_text import printable  # noqa: F401  (you will need it)

EXPECTED_FAIL = "a name is shown printable, typed or read; `/name` at [e1 name"


@dataclass
class NamedChat(Chat):
    """A run of the program that also holds the session's name in force (None: unnamed)."""

    name: str | None = None


def name_command(chat: NamedChat, argument: str) -> CommandResult:
    """`/name` shows the name; `/name TEXT` names the session and records it."""
    if not argument:
        if chat.name is None:
            return CommandResult(["this session has no name"])
        return CommandResult([f"session name: {chat.name}"])  # escaped when it was typed
    if chat.name in (argument, printable(argument)):
        return CommandResult([f"already named {printable(argument)}"])
    append_session_name(chat.session, argument)  # the file keeps it as typed
    chat.name = printable(argument)  # shown as often as it is set: escaped once, here
    return CommandResult([f"session named {chat.name}"])


def session_title(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The list's title for a session: its name, else its first user message."""
    name = session_name_at(entries, leaf_id)
    if name is not None:
        return name
    for entry in path_to_leaf(entries, leaf_id).entries:
        if entry["type"] == "message" and entry["message"]["role"] == "user":
            return preview(entry["message"])
    return "(no user message)"


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
