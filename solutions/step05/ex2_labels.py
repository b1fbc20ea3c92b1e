"""Exercise 05.2: label an entry, and branch to the label.

Fill-in exercise, about 25 minutes.

An id like e14 is the file's name for an entry, not a person's. A label is a name a person
gives an entry, to come back to it: `/label good` after an answer you liked and, later,
wherever the conversation has gone, `/branch good`. A label is one more thing that happens
during a session, so it is one more entry kind:

    {"type": "label", "id": "e10", "parentId": "e9", "name": "good", "targetId": "e7"}

Write `append_label(session, name, target_id)` (the entry; it returns it),
`label_target(entries, name)` (the entry a name labels now, or None), `label_command(chat,
argument)` (`/label NAME [ID]`) and `branch_command(chat, argument)` (`/branch ID|NAME`).

What the check holds you to (scripts of turns, labels and moves played through the step's own
dispatcher on your code and the solution's; label_target on generated trees of entries; a new
process that finds a label in the file):

- After every line of a script, the same file and chat as the solution's. A label is one
  entry, under the leaf, which becomes the leaf, like every entry the session writes; it
  NAMES `targetId`, which can be anywhere in the tree, and adds nothing to the conversation:
  the messages, the cursor and the model stay. A command answers in one line.
- `/label NAME` labels the leaf, `/label NAME ID` entry ID. Bad input answers one line and
  writes nothing: no NAME; more than two words; an ID that is no entry of the session;
  nothing to label yet; a NAME that reads as an id (`e` then digits: `/branch e12` must
  always mean entry e12).
- Labels are bookmarks for the whole file, not for one branch: a label written on a branch
  since left still takes you back. Labelling a name again moves it: the latest label of a
  name wins. A file is data: a label whose `name` is no string is no NAME's label, and one
  whose `targetId` is no string names nothing (None, when it is the latest of its name).
- `/branch ID|NAME` goes to entry ID as before, else to the entry the label NAME names, and
  the move is the step's own `/branch`, with all it refuses and all it rebuilds. A NAME
  that is neither answers one line and writes nothing.
- A fork (05.1) writes each label on its path with the fork's id for its target: a label in
  a fork names what it named in the parent.

The step folder is never edited by an exercise, so this file holds what main.py would use:
its commands in the step's own command table and `open_chat` (what `--continue` does).
Check it with `python -m exercises check 05.2` or the notebook.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from commands import branch_command as step_branch_command
from entries import Entry
from session import Session

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
    if _ID_SHAPED.fullmatch(name):
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
