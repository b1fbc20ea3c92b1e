"""Wrong: copies the messages and the model changes on the path, and nothing else.

Every kind this step writes comes through, so a fork of any session this step made looks
right. But a file is data, and a newer program's entry kind on the path (kept by this step's
reader, followed, shown by /tree) is dropped from the fork without a word: "keep every field"
is about every entry on the path, not only the kinds this code has heard of.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

EXPECTED_FAIL = "copy 4 has type 'message', expected 'x_later_kind'"


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
        if entry["type"] == "message":
            fork.append_message(entry["message"])
        elif entry["type"] == "model_change":
            fork.append_model_change(entry["model"])
    return fork.path
