"""Wrong: the entry is written with open(path, "a"), next to the session instead of through it.

The line looks right in the file (an id, the leaf as parent, the level), but the session
never hears of it: its leaf stays where it was, so the next message hangs beside the switch
instead of under it (and --continue never sees the switch on its path), its next id is the
one this entry took (the reader skips the repeat), and a new session's file gets no header.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf
from model import DEFAULT_MODEL, MODELS
from session import Session

EXPECTED_FAIL = "/thinking, /thinking low: the file has no header"

LEVELS = ("off", "low", "medium", "high")  # the reasoning efforts, least first
DEFAULT_LEVEL = "off"  # in force until a session switches


@dataclass
class ThinkingChat(Chat):
    """A run of the program that also holds the thinking level the next turn runs with."""

    thinking: str = DEFAULT_LEVEL


def append_thinking_level_change(session: Session, level: str) -> Entry:
    """Record a switch to `level` as a child of the leaf, then advance the leaf."""
    entry = {
        "type": "thinking_level_change",
        "id": f"e{len(session.entries) + 1}",
        "parentId": session.leaf_id,
        "thinkingLevel": level,
    }
    with open(session.path, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")
    return entry


def thinking_command(chat: ThinkingChat, argument: str) -> CommandResult:
    """`/thinking` shows the level; `/thinking LEVEL` switches and records the switch."""
    if not argument:
        return CommandResult([f"thinking level: {chat.thinking}"])
    if argument not in LEVELS:
        known = ", ".join(LEVELS)
        return CommandResult([f"unknown level {argument} (the levels: {known})"])
    if argument == chat.thinking:
        return CommandResult([f"the thinking level is already {argument}"])
    append_thinking_level_change(chat.session, argument)  # the file first, then the memory
    chat.thinking = argument
    return CommandResult([f"thinking level set to {argument}"])


def thinking_level_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The thinking level in force at `leaf_id`: the last change on the path from the leaf."""
    level: object = DEFAULT_LEVEL
    for entry in path_to_leaf(entries, leaf_id).entries:  # the path, never the file's order
        if entry["type"] == "thinking_level_change":
            level = entry.get("thinkingLevel")  # the last one on the path wins
    return level if level in LEVELS else DEFAULT_LEVEL


# --- Given: what main.py would do with them --------------------------------------------------

# The command goes into the step's own table, so the step's run_command (the one main.py
# calls) dispatches `/thinking` like any other command.
COMMANDS["/thinking"] = Command(
    "/thinking [LEVEL]", f"show the level, or set it ({', '.join(LEVELS)})", thinking_command
)


def open_chat(path: Path | str) -> ThinkingChat:
    """What `--continue` would do with this session: the messages, the model and the level
    in force at the leaf, all read from the file (a fresh process knows nothing else)."""
    resumed = Session.open(path)
    messages = resumed.context.messages
    model = resumed.context.model
    return ThinkingChat(
        resumed.session,
        messages,
        cursor=len(messages),
        model=model if model in MODELS else DEFAULT_MODEL,
        thinking=thinking_level_at(resumed.session.entries, resumed.session.leaf_id),
    )
