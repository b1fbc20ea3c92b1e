"""Exercise 05.2: label an entry, and branch to the label.

An id like e14 is the file's name for an entry, not a person's. A label is a name a person
gives an entry, to come back to it: `/label good` after an answer you liked and, later,
wherever the conversation has gone, `/branch good`.

A label is one more thing that happens during a session, so it is one more entry kind,
written through the session's one write path like any other:

    {"type": "label", "id": "e10", "parentId": "e9", "name": "good", "targetId": "e7"}

Like every entry it hangs under the leaf and becomes the leaf; it NAMES `targetId`, which can
be anywhere in the tree. It adds nothing to the conversation: the messages and the model at
the leaf are the same after it as before. Labels are bookmarks for the whole file, not for
one branch: a label written on a branch you have since left still takes you back. Labelling a
name again moves it: the LATEST label of a name wins. A fork (05.1) renumbers what it copies,
and writes each label on its path with the fork's id for the target (None where the fork has
no copy of it): a label in a fork names what it named in the parent.

Write four functions (the rest of this file is given):

1. `append_label(session, name, target_id)` writes that entry with
   `session.append_entry(kind, fields)` and returns it.
2. `label_target(entries, name)`: the `targetId` of the latest `label` entry named `name` in
   `entries` (a mapping id -> entry, iterated in file order), or None if there is none. A
   file is data: a label whose `name` is no string is no NAME's label, and one whose
   `targetId` is no string names nothing (None, when it is the latest of its name).
3. `label_command(chat, argument)`, the command `/label NAME [ID]`: label entry ID or, with
   no ID, the leaf (`chat.session.leaf_id`); answer one line saying what was labelled. Bad
   input answers one line and writes nothing: no NAME; more than two words; an ID that is no
   entry of the session; a NAME that reads as an id (`e` then digits: `/branch e12` must
   always mean entry e12); nothing to label yet. A command never becomes a message: the
   messages, the cursor and the model of the chat stay as they are.
4. `branch_command(chat, argument)`, the command `/branch ID|NAME`: an entry id as before,
   else the target of the label NAME, and then the move exactly as the step's own `/branch`
   makes it: call `step_branch_command(chat, id)`, which refuses a tool call and rebuilds the
   messages, the cursor and the model from the new leaf. A NAME that is neither answers one
   line and writes nothing.

The step folder is never edited by an exercise, so this file holds what main.py would use:
its commands in the step's own command table (its run_command dispatches the line) and
`open_chat` (what `--continue` does). Check it with `python -m exercises check 05.2` or the
notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from commands import branch_command as step_branch_command  # noqa: F401  (you will need it)
from entries import Entry
from session import Session


def append_label(session: Session, name: str, target_id: str) -> Entry:
    """Record the label `name` for entry `target_id`, as a child of the leaf."""
    # TODO: one call to the session's one write path, with the kind and the two fields above.
    raise NotImplementedError("append_label is not written yet")


def label_target(entries: Mapping[str, Entry], name: str) -> str | None:
    """The entry the label `name` names now: the latest label of that name in the file."""
    # TODO: go through the entries in file order; remember each label's targetId by name.
    raise NotImplementedError("label_target is not written yet")


def label_command(chat: Chat, argument: str) -> CommandResult:
    """`/label NAME [ID]`: name entry ID (the leaf, with no ID) so /branch can find it."""
    # TODO: split the argument; refuse bad input (one line, nothing written); append_label.
    raise NotImplementedError("label_command is not written yet")


def branch_command(chat: Chat, argument: str) -> CommandResult:
    """`/branch ID|NAME`: move the leaf to entry ID, or to the entry the label NAME names."""
    # TODO: an id as it is; else label_target; else one line. Then step_branch_command.
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
