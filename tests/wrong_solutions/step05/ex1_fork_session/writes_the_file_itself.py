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
from session import read_session

EXPECTED_FAIL = "the id of an existing session: it opened parent.jsonl (open(..., 'wb'))"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
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
    new_ids: dict[str, str | None] = {}  # parent id -> the fork's id for it
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] == "branch":
            new_ids[entry["id"]] = previous
            continue
        number += 1
        copy = {**entry, "id": f"e{number}", "parentId": previous}
        key = {"label": "targetId", "branch_summary": "fromId"}.get(entry["type"])
        if key is not None and isinstance(entry.get(key), str):
            copy[key] = new_ids.get(entry[key])
        lines.append(orjson.dumps(copy))
        previous = new_ids[entry["id"]] = copy["id"]
    target = Path(directory) / f"{session_id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as file:
        file.write(b"\n".join(lines) + b"\n")
    return target
