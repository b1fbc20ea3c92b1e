"""Right: walks parentId up from the leaf itself (guarded, as path_to_leaf is) and copies the
entries with append_message / append_model_change / append_entry by kind.

The walk stops at a missing or already visited parent; the copies go through the fork's
write path, each kind by its own method; the parent's path is given as a string. A check
that insisted on path_to_leaf, or on one append_entry call for every kind, would fail it.
"""

from __future__ import annotations

from pathlib import Path

from session import Session


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    resumed = Session.open(str(path))
    parent = resumed.session
    path_entries = []
    seen: set[str] = set()
    current = parent.leaf_id
    while current is not None and current in parent.entries and current not in seen:
        seen.add(current)
        entry = parent.entries[current]
        path_entries.append(entry)
        current = entry["parentId"]
    path_entries.reverse()
    fork = Session.create(
        str(directory), session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).absolute())
    for entry in path_entries:
        if entry["type"] == "message":
            fork.append_message(entry["message"])
        elif entry["type"] == "model_change":
            fork.append_model_change(entry["model"])
        elif entry["type"] not in ("branch", "damaged"):
            fields = {k: entry[k] for k in entry if k not in ("type", "id", "parentId")}
            fork.append_entry(entry["type"], fields)
    return fork.path
