"""Wrong: maps every id it can, and keeps the parent's id where the fork has no copy.

"When in doubt, keep the data" sounds safe. But a label of an entry on a branch the parent
left behind then names an id the fork either lacks ("no entry e4") or gives, sooner or
later, to an entry of its own: the label quietly comes to name a message it never named.
None says the label names nothing here.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}

EXPECTED_FAIL = "the labelled parent: copy 3 has targetId 'copy 4', expected None"


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
        if field is not None and isinstance(named := fields.get(field), str):
            fields[field] = in_fork.get(named, named)  # not in the fork: kept as it was
        last_copy = fork.append_entry(entry["type"], fields)["id"]
        in_fork[entry["id"]] = last_copy
    return fork.path
