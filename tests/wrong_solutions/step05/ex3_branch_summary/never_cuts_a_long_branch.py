"""Wrong: the summary holds every question and result left behind, however many there are.

Nothing is lost, and a branch of two or three turns gives a short text. But a long branch
gives a long one, and the note goes to the model with every turn after the move: the summary
is a reminder, not a second copy of the branch. SUMMARY_LIMIT is the most it may hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from commands import branch_command as step_branch_command
from entries import Context, Entry, build_context, path_to_leaf
from messages import UserMessage, answered_in_memory, preview, user_text
from session import Session

KIND = "branch_summary"
SUMMARY_LIMIT = 600  # characters: a summary is a reminder, not a second copy of the branch
EXPECTED_FAIL = "entry 32 has summary '768 characters, over 600'"
NOTE_PREFIX = "(A branch of this conversation was left behind. What happened there: "


def summary_note(summary: str) -> UserMessage:
    """The message the model is given for a branch_summary entry."""
    return user_text(f"{NOTE_PREFIX}{summary})")


def left_behind(entries: Mapping[str, Entry], old_leaf: str, target: str) -> list[Entry]:
    """The entries on the old leaf's path below its common ancestor with the target's path."""
    old_path = path_to_leaf(entries, old_leaf).entries
    new_path = path_to_leaf(entries, target).entries
    shared = 0  # both paths start at the first entry; they part at the common ancestor
    while (
        shared < min(len(old_path), len(new_path))
        and old_path[shared]["id"] == new_path[shared]["id"]
    ):
        shared += 1
    return old_path[shared:]


def summarize_branch(entries: list[Entry]) -> str:
    """One short text: the user questions and tool results among `entries`, in order."""
    parts = []
    for entry in entries:
        if entry["type"] != "message":
            continue  # a branch or an older summary left behind adds nothing
        message = entry["message"]
        role = {"user": "asked", "toolResult": "result"}.get(message["role"], "answered")
        parts.append(f"{role}: {preview(message, 80)}")
    return "; ".join(parts)  # every turn of the branch, in order


def context_with_summaries(entries: Mapping[str, Entry], leaf_id: str | None) -> Context:
    """What the model is given at `leaf_id`: the conversation, with each summary's note."""
    messages = []
    for entry in path_to_leaf(entries, leaf_id).entries:
        if entry["type"] == "message":
            messages.append(entry["message"])
        elif entry["type"] == KIND and isinstance(entry.get("summary"), str):
            messages.append(summary_note(entry["summary"]))  # where it is on the path
    plain = build_context(entries, leaf_id)  # the model in force and the chain break
    return Context(answered_in_memory(messages), plain.model, plain.chain_break)


def branch_command(chat: Chat, argument: str) -> CommandResult:
    """`/branch ID`: the step's move, then a summary of what it left behind."""
    session = chat.session
    old_leaf = session.leaf_id
    result = step_branch_command(chat, argument)
    if old_leaf is None or session.leaf_id == old_leaf:
        return result  # refused: nothing was written, so nothing to summarise
    target = session.entries[session.leaf_id]["parentId"]  # the branch entry hangs under it
    summary = summarize_branch(left_behind(session.entries, old_leaf, target))
    lines = list(result.lines)
    if summary:
        session.append_entry(KIND, {"fromId": old_leaf, "summary": summary})
        lines.append(f"left behind, summarised for the model: {summary}")
    # Stop here: follow even without a new summary: the step rebuilt the chat without the
    # notes, and an older summary may be on the new path.
    chat.follow(context_with_summaries(session.entries, session.leaf_id))
    return CommandResult(lines, result.exit)


# --- Given: what main.py would do with them --------------------------------------------------

# The command goes into the step's own table, so the step's run_command (the one main.py
# calls) dispatches `/branch` to it; it calls the step's own /branch for the move.
COMMANDS["/branch"] = Command(
    "/branch ID", "go back to entry ID; what is left behind is summarised", branch_command
)


def open_chat(path: Path | str) -> Chat:
    """What `--continue` does with this session: the context at the leaf, summaries included,
    read from the file (a fresh process knows nothing else)."""
    resumed = Session.open(path)
    chat = Chat(resumed.session, [], cursor=0)
    chat.follow(context_with_summaries(resumed.session.entries, resumed.session.leaf_id))
    return chat
