"""Wrong: makes a fork of an empty path anyway, a file holding the header and nothing else.

It never returns another session's file: the header goes out through the fork's own file,
which refuses one that exists. But a session file is created by its first entry, so that a
run that saves nothing leaves nothing; this one leaves a session with no conversation, which
`--continue` would then take for the newest session and resume as empty. A parent with no
entry on its path has nothing to fork: refuse it (SessionError), creating nothing.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

EXPECTED_FAIL = "an empty path: it made new.jsonl"
SKIPPED_KEYS = ("type", "id", "parentId")
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    on_path = path_to_leaf(parent.by_id, parent.leaf_id).entries
    if not on_path:
        fork.file.append(b"")  # the header alone: an empty session, but a session
        return fork.path
    in_fork: dict[str, str | None] = {}
    last_copy = None
    for entry in on_path:
        if entry["type"] == "branch":
            in_fork[entry["id"]] = last_copy
            continue
        fields = {key: value for key, value in entry.items() if key not in SKIPPED_KEYS}
        field = NAMES_AN_ENTRY.get(entry["type"])
        if field is not None and isinstance(named := fields.get(field), str):
            fields[field] = in_fork.get(named)
        last_copy = fork.append_entry(entry["type"], fields)["id"]
        in_fork[entry["id"]] = last_copy
    return fork.path
