"""Wrong: the first turn is undone with the step's branch entry, hung under nothing: the step's
reader refuses a branch without a parent (a key lost to damage looks the same), and skips it."""

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
    target = asked[-1]["parentId"]
    if target is not None:
        session.append_branch(target)
    else:  # the first turn: the step's reader refuses a branch entry with no parent (a key
        # lost to damage), so a kind of our own, which it keeps, stands at the root instead
        moved_from, session.leaf_id = session.leaf_id, None
        try:
            session.append_entry("branch", {"fromId": moved_from})
        except BaseException:  # not written, so not moved
            session.leaf_id = moved_from
            raise
    # Stop here: the messages, the cursor and the model all come from the new leaf, at once.
    chat.follow(build_context(session.entries, session.leaf_id))
    taken_back = preview(asked[-1]["message"])
    return CommandResult([f"undone: {taken_back} ({len(chat.messages)} messages on the path)"])


COMMANDS["/undo"] = Command("/undo", "take back the last turn (the file keeps it)", undo_command)
