"""Wrong: forks a parent whose path is empty as any other, and returns the fork's path.

A parent with a header and a torn first line (a crash at the very first save leaves one)
has no entry on its path, so nothing is appended, and the fork's file, which its first write
creates, is never written. Nothing raises: the write path's refusal of an existing file is
never reached. The path it returns names no file, or, when that id was taken, another
session's file, which the caller then takes for the fork. (The shipped solution did this.)
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

EXPECTED_FAIL = "an empty path, over a session: it returned parent.jsonl"
SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # reads the parent, never opens it to write; refuses no session
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    in_fork: dict[str, str | None] = {}
    last_copy = None
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:  # none: nothing written
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
