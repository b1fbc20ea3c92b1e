"""Wrong: the boundary is the N-th message from the end, as "keep the last N" says.

It keeps exactly N messages. But the N-th from the end is seldom where a turn starts: an
answer is kept without its question, and when it is a tool result, its call is summarised
away and the model is given a result that answers nothing, a history a chat API refuses.
"""

from __future__ import annotations

from collections.abc import Mapping

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, build_context, path_to_leaf  # noqa: F401  (you will need it)
from model import MODELS

EXPECTED_FAIL = "e8 (assistant), expected e7 (user)"


def first_kept(entries: Mapping[str, Entry], leaf_id: str | None, keep: int) -> str | None:
    """The id of the first entry a compaction keeping at least `keep` messages keeps, or None."""
    path = path_to_leaf(entries, leaf_id).entries
    messages = [entry for entry in path if entry["type"] == "message"]
    if keep >= len(messages):
        return None  # nothing would be left to summarise
    return messages[-keep]["id"]


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
