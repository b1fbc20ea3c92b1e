"""Right: keeps every field of each copy, and adds one of its own, `copiedFrom`: the id it had.

A fork that keeps more than it must is still right: the conversation, the model and every
field of the path's entries are there, and a reader skips a field it does not use. A check
that compared each copy's fields exactly would fail it.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, SessionError, read_session


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
    if parent.leaf_id is None:
        raise SessionError(f"nothing to fork in {path}")
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())
    copy_of: dict[str, str | None] = {}  # parent id -> the fork's id for it
    stood = None  # the fork's last copy: where the conversation stands
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] == "branch":
            copy_of[entry["id"]] = stood
            continue
        fields = {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")}
        key = {"label": "targetId", "branch_summary": "fromId"}.get(entry["type"], "")
        if isinstance(fields.get(key), str):
            fields[key] = copy_of.get(fields[key])  # None: the fork has no copy of it
        copy = fork.append_entry(entry["type"], {"copiedFrom": entry["id"], **fields})
        stood = copy_of[entry["id"]] = copy["id"]
    return fork.path
