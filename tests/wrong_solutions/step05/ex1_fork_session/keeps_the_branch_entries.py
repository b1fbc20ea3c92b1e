"""Wrong: copies every entry on the path, branch entries included.

The conversation and the model come back right: a branch entry adds nothing to either. But
it records a move inside the parent's tree: in the fork, renumbered, its fromId names an
entry the fork does not have, or a different one, and /tree says the fork went "back" from
somewhere it never was.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

EXPECTED_FAIL = "copy 4 has type 'branch', expected 'message'"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        fields = {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")}
        fork.append_entry(entry["type"], fields)
    return fork.path
