"""Exercise 05.1: fork the conversation into a session file of its own.

`/branch` forks inside one file: the old branch stays, the leaf moves. Sometimes you want the
conversation you have now in a file of its own: to try something risky in another terminal,
to hand it to someone, to start clean of the dead ends. That is a fork: a NEW session file
that holds the active path (the path from the leaf) and nothing else, and whose header says
where it came from:

    {"type":"header","version":1,"id":"fork-1","createdAt":"2026-01-02T09:00:00.000Z",
     "cwd":"/home/ada/project","parentSession":"/home/ada/project/.sessions/parent.jsonl"}

Write `fork_session(path, directory, *, session_id, created_at)`:

1. Read the parent, and only read it: `read_session(path)` gives its header, its entries by
   id and its leaf, and never writes. Its conversation is the path from its leaf
   (`entries.path_to_leaf`), not its lines in file order: a branched file holds abandoned
   branches, and they stay in the parent.
2. Create the fork in `directory` with `Session.create` (id and time as given, the parent's
   `cwd`), and put `parentSession`, the parent file's ABSOLUTE path as text, in its `header`
   before the first write: the header is written with the first entry. The fork holds what
   its parent holds, so it is as private: the file 0600 and a folder it makes 0700, whatever
   the umask (`Session.create` makes them so; a file opened by hand is 0644 under umask 022).
3. Copy the path's entries, in order, through the fork's one write path,
   `fork.append_entry(kind, fields)`: it numbers each copy and hangs it under the one before,
   so the fork is a straight line. Keep every field but `type`, `id` and `parentId`, so a
   `model_change` keeps its model (and an entry of a kind this step does not know keeps what
   it holds). Leave out `branch` entries: they record a move inside the parent's tree, and
   their `fromId` names an entry the fork does not have.
4. A fork renumbers, so an id copied as it was would name another entry of the fork, or none.
   Two kinds of the next exercises name an entry by id: a `label` (05.2) its `targetId`, a
   `branch_summary` (05.3) its `fromId`. Write the FORK's id there: the id of that entry's
   copy (`append_entry` returns the entry it wrote, id included), or for an entry left out
   (a branch entry) the copy before it on the path, where the conversation stood; `None`
   when the fork has no copy of it (an entry on a branch the parent left behind). So
   `/branch good` in the fork goes where it went in the parent, and a label of an abandoned
   entry names nothing, never the entry the fork later gives that id. A value that is no
   string names no entry: keep it as it is.
5. Return the fork's path, `directory/<session_id>.jsonl`.

Reopened with `Session.open`, the fork resumes the parent's conversation and model. The parent
file is only read: not one byte of it changes, and a read-only parent forks like any other.
A `session_id` whose file already exists must raise and leave that file as it was (the one
write path refuses to overwrite); so must a parent that is not a session, creating nothing.
A parent whose path is empty (a header and a torn first line, as a crash at the very first
save leaves it) has no conversation to fork, and a fork's file is written by its first copy:
raise `SessionError` (from `session`), creating nothing, never return a path that names no
fork, or names another session's file.

Check it with `python -m exercises check 05.1` or the notebook.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, SessionError, read_session

SKIPPED_KEYS = ("type", "id", "parentId")  # the fork's write path sets these afresh
LEFT_OUT = ("branch",)  # a move inside the parent's tree
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}  # 05.2's and 05.3's kinds


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # reads the parent, never opens it to write; refuses no session
    if parent.leaf_id is None:  # no entry to copy, so no first write to create the fork's file
        raise SessionError(f"{path}: no conversation to fork (no usable entry)")
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    # Absolute: the fork may be opened from another folder than the one it was made in.
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    in_fork: dict[str, str | None] = {}  # a parent id on the path -> the fork's id for it
    last_copy = None
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] in LEFT_OUT:
            in_fork[entry["id"]] = last_copy  # the conversation there is the one before it
            continue  # the fork is a straight line of what the conversation holds
        fields = {key: value for key, value in entry.items() if key not in SKIPPED_KEYS}
        field = NAMES_AN_ENTRY.get(entry["type"])
        if field is not None and isinstance(named := fields.get(field), str):
            fields[field] = in_fork.get(named)  # its copy's id; None: not in the fork
        last_copy = fork.append_entry(entry["type"], fields)["id"]  # new id, under the one before
        in_fork[entry["id"]] = last_copy
    return fork.path
