"""Wrong: the leaf moves in memory only, and the chat with it: the run that undid sees the
turn gone, and the next run, which knows only the file, finds it back."""

from __future__ import annotations

from commands import COMMANDS, Chat, Command, CommandResult
from entries import build_context, path_to_leaf
from messages import preview

EXPECTED_FAIL = "an undo survives a restart"


def undo_command(chat: Chat, argument: str) -> CommandResult:
    """`/undo`: take back the last turn on the path; the file keeps it."""
    session = chat.session
    path = path_to_leaf(session.entries, session.leaf_id).entries  # the path, not the file
    asked = [e for e in path if e["type"] == "message" and e["message"]["role"] == "user"]
    if not asked:
        return CommandResult(["nothing to undo: no question on this path"])
    # Back to where the last turn began: the entry its question hangs under. A move is the
    # step's `branch` entry, which every reader follows, a restart's included.
    session.leaf_id = asked[-1]["parentId"]  # the next message hangs there
    # Stop here: the messages, the cursor and the model all come from the new leaf, at once.
    chat.follow(build_context(session.entries, session.leaf_id))
    taken_back = preview(asked[-1]["message"])
    return CommandResult([f"undone: {taken_back} ({len(chat.messages)} messages on the path)"])


COMMANDS["/undo"] = Command("/undo", "take back the last turn (the file keeps it)", undo_command)
