"""Right: the fork keeps the parent's ids (e9 in the fork is e9 in the parent), written by hand.

Each copy keeps its id; an entry that hung under a left-out branch entry is hung under the
copy before it instead, so the fork is still a straight line. The file is created with
O_EXCL, so an existing session is never overwritten, private (0600, its new folder 0700, as
the step makes its own), and the parent is named with
os.path.abspath. A label or a summary names the same id as in the parent, but for an entry
left out: there the id where the conversation stood, and None for one the fork lacks. A check
that insisted on new ids e1, e2, ..., or on Session.create, or on Path.resolve, would fail it.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from entries import path_to_leaf
from session import read_session
from session_file import SessionError  # the class session re-exports


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    reading = read_session(path)  # refuses what is no session; never writes
    leaf = reading.leaf_id  # the last usable entry
    if leaf is None:  # a header-only fork would be a session with nothing in it
        raise SessionError(f"{path}: no entry to fork")
    header = {
        "type": "header",
        "version": 1,
        "id": session_id,
        "createdAt": created_at,
        "cwd": reading.header["cwd"],
        "parentSession": os.path.abspath(path),
    }
    lines = [orjson.dumps(header)]
    previous = None
    stood: dict[str, str | None] = {}  # a path id -> the kept id where the conversation is there
    for entry in path_to_leaf(reading.by_id, leaf).entries:
        stood[entry["id"]] = entry["id"]
        if entry["type"] == "branch":
            stood[entry["id"]] = previous  # not kept: its id names nothing in the fork
            continue
        copy = {**entry, "parentId": previous}
        if entry["type"] == "label" and isinstance(entry.get("targetId"), str):
            copy["targetId"] = stood.get(entry["targetId"])  # None: not in the fork
        if entry["type"] == "branch_summary" and isinstance(entry.get("fromId"), str):
            copy["fromId"] = stood.get(entry["fromId"])
        lines.append(orjson.dumps(copy))
        previous = entry["id"]
    target = Path(directory) / f"{session_id}.jsonl"
    target.parent.mkdir(0o700, parents=True, exist_ok=True)  # the umask only takes away
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # never overwrite
    try:
        os.write(fd, b"\n".join(lines) + b"\n")
    finally:
        os.close(fd)
    return target
