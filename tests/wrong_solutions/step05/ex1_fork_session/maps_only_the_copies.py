"""Wrong: maps each copied entry's id to its copy's, and nothing else.

Labels of messages come out right. But a label made right after `/branch` names the branch
entry (the leaf then), which the fork leaves out: this fork gives it None, as if its entry
were on a branch left behind, and `/branch NAME` in the fork finds nothing where the parent
goes back to a place in the conversation. A left-out entry on the path stands for the copy
before it.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}

EXPECTED_FAIL = "the labelled parent: copy 4 has targetId None, expected 'copy 2'"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    in_fork: dict[str, str] = {}
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] in LEFT_OUT:
            continue
        fields = {key: value for key, value in entry.items() if key not in SKIPPED_KEYS}
        field = NAMES_AN_ENTRY.get(entry["type"])
        if field is not None and isinstance(named := fields.get(field), str):
            fields[field] = in_fork.get(named)
        in_fork[entry["id"]] = fork.append_entry(entry["type"], fields)["id"]
    return fork.path
