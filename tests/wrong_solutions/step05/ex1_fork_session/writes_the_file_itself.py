"""Wrong: writes the fork's lines itself with open(target, "wb"): an existing session is lost.

The fork it writes is right: the path's entries, renumbered, as a straight line. But "wb"
truncates whatever file has that name, so a fork given the id of an existing session (its
own parent's, say) replaces that session's bytes with the fork. The one write path creates a
file only if it does not exist yet.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from entries import path_to_leaf
from session import Session

EXPECTED_FAIL = (
    "forking with the id of an existing session, fork_session changed parent.jsonl: it rewrote it"
)


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = Session.open(path).session
    header = {
        "type": "header",
        "version": 1,
        "id": session_id,
        "createdAt": created_at,
        "cwd": parent.header["cwd"],
        "parentSession": str(Path(path).resolve()),
    }
    lines = [orjson.dumps(header)]
    previous = None
    number = 0
    for entry in path_to_leaf(parent.entries, parent.leaf_id).entries:
        if entry["type"] in ("branch", "damaged"):
            continue
        number += 1
        copy = {**entry, "id": f"e{number}", "parentId": previous}
        lines.append(orjson.dumps(copy))
        previous = copy["id"]
    target = Path(directory) / f"{session_id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as file:
        file.write(b"\n".join(lines) + b"\n")
    return target
