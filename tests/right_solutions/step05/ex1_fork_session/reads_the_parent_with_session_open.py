"""Right: reads the parent with Session.open instead of read_session.

This step's Session.open reads the file and writes nothing until something is appended, so
the parent stays as it was, and a read-only parent forks too. A check that insisted on
read_session would fail it.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, SessionError

SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = Session.open(path).session  # reads the parent; refuses what is no session
    on_path = path_to_leaf(parent.entries, parent.leaf_id).entries
    if not on_path:  # no first copy would create the fork's file
        raise SessionError(f"{path} has no conversation to fork")
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    in_fork: dict[str, str | None] = {}
    last_copy = None
    for entry in on_path:
        if entry["type"] in LEFT_OUT:
            in_fork[entry["id"]] = last_copy
            continue
        fields = {key: value for key, value in entry.items() if key not in SKIPPED_KEYS}
        field = NAMES_AN_ENTRY.get(entry["type"])
        if field is not None and isinstance(named := fields.get(field), str):
            fields[field] = in_fork.get(named)
        last_copy = fork.append_entry(entry["type"], fields)["id"]
        in_fork[entry["id"]] = last_copy
    return fork.path
