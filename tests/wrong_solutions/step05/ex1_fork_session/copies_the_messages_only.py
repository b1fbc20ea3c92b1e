"""Wrong: copies the conversation's messages, not the path's entries: the model is lost.

`Session.open(...).context.messages` is the path already walked, so the abandoned branches
are left out, rightly. But a context holds messages, and the model in force is a
`model_change` entry on the path: the fork resumes with the default model.
"""

from __future__ import annotations

from pathlib import Path

from entries import build_context
from session import Session, read_session

EXPECTED_FAIL = "copy 3 has type 'message', expected 'model_change'"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
    fork = Session.create(
        directory,
        session_id=session_id,
        created_at=created_at,
        cwd=parent.header["cwd"],
    )
    fork.header["parentSession"] = str(Path(path).resolve())
    for message in build_context(parent.by_id, parent.leaf_id).messages:
        fork.append_message(message)
    return fork.path
