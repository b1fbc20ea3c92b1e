"""Wrong: copies the parent's entries in file order, each hung under the one before.

It leaves out branch entries and keeps every other field, through the one write path. But
file order is not the conversation: the entries of the abandoned branches sit between those
of the path, and hung one under another they all become the fork's conversation.
"""

from __future__ import annotations

from pathlib import Path

from session import Session, read_session

EXPECTED_FAIL = "the branched parent: copy 4 has message 'what is 12*8', expected 'hi'"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    reading = read_session(path)
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=reading.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())
    for entry in reading.entries:  # file order
        if entry["type"] == "branch":
            continue
        fields = {k: v for k, v in entry.items() if k not in ("type", "id", "parentId")}
        fork.append_entry(entry["type"], fields)
    return fork.path
