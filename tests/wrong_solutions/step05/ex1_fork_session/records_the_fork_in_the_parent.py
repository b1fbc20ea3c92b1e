"""Wrong: the fork is right, and then the parent gets a `fork` entry naming its child.

A link both ways sounds tidy, but the parent is not this fork's to write: its bytes change,
its leaf moves to the new entry, and a fork of a session that cannot be written to (someone
else's, a read-only copy) would fail. The link belongs in the fork's header only.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session

EXPECTED_FAIL = "the parent is only read; a relative parent path: it opened parent.jsonl"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = Session.open(path).session
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())
    for entry in path_to_leaf(parent.entries, parent.leaf_id).entries:
        if entry["type"] == "branch":
            continue
        fields = {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")}
        fork.append_entry(entry["type"], fields)
    parent.append_entry("fork", {"childSession": str(fork.path.resolve())})  # both ways
    return fork.path
