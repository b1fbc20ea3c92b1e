"""Wrong: the N-th message from the end, moved back past any tool results, so no result is cut
from its call.

That fixes the result: the kept part now starts at the assistant message that made the
call. But the question the call answers is summarised away, and the turn is cut in two: the
boundary must be where a turn starts, a user message.
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
    at = len(messages) - keep
    while at > 0 and messages[at]["message"]["role"] == "toolResult":
        at -= 1  # never keep a result without its call
    return messages[at]["id"] if at > 0 else None


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
