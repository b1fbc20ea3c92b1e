"""Right: the turns first (each user message and the messages after it), then whole turns from
the end until they hold `keep` messages.

Turn by turn is how a person thinks of it, and a turn is never cut. The first turn of the
path is never the boundary (nothing would be left before it); a path whose first message is
no user message makes that part a turn of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, build_context, path_to_leaf  # noqa: F401  (you will need it)
from model import MODELS


def first_kept(entries: Mapping[str, Entry], leaf_id: str | None, keep: int) -> str | None:
    """The id of the first entry a compaction keeping at least `keep` messages keeps, or None."""
    path = path_to_leaf(entries, leaf_id).entries
    turns: list[list[Entry]] = []
    for entry in path:
        if entry["type"] != "message":
            continue
        if entry["message"]["role"] == "user" or not turns:
            turns.append([])
        turns[-1].append(entry)
    kept = 0
    for number in range(len(turns) - 1, 0, -1):
        kept += len(turns[number])
        if kept >= keep:
            return turns[number][0]["id"]
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
