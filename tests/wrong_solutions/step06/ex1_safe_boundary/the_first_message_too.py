"""Wrong: the first message of the path can be the boundary too.

It is a user message, and it keeps enough. But nothing comes before it on the path: after an
earlier compaction, the "summary" of what comes before is that earlier summary alone, and
the command writes a second compaction that stands in for nothing new.
"""

from __future__ import annotations

from collections.abc import Mapping

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, build_context, path_to_leaf  # noqa: F401  (you will need it)
from model import MODELS

EXPECTED_FAIL = "e1 (user), expected None"


def first_kept(entries: Mapping[str, Entry], leaf_id: str | None, keep: int) -> str | None:
    """The id of the first entry a compaction keeping at least `keep` messages keeps, or None."""
    path = path_to_leaf(entries, leaf_id).entries
    messages = [entry for entry in path if entry["type"] == "message"]
    for at in range(len(messages) - keep, -1, -1):  # the latest first, the first one too
        if messages[at]["message"]["role"] == "user":
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
