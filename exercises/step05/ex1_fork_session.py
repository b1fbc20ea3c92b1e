"""Exercise 05.1: fork the conversation into a session file of its own.

Fill-in exercise, about 25 minutes.

`/branch` forks inside one file: the old branch stays, the leaf moves. Sometimes you want the
conversation you have now in a file of its own: to try something risky in another terminal, to
hand it to someone, to start clean of the dead ends. That is a fork: a NEW session file that
holds the conversation at the parent's leaf and nothing else, and whose header says where it
came from:

    {"type":"header","version":1,"id":"fork-1","createdAt":"2026-01-02T09:00:00.000Z",
     "cwd":"/home/ada/project","parentSession":"/home/ada/project/.sessions/parent.jsonl"}

Write `fork_session(path, directory, *, session_id, created_at)`, which makes the fork of the
session at `path` and returns the fork's path, `directory/<session_id>.jsonl`.

What the check holds you to (parents made of turns, moves, model switches, labels, summaries,
a newer kind and damaged lines, forked by you and by the solution, must give the same fork):

- The header: the given id and time, the parent's `cwd`, and `parentSession`, the parent
  file's absolute path (a relative `path` too: the fork may be opened from another folder
  than the one it was made in).
- The entries: a copy of each entry on the path from the parent's leaf, in order, and of no
  other (abandoned branches stay in the parent), each under the copy before it, numbered by
  the fork, with every field of its original but `type`, `id` and `parentId` (a model switch
  keeps its model; a kind this step does not know keeps what it holds). No `branch` entry is
  copied: it records a move inside the parent's tree, which the fork does not have.
- An id a copy names is the fork's: a `label`'s `targetId` (05.2) and a `branch_summary`'s
  `fromId` (05.3) name the copy of that entry, or for a `branch` entry left out, the copy
  before it on the path; None when the fork has no copy (an entry on a branch the parent
  left). A value that is no string names no entry: it is kept as it is. (A fork renumbers
  what it copies, so an id copied as it was would name another entry of the fork, or none:
  `/branch good` in the fork must go where it went in the parent, and a label of an
  abandoned entry must name nothing, never the entry the fork later gives that id.)
- The fork is as private as its parent: the file 0600 and a folder it makes 0700, whatever
  the umask (022 in the check). Reopened with `Session.open`, it resumes the parent's
  conversation and model.
- The parent is only read: not one byte of it changes, and a read-only parent forks (it may
  be another run's session, still being written).
- Refused, raising and creating nothing, leaving every file as it was: a `session_id` whose
  file exists; a parent that is no session; a parent with no conversation (a header and a
  torn first line, as a crash at the very first save leaves it): `SessionError` for that one.

Check it with `python -m exercises check 05.1` or the notebook.
"""

from __future__ import annotations

from pathlib import Path

from entries import path_to_leaf  # noqa: F401
from session import Session, SessionError, read_session  # noqa: F401


def fork_session(
    path: Path | str, directory: Path | str, *, session_id: str, created_at: str
) -> Path:
    """Copy the conversation at `path`'s leaf into a new session; return the new file's path."""
    # TODO: the fork, and its path.
    raise NotImplementedError("fork_session is not written yet")
