"""Wrong: reads the parent with Session.open, which opens a session to append to it.

Everything copied is right, and the parent's bytes never change. But Session.open checks that
the file can be appended to, and opens it for writing to do so: a parent this process may
only read (someone else's session, a read-only disk, a file of mode 444) cannot be forked,
though a fork never writes a byte of it. read_session reads without opening it for writing.
"""

from __future__ import annotations

from pathlib import Path

from entries import DAMAGED, path_to_leaf
from session import Session

SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch", DAMAGED)
NAMES_AN_ENTRY = {"label": "targetId", "branch_summary": "fromId"}

EXPECTED_FAIL = (
    "fork_session opened parent.jsonl for writing (os.open with O_RDWR|O_APPEND), and "
    "parent.jsonl is read-only"
)


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = Session.open(path).session  # reads the parent; refuses what is no session
    fork = Session.create(
        directory, session_id=session_id, created_at=created_at, cwd=parent.header["cwd"]
    )
    fork.header["parentSession"] = str(Path(path).resolve())  # type: ignore[typeddict-item]
    in_fork: dict[str, str | None] = {}
    last_copy = None
    for entry in path_to_leaf(parent.entries, parent.leaf_id).entries:
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
