"""Wrong: writes the fork's lines itself, into a file opened with "x", so nothing is overwritten.

"x" creates the file or refuses one that exists, so an existing session is safe, and the
lines are right: the path's entries, renumbered, a straight line, the header naming the
parent. But a file opened by hand gets the umask's mode, 0644 under the usual umask 022, in a
folder made 0755: the fork, a copy of a conversation, is readable by every user of the
machine, where the parent (made by the step's one write path) is not.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from entries import path_to_leaf
from session import read_session

EXPECTED_FAIL = "a fork into a new folder, umask 022: the file 644, its new folder 755"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
    header = {**parent.header, "id": session_id, "createdAt": created_at}
    header["parentSession"] = str(Path(path).resolve())
    in_fork: dict[str, str | None] = {}
    lines, last = [orjson.dumps(header)], None
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] == "branch":
            in_fork[entry["id"]] = last
            continue
        copy = {**entry, "id": f"e{len(lines)}", "parentId": last}
        field = {"label": "targetId", "branch_summary": "fromId"}.get(entry["type"])
        if field is not None and isinstance(copy.get(field), str):
            copy[field] = in_fork.get(copy[field])
        lines.append(orjson.dumps(copy))
        in_fork[entry["id"]] = last = copy["id"]
    Path(directory).mkdir(parents=True, exist_ok=True)
    target = Path(directory) / f"{session_id}.jsonl"
    with open(target, "xb") as file:  # never over an existing file
        file.write(b"".join(line + b"\n" for line in lines))
    return target
