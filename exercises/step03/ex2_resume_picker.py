"""Exercise 03.2: --resume, a list of sessions to choose from.

Fill-in exercise, about 25 minutes.

`--continue` always takes the latest session. `--resume` lists them and lets you pick one:

      1  what was the result                        8 messages   20260102T090000Z-bb.jsonl
      2  hello                                      2 messages   20260101T120000Z-aa.jsonl
    which session? 2

Write `list_sessions(directory)`, the rows, and `choose(rows, answer)`, the pick; `resume`
below already uses them.

What the check holds you to (folders of sessions, listed by you and by the solution):

- One `SessionRow` per usable session, in the order `--continue` uses (`list_session_files`).
  A file that cannot be a session (`UnusableSessionFile`) is left out; a damaged but usable
  one is listed.
- A row describes what resuming that session restores: the conversation `Session.open`
  rebuilds, not the file's lines. `messages` is how many messages that conversation holds;
  `title` is `preview(...)` of its first user message, or "(no user message)"; `modified` is
  the file's st_mtime. The check's files hold what lines and conversation disagree on: a
  torn line, a kind this step does not know, a branch the conversation left behind.
- Listing only reads: no byte of any file changes.
- `choose` returns the path of row number `answer`, what the user typed: a number from 1 to
  len(rows), spaces around it allowed (`01` is 1). Anything else (0, -1, a number past the
  end, a word, 1.5, nothing) raises ValueError with a short reason.

Check it with `python -m exercises check 03.2` or the notebook; stuck: `make hint ID=03.2`.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from messages import Message, preview  # noqa: F401
from session import Session, UnusableSessionFile, list_session_files  # noqa: F401


class SessionRow(NamedTuple):
    path: Path
    title: str  # preview of the first user message of the conversation resuming restores
    messages: int  # how many messages resuming it restores
    modified: float  # st_mtime, seconds


def list_sessions(directory: Path | str) -> list[SessionRow]:
    """Every usable session in `directory`, newest first."""
    # TODO: a row per usable session, telling what resuming it restores.
    raise NotImplementedError("list_sessions is not written yet")


def choose(rows: list[SessionRow], answer: str) -> Path:
    """The path of the row the user picked by number; ValueError for anything else."""
    # TODO: the row the user meant, or a refusal.
    raise NotImplementedError("choose is not written yet")


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
