"""Exercise 06.1: a compaction boundary that never cuts a tool call from its result.

Fill-in exercise, about 20 minutes.

`/compact` replaces all but the last turn with a summary. Often you want to keep more:
`/compact 4`, "keep at least the last 4 messages". The naive boundary is the 4th message from
the end, and it is wrong whenever that message is a tool result: its call is summarised away,
and the model is given a result that answers nothing, a history a real chat API refuses on
every turn (notebook 06, section 4).

The boundary is the first entry the compaction keeps (its `firstKeptId`). Write
`first_kept(entries, leaf_id, keep)`, its id, or None when there is nothing to compact.

What the check holds you to (sessions made of turns, tool calls, a call a kill left without
its result, model switches, moves and compactions; at each leaf, `keep` 1 to 6, compared with
the solution; then `/compact N` played through the step's dispatcher):

- The messages that count are the conversation's at the leaf, from what the latest
  compaction on its path keeps (what came before is in its summary), never the file's
  lines; an entry that is no message (a model switch, a move, a compaction) counts for
  nothing.
- The boundary is a user message, where a turn starts, so every turn kept is kept whole.
  Of those, it is the LATEST that keeps at least `keep` messages (itself and those after it
  on the path): the summary stands in for as much as it can.
- At least one message comes before it on the path: with none, there is nothing new to
  summarise. None then, and None when no user message keeps enough.

`keep` is 1 or more; `/compact` alone is `/compact 1`, the last turn, as the step's own. The
rest of this file is given: `/compact [N]` in the step's own command table, which writes one
compaction at your boundary (the summary, by the model in force, of the messages before it).
Check it with `python -m exercises check 06.1` or the notebook.
"""

from __future__ import annotations

from collections.abc import Mapping

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, build_context, path_to_leaf
from model import MODELS


def first_kept(entries: Mapping[str, Entry], leaf_id: str | None, keep: int) -> str | None:
    """The id of the first entry a compaction keeping at least `keep` messages keeps, or None."""
    path = path_to_leaf(entries, leaf_id).entries  # from what the latest compaction keeps
    messages = [entry for entry in path if entry["type"] == "message"]
    # Index 0 is never a boundary: nothing before it is left to summarise.
    for at in range(len(messages) - keep, 0, -1):  # the latest first; each keeps `keep` or more
        if messages[at]["message"]["role"] == "user":  # a turn starts: its calls stay with it
            return messages[at]["id"]
    return None


# --- Given: `/compact [N]`, at your boundary ----------------------------------------------


def compact_command(chat: Chat, argument: str) -> CommandResult:
    """`/compact [N]`: a summary stands in for what comes before the boundary; one line more."""
    keep = 1 if not argument else int(argument) if argument.isdecimal() else 0
    if keep < 1:
        return CommandResult(["usage: /compact [N], N the messages to keep at least (1 or more)"])
    session = chat.session
    kept = first_kept(session.entries, session.leaf_id, keep)
    if kept is None:
        return CommandResult([f"nothing to compact: keeping {keep} leaves nothing new before"])
    # The messages before the boundary: the context at the entry it hangs under.
    summarised = build_context(session.entries, session.entries[kept]["parentId"]).messages
    session.append_compaction(MODELS[chat.model].summarize(summarised), kept)
    chat.follow(build_context(session.entries, session.leaf_id))
    return CommandResult([f"compacted: a summary stands in for {len(summarised)} messages"])


COMMANDS["/compact"] = Command(
    "/compact [N]", "replace all but the last N messages (at least) with a summary", compact_command
)
