"""Exercise 05.3: summarise the branch you leave, and give the summary to the model.

Fill-in exercise, about 30 minutes.

`/branch` is undo: the new branch starts as if the old one had never happened. Often that is
too much forgetting: the model tried something, it failed, and the next try should know that.
So when the leaf moves, what is left behind is summarised into the new branch, as an entry:

    {"type": "branch_summary", "id": "e10", "parentId": "e9", "fromId": "e8",
     "summary": "asked: what is 12*8; result: 96; asked: what was the result"}

Write `left_behind(entries, old_leaf, target)`, `summarize_branch(entries)`,
`context_with_summaries(entries, leaf_id)` and `branch_command(chat, argument)` (the new
`/branch ID`).

What the check holds you to (scripts of turns, model switches and moves played through the
step's own dispatcher on your code and the solution's; left_behind and the context on
generated trees; new processes that reopen a file, one an older program wrote):

- A move is the step's own `/branch` (its refusals, its `branch` entry, its rebuilt chat),
  then, if it left at least one message behind, one `branch_summary` entry, under the
  `branch` entry, which becomes the leaf: on the new branch's path and on no other. Its
  `fromId` is the old leaf. A refused `/branch` writes nothing, wherever the leaf is.
- What a move leaves behind (`left_behind`, in path order): the entries on the path to the
  OLD leaf below the deepest entry that path shares with the path to the target. The
  target may be on another branch: it is not "everything below the target".
- A summary (`summarize_branch`) is one text of at most SUMMARY_LIMIT characters (what marks
  a cut counts in them), holding the text of each user question and each tool result of
  the messages left behind, in order; "" when no message was left. Only messages count. A
  branch too long to hold whole is cut, and keeps what it holds in order. Its wording
  around those texts is yours.
- The model is given a summary as a note, `summary_note(summary)`, a user message, where the
  `branch_summary` entry is on the path (only one whose `summary` is text: a file is data).
  `context_with_summaries` is the step's `build_context` with the notes: the same pairing
  of tool calls and results (read it), the same model and chain break. The note is never
  saved as a message: the cursor counts it as saved. After a move, the chat holds that
  context; so does `open_chat`. The step's own reader skips the entry, as any kind it does
  not know.

The step folder is never edited by an exercise, so this file holds what main.py would use:
its command in the step's own command table and `open_chat` (what `--continue` does). Check
it with `python -m exercises check 05.3` or the notebook.
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
    summary = "; ".join(parts)
    if len(summary) > SUMMARY_LIMIT:
        summary = summary[: SUMMARY_LIMIT - 1] + "…"
    return summary


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
