"""Wrong: copies a label (05.2) or a branch summary (05.3) like any kind it does not know,
fields and all, so it still names the PARENT's ids.

"Keep every field" is the rule for a kind the fork cannot read. But these two name an entry
by its id, and a fork renumbers: in the fork, the label "good" names another entry than in
the parent (`/branch good` goes to the wrong message), or an id the fork does not have ("no
entry e17"), or one the fork gives a new entry later.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf
from session import Session, read_session

SKIPPED_KEYS = ("type", "id", "parentId")
LEFT_OUT = ("branch",)

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
    for entry in path_to_leaf(parent.by_id, parent.leaf_id).entries:
        if entry["type"] in LEFT_OUT:
            continue
        fields = {key: value for key, value in entry.items() if key not in SKIPPED_KEYS}
        fork.append_entry(entry["type"], fields)
    return fork.path
