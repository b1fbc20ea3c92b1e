"""Right, another design: no `branch` entry. An /undo writes an entry of its own kind, `undo`,
hanging under the entry the taken-back question hangs under (the root for the first turn),
and naming the question it undid; the step's reader keeps a kind it does not know and follows
its parentId, so a restart resumes there. The question is found by walking the parentIds up
from the leaf by hand, the entries looked up one at a time, never the file's order."""

from __future__ import annotations

from commands import COMMANDS, Chat, Command, CommandResult
from entries import build_context


def last_question(chat: Chat) -> dict | None:
    """The last user message on the path from the leaf: walked up, a visited set against a
    damaged file's cycle."""
    entries, entry_id, seen = chat.session.entries, chat.session.leaf_id, set()
    while entry_id is not None and entry_id not in seen and entry_id in entries:
        seen.add(entry_id)
        entry = entries[entry_id]
        if entry["type"] == "message" and entry["message"]["role"] == "user":
            return entry
        entry_id = entry["parentId"]
    return None


def undo_command(chat: Chat, argument: str) -> CommandResult:
    question = last_question(chat)
    if question is None:
        return CommandResult(["nothing to undo"])
    session, left = chat.session, chat.session.leaf_id
    session.leaf_id = question["parentId"]  # the undo entry hangs where the turn began
    try:
        session.append_entry("undo", {"undid": question["id"], "fromId": left})
    except BaseException:
        session.leaf_id = left
        raise
    chat.follow(build_context(session.entries, session.leaf_id))
    return CommandResult([f"took back {question['id']} and its answer"])


COMMANDS["/undo"] = Command("/undo", "take back the last turn (the file keeps it)", undo_command)
