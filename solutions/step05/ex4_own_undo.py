"""Exercise 05.4: an /undo of your own design.

Open exercise, about 45 minutes.

`/branch ID` can take anything back, if you know the id. The everyday case has none: "take back
what I just asked, and all its answer". Write `undo_command(chat, argument)`, the command
`/undo`, of your own design: what it writes to the file (the step's own kinds, or a kind of
yours), how it finds what to take back, what it answers.

What the check holds you to: the step's own tree properties (tests/test_tree_properties.py:
its model of what the file means, and random sequences of messages, model switches, moves,
restarts and torn last lines), with real turns and /undo among them, typed through the
step's dispatcher. After each /undo:

- The last turn on the conversation's path is taken back: the chat holds the conversation
  as it was when that turn's user message was sent (the messages before it on the path),
  with the model recorded in force there, every message counted as saved by the cursor.
  /undo again, and the turn before it goes too. The first turn can be undone: the
  conversation is then empty.
- It survives a restart: what `Session.open` resumes from the file is that conversation and
  that model. (The step's reader keeps a kind it does not know, and follows its parentId.)
- Nothing is lost: the file only grows (its old bytes stay a prefix), and the turn taken
  back is still in it, for `/branch` to go back to.
- With no user message on the path, it answers one line and changes nothing: not a byte of
  the file, not the chat.
- Like every command it answers in lines, and never raises.

Decide before you write: where does the first turn go back to? What will `/tree` show of an
undo, and `/branch`, to go forward again? What does a program that knows no `/undo` (this
step's main.py, step 03's) resume from a file your /undo wrote? The check holds you to what
can be seen from outside, not to one answer: there are several good designs.

The rest is given: `/undo` in the step's own command table. Check it with
`python -m exercises check 05.4` or the notebook; stuck: `make hint ID=05.4`.
"""

from __future__ import annotations

from commands import COMMANDS, Chat, Command, CommandResult
from entries import build_context, path_to_leaf
from messages import preview


def undo_command(chat: Chat, argument: str) -> CommandResult:
    """`/undo`: take back the last turn on the path; the file keeps it."""
    session = chat.session
    path = path_to_leaf(session.entries, session.leaf_id).entries  # the path, not the file
    asked = [e for e in path if e["type"] == "message" and e["message"]["role"] == "user"]
    if not asked:
        return CommandResult(["nothing to undo: no question on this path"])
    # Back to where the last turn began: the entry its question hangs under. A move is the
    # step's `branch` entry, which every reader follows, a restart's included.
    target = asked[-1]["parentId"]
    if target is not None:
        session.append_branch(target)
    else:  # the first turn: the step's reader refuses a branch entry with no parent (a key
        # lost to damage), so a kind of our own, which it keeps, stands at the root instead
        moved_from, session.leaf_id = session.leaf_id, None
        try:
            session.append_entry("undo", {"undid": asked[-1]["id"], "fromId": moved_from})
        except BaseException:  # not written, so not moved
            session.leaf_id = moved_from
            raise
    # Stop here: the messages, the cursor and the model all come from the new leaf, at once.
    chat.follow(build_context(session.entries, session.leaf_id))
    taken_back = preview(asked[-1]["message"])
    return CommandResult([f"undone: {taken_back} ({len(chat.messages)} messages on the path)"])


COMMANDS["/undo"] = Command("/undo", "take back the last turn (the file keeps it)", undo_command)
