"""Wrong: looks every label's targetId up in the map of new ids, whatever it holds.

Every label this program writes names a string id, so every real fork works. But a file is
data: a label whose targetId is a list (a hand edit, another program) cannot be a dict key,
and the fork raises TypeError halfway, with the fork's file half written.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}

EXPECTED_FAIL = "the labelled parent: raised TypeError"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    in_fork: dict[str, str | None] = {}
    last_copy = None
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] in LEFT_OUT:
            in_fork[entry["id"]] = last_copy
            continue
        fields = {key: value for key, value in entry.items() if key not in SKIPPED_KEYS}
        field = NAMES_AN_ENTRY.get(entry["type"])
        if field is not None and field in fields:
            fields[field] = in_fork.get(fields[field])
        last_copy = fork.append_entry(entry["type"], fields)["id"]
        in_fork[entry["id"]] = last_copy
    return fork.path
