"""Exercise 05.1: fork the conversation into a session file of its own.

`/branch` forks inside one file: the old branch stays, the leaf moves. Sometimes you want the
conversation you have now in a file of its own: to try something risky in another terminal,
to hand it to someone, to start clean of the dead ends. That is a fork: a NEW session file
that holds the active path (the path from the leaf) and nothing else, and whose header says
where it came from:

    {"type":"header","version":1,"id":"fork-1","createdAt":"2026-01-02T09:00:00.000Z",
     "cwd":"/home/ada/project","parentSession":"/home/ada/project/.sessions/parent.jsonl"}

Write `fork_session(path, directory, *, session_id, created_at)`:

1. Read the parent. Its conversation is the path from its leaf (`Session.open`, and
   `entries.path_to_leaf`), not its lines in file order: a branched file holds abandoned
   branches, and they stay in the parent.
2. Create the fork in `directory` with `Session.create` (id and time as given, the parent's
   `cwd`), and put `parentSession`, the parent file's ABSOLUTE path as text, in its `header`
   before the first write: the header is written with the first entry.
3. Copy the path's entries, in order, through the fork's one write path,
   `fork.append_entry(kind, fields)`: it numbers each copy and hangs it under the one before,
   so the fork is a straight line. Keep every field but `type`, `id` and `parentId`, so a
   `model_change` keeps its model (and an entry of a kind this step does not know keeps what
   it holds). Leave out `branch` entries: they record a move inside the parent's tree, and
   their `fromId` names an entry the fork does not have. Leave out `damaged` ones too: that is
   what the reader left of a line it could not use, and it holds nothing to copy.
4. Return the fork's path, `directory/<session_id>.jsonl`.

Reopened with `Session.open`, the fork resumes the parent's conversation and model. The parent
file is only read: not one byte of it changes. A `session_id` whose file already exists must
raise and leave that file as it was (the one write path refuses to overwrite); so must a
parent that is not a session, creating nothing.

Check it with `python -m exercises check 05.1` or the notebook.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf  # noqa: F401  (you will need it)
from session import Session  # noqa: F401  (you will need it)


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    # TODO: open the parent, create the fork (header with parentSession), copy the path's
    # entries but branch entries with fork.append_entry, return fork.path.
    raise NotImplementedError("fork_session is not written yet")
