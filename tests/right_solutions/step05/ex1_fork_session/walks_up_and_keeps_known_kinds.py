"""Right: walks parentId up from the leaf itself (guarded, as path_to_leaf is) and copies the
entries with append_message / append_model_change / append_entry by kind.

The walk stops at a missing or already visited parent; the copies go through the fork's
write path, each kind by its own method, and the ids a label or a summary names are looked
up in a map filled as the copies are written; the parent's path is given as a string. A check
that insisted on path_to_leaf, or on one append_entry call for every kind, would fail it.
"""

from __future__ import annotations

from pathlib import Path

from session import Session, SessionError, read_session


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(str(path))
    path_entries = []
    seen: set[str] = set()
    current = parent.leaf_id
    while current is not None and current in parent.by_id and current not in seen:
        seen.add(current)
        entry = parent.by_id[current]
        path_entries.append(entry)
        current = entry["parentId"]
    path_entries.reverse()
    if not path_entries:
        raise SessionError(f"{path}: an empty conversation, nothing to fork")
    fork = Session.create(
        str(directory), session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).absolute())
    new_ids: dict[str, str] = {}  # parent id -> the id of its copy, or of the copy before it
    for entry in path_entries:
        if entry["type"] == "message":
            written = fork.append_message(entry["message"])
        elif entry["type"] == "model_change":
            written = fork.append_model_change(entry["model"])
        elif entry["type"] != "branch":
            fields = {k: entry[k] for k in entry if k not in ("type", "id", "parentId")}
            key = "targetId" if entry["type"] == "label" else "fromId"
            if entry["type"] in ("label", "branch_summary") and isinstance(fields.get(key), str):
                fields[key] = new_ids.get(fields[key])
            written = fork.append_entry(entry["type"], fields)
        elif fork.leaf_id is not None:
            new_ids[entry["id"]] = fork.leaf_id  # left out: the conversation stands at the leaf
            continue
        else:
            continue
        new_ids[entry["id"]] = written["id"]
    return fork.path
