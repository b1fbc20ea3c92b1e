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

from collections.abc import Mapping
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from commands import branch_command as step_branch_command  # noqa: F401
from entries import Entry
from session import Session


def append_label(session: Session, name: str, target_id: str) -> Entry:
    """Record the label `name` for entry `target_id`, as a child of the leaf."""
    # TODO: the entry that records the label.
    raise NotImplementedError("append_label is not written yet")


def label_target(entries: Mapping[str, Entry], name: str) -> str | None:
    """The entry the label `name` names now: the latest label of that name in the file."""
    # TODO: the entry the label `name` names now.
    raise NotImplementedError("label_target is not written yet")


def label_command(chat: Chat, argument: str) -> CommandResult:
    """`/label NAME [ID]`: name entry ID (the leaf, with no ID) so /branch can find it."""
    # TODO: label the entry, or refuse in one line.
    raise NotImplementedError("label_command is not written yet")


def branch_command(chat: Chat, argument: str) -> CommandResult:
    """`/branch ID|NAME`: move the leaf to entry ID, or to the entry the label NAME names."""
    # TODO: the move, to an id or to a label.
    raise NotImplementedError("branch_command is not written yet")


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
