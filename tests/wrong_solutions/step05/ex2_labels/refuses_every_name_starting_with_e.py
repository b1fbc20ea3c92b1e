"""Wrong: every name that starts with `e` is refused, to be safe.

Only a name that reads as an id (`e` then digits) is ambiguous: `/branch e12` must go on
meaning entry e12. `eve`, `end` or `e1x` are no id, and a label of that name is refused for
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from commands import branch_command as step_branch_command
from entries import Entry
from session import Session

EXPECTED_FAIL = "hello, /label eve: it wrote no label"

KIND = "label"
_ID_SHAPED = re.compile(r"e[0-9]+")  # what the program's ids look like: never a label name


def append_label(session: Session, name: str, target_id: str) -> Entry:
    """Record the label `name` for entry `target_id`, as a child of the leaf."""
    return session.append_entry(KIND, {"name": name, "targetId": target_id})


def label_target(entries: Mapping[str, Entry], name: str) -> str | None:
    """The entry the label `name` names now: the latest label of that name in the file."""
    target = None
    for entry_id in entries:  # file order: a later label of the name overrides an earlier one
        entry = entries[entry_id]
        if entry["type"] == KIND and entry.get("name") == name:
            target = entry.get("targetId")
    return target if isinstance(target, str) else None


def label_command(chat: Chat, argument: str) -> CommandResult:
    """`/label NAME [ID]`: name entry ID (the leaf, with no ID) so /branch can find it."""
    session = chat.session
    words = argument.split()
    if not words or len(words) > 2:
        return CommandResult(["usage: /label NAME [ID] (labels the leaf, or entry ID)"])
    name = words[0]
    if name.startswith("e"):
        return CommandResult([f"{name} reads as an entry id: choose another name"])
    target = words[1] if len(words) == 2 else session.leaf_id
    if target is None:
        return CommandResult(["nothing to label yet"])
    if target not in session.entries:
        return CommandResult([f"no entry {target} in this session (/tree shows the ids)"])
    # Stop here: the label is an entry under the leaf, like any other. It moves the leaf, but
    # the path from the new leaf holds the same messages and model: the chat stays as it is.
    append_label(session, name, target)
    return CommandResult([f"labelled {target} as {name}"])


def branch_command(chat: Chat, argument: str) -> CommandResult:
    """`/branch ID|NAME`: move the leaf to entry ID, or to the entry the label NAME names."""
    entries = chat.session.entries
    target = argument
    if argument and argument not in entries:
        target = label_target(entries, argument)
        if target is None:
            return CommandResult([f"no entry or label {argument} (/tree shows the ids)"])
    return step_branch_command(chat, target)  # its guards, its rebuild of the chat


# --- Given: what main.py would do with them --------------------------------------------------

# The commands go into the step's own table, so the step's run_command (the one main.py
# calls) dispatches them like any other; `/branch` replaces the step's, which it calls.
COMMANDS["/label"] = Command("/label NAME [ID]", "name entry ID (or the leaf)", label_command)
COMMANDS["/branch"] = Command("/branch ID|NAME", "go back to entry ID or NAME", branch_command)


def open_chat(path: Path | str) -> Chat:
    """What `--continue` does with this session: the conversation and the model at the leaf,
    read from the file (a fresh process knows nothing else)."""
    resumed = Session.open(path)
    chat = Chat(resumed.session, [], cursor=0)
    chat.follow(resumed.context)
    return chat
