"""Exercise 03.2: --resume, a list of sessions to choose from.

`--continue` always takes the latest session. `--resume` lists them and lets you pick one:

      1  what was the result                        8 messages   20260102T090000Z-bb.jsonl
      2  hello                                      2 messages   20260101T120000Z-aa.jsonl
    which session? 2

Write two functions; `resume` below already uses them.

1. `list_sessions(directory)`: one `SessionRow` per usable session, in the order of
   `list_session_files` (most recently modified first). A row describes what resuming that
   session restores: the conversation `Session.open` rebuilds, the path from the leaf. That
   is not the file's lines: a file can also hold a torn line, entries of a kind this step
   does not know, and branches the conversation left behind.
   - `messages`: how many messages resuming it restores;
   - `title`: `preview(...)` of the first user message of that conversation, or
     "(no user message)" when it has none;
   - `modified`: the file's st_mtime.
   A file that cannot be a session (`UnusableSessionFile`) is left out; a damaged but
   usable one is listed. Listing only reads: no byte of any file changes.
2. `choose(rows, answer)`: the path of row number `answer`, what the user typed: a number
   from 1 to len(rows), spaces around allowed. Anything else (0, -1, a number past the end,
   a word, 1.5, nothing) raises ValueError with a short reason.

Check it with `python -m exercises check 03.2` or the notebook; stuck: `make hint ID=03.2`.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from messages import Message, preview  # noqa: F401  (you will need preview)
from session import (  # noqa: F401  (you will need these)
    Session,
    UnusableSessionFile,
    list_session_files,
)


class SessionRow(NamedTuple):
    path: Path
    title: str  # preview of the first user message of the conversation resuming restores
    messages: int  # how many messages resuming it restores
    modified: float  # st_mtime, seconds


def list_sessions(directory: Path | str) -> list[SessionRow]:
    """Every usable session in `directory`, newest first."""
    rows: list[SessionRow] = []
    for _path in list_session_files(directory):  # already newest first
        # TODO: rebuild the conversation resuming this file restores (leave the file out on
        # UnusableSessionFile) and append a SessionRow: the preview of its first user
        # message, how many messages it holds, the file's st_mtime.
        pass
    return rows


def choose(rows: list[SessionRow], answer: str) -> Path:
    """The path of the row the user picked by number; ValueError for anything else."""
    # TODO: "2" picks rows[1]. Refuse what is not a number, 0, and numbers past the end.
    raise NotImplementedError("TODO: turn the answer into one of the rows' paths")


def format_rows(rows: list[SessionRow]) -> str:
    """The table `--resume` prints (given)."""
    return "\n".join(
        f"{number:>3}  {row.title:<40} {row.messages:>3} messages   {row.path.name}"
        for number, row in enumerate(rows, start=1)
    )


def resume(directory: Path | str, answer: str) -> tuple[Session, list[Message]]:
    """What `main.py --resume` would do once the user has answered (given)."""
    resumed = Session.open(choose(list_sessions(directory), answer))
    return resumed.session, resumed.context.messages
