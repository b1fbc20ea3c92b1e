"""Wrong: the header names the parent by the path as it was given, relative or not.

`str(path)` looks fine while every path is absolute. Forked as `sessions/x.jsonl` from the
project folder, the fork says its parent is `sessions/x.jsonl`, which means another file, or
none, to a program started anywhere else.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

EXPECTED_FAIL = "a relative parent path: has parentSession 'a relative path'"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(path)
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] == "branch":
            continue
        fields = {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")}
        fork.append_entry(entry["type"], fields)
    return fork.path
