"""Wrong: the fork is the parent's file with a new header: every entry, abandoned branches too.

Reopened, it even resumes the right conversation: the last line is still the leaf, and the
walk from it skips the dead ends. But the fork was to hold the conversation and nothing else;
this one carries every abandoned branch along (and `/tree` shows them all).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from session import read_session

EXPECTED_FAIL = "the branched parent: copy 4 has message 'what is 12*8', expected 'hi'"


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    reading = read_session(path)  # refuses a file that is no session
    header = {
        **reading.header,
        "id": session_id,
        "createdAt": created_at,
        "parentSession": str(Path(path).resolve()),
    }
    lines = Path(path).read_bytes().splitlines(keepends=True)[1:]  # every entry, as written
    target = Path(directory) / f"{session_id}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as file:  # "x": never overwrite a session
        file.write(orjson.dumps(header) + b"\n" + b"".join(lines))
    return target
