"""Wrong: leaves out branch entries, and copies everything else on the path by hand.

It writes each entry's line itself (a careful writer: O_EXCL, renumbered, a straight line),
so the one write path's refusal does not stop it, and the `damaged` entry the reader made of
a line it could not use goes into the fork as if it were one. It holds nothing: what the fork
gets is an entry of a kind no program writes, and a line the next reader mistakes for damage.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from entries import path_to_leaf
from session import read_session

EXPECTED_FAIL = "holds a damaged entry"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    parent = read_session(path)  # only reads the parent
    header = {"type": "header", "version": 1, "id": session_id, "createdAt": created_at,
              "cwd": parent.header["cwd"], "parentSession": str(Path(path).resolve())}  # fmt: skip
    lines, previous = [orjson.dumps(header)], None
    for number, entry in enumerate(path_to_leaf(parent.by_id, parent.leaf_id).entries, 1):
        if entry["type"] == "branch":
            continue
        copy = {**entry, "id": f"e{number}", "parentId": previous}
        lines.append(orjson.dumps(copy))
        previous = copy["id"]
    target = Path(directory) / f"{session_id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, b"\n".join(lines) + b"\n")
    finally:
        os.close(fd)
    return target
