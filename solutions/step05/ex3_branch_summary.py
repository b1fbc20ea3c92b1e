"""Exercise 05.3: summarise the branch you leave, and give the summary to the model.

`/branch` is undo: the new branch starts as if the old one had never happened. Often that is
too much forgetting: the model tried something, it failed, and the next try should know
that. So when the leaf moves, summarise what is left behind into the new branch.

The design (the check holds you to it):

- A move is the step's own `/branch` (one `branch` entry under the target, the chat rebuilt),
  then, if the move left at least one MESSAGE behind, one more entry, written through the one
  write path:

      {"type": "branch_summary", "id": "e10", "parentId": "e9", "fromId": "e8",
       "summary": "asked: what is 12*8; result: 96; asked: what was the result"}

  It hangs under the branch entry and becomes the leaf, so it is on the new branch's path and
  on no other path: the branch it describes never sees it, and a later move higher up leaves
  it behind with the rest. `fromId` is the old leaf.
- What is left behind: the entries on the path from the OLD leaf below the deepest entry that
  path shares with the path to the target (their common ancestor). Not "everything below the
  target": the target may be on another branch.
- The summary: one short text, at most SUMMARY_LIMIT characters, holding each user question
  and each tool result of the messages left behind, in order. Only messages count: the
  branch and branch_summary entries left behind add nothing to it. A branch too long for
  that is cut, and what marks the cut (a "…", say) counts in the SUMMARY_LIMIT characters.
- The model is given it as a note: a user message holding the summary (`summary_note`), in
  the place of the branch_summary entry on the path. `context_with_summaries(entries,
  leaf_id)` builds that context; the step's own `build_context` (and steps 03 and 04) skip the
  entry like any kind they do not know, so old readers still read the conversation. The note
  is never saved as a message: the entry is already in the file (the cursor counts the note).

Write four functions (the rest of this file is given):

1. `left_behind(entries, old_leaf, target)`: the entries described above, in path order.
2. `summarize_branch(entries)`: the summary of those entries; "" when they hold no message.
3. `context_with_summaries(entries, leaf_id)`: like `entries.build_context`, plus a note for
   each branch_summary on the path whose `summary` is text (a file is data: any other value
   is no note), where it is. "Like" includes what build_context does with tool calls (read
   it): a call whose result is lost gets an error result in memory, and a result whose call
   is lost is left out; and it carries the model and the chain break as build_context does.
4. `branch_command(chat, argument)`, the new `/branch ID`: call `step_branch_command` (it
   refuses bad input, moves the leaf and rebuilds the chat); if it moved (the leaf is not
   where it was: a refused /branch writes nothing, whatever the leaf is), append the summary
   entry (when there is something to summarise) and `chat.follow` the context with summaries.
   It answers in lines, as the step's /branch does, in words of your own.

The step folder is never edited by an exercise, so this file holds what main.py would use:
its commands in the step's own command table (its run_command dispatches the line) and
`open_chat` (what `--continue` does). Check it with `python -m exercises check 05.3` or the
notebook.
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
