"""Exercise 04.1: a thinking level, recorded as an entry and restored on --continue.

Fill-in exercise, about 20 minutes.

A model that can reason before it answers takes a reasoning effort: off, low, medium or high.
Like the model, the level is a setting a session switches during its life, so the file must
record each switch where it happened, and `--continue` must bring back the level in force.
This step's `model_change` is the pattern; you add a kind beside it:

    {"type": "thinking_level_change", "id": "e4", "parentId": "e3", "thinkingLevel": "high"}

Write `append_thinking_level_change(session, level)` (the entry; it returns it),
`thinking_command(chat, argument)` (the command `/thinking [LEVEL]`) and
`thinking_level_at(entries, leaf_id)` (the level in force at a leaf).

What the check holds you to (scripts of turns and commands, played through the step's own
dispatcher on your code and the solution's; the restore on generated trees of entries, and in
a new process that knows only the file):

- After every line of a script, the same file, chat and answers as the solution's. Only a
  switch writes: one entry, under the leaf, which becomes the leaf, like every entry the
  session writes. A command never becomes a message: the messages and the cursor stay.
- `/thinking` alone answers one line, `thinking level: LEVEL`, the level in force. A switch
  to one of LEVELS other than the one in force records it, puts it in `chat.thinking` and
  answers `thinking level set to LEVEL`. Anything else (`/thinking ultra`, two words, the
  level already in force) answers one line of your own and writes nothing.
- The level in force at a leaf is the one the last `thinking_level_change` on the
  conversation's path to that leaf switched to; DEFAULT_LEVEL with none. Once the file has a
  branch, the last such entry in the file may not be on the path. A file is data: a level
  this program does not know (a newer program's, a hand edit, none at all) falls back to
  DEFAULT_LEVEL, as main.py falls back for a model it does not have.

The step folder is never edited by an exercise, so this file holds what main.py would use:
`ThinkingChat`, `/thinking` in the step's own command table, and `open_chat` (what
`--continue` would do). Check it with `python -m exercises check 04.1` or the notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf  # noqa: F401
from model import DEFAULT_MODEL, MODELS
from session import Session

LEVELS = ("off", "low", "medium", "high")  # the reasoning efforts, least first
DEFAULT_LEVEL = "off"  # in force until a session switches


@dataclass
class ThinkingChat(Chat):
    """A run of the program that also holds the thinking level the next turn runs with."""

    thinking: str = DEFAULT_LEVEL


def append_thinking_level_change(session: Session, level: str) -> Entry:
    """Record a switch to `level` as a child of the leaf, then advance the leaf."""
    # TODO: the entry that records the switch.
    raise NotImplementedError("append_thinking_level_change is not written yet")


def thinking_command(chat: ThinkingChat, argument: str) -> CommandResult:
    """`/thinking` shows the level; `/thinking LEVEL` switches and records the switch."""
    # TODO: show the level, or switch it.
    raise NotImplementedError("thinking_command is not written yet")


def thinking_level_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The thinking level in force at `leaf_id`: the last change on the path from the leaf."""
    # TODO: the level in force at the leaf.
    raise NotImplementedError("thinking_level_at is not written yet")


# --- Given: what main.py would do with them --------------------------------------------------

# The command goes into the step's own table, so the step's run_command (the one main.py
# calls) dispatches `/thinking` like any other command.
COMMANDS["/thinking"] = Command(
    "/thinking [LEVEL]", f"show the level, or set it ({', '.join(LEVELS)})", thinking_command
)


def open_chat(path: Path | str) -> ThinkingChat:
    """What `--continue` would do with this session: the messages, the model and the level
    in force at the leaf, all read from the file (a fresh process knows nothing else)."""
    resumed = Session.open(path)
    messages = resumed.context.messages
    model = resumed.context.model
    return ThinkingChat(
        resumed.session,
        messages,
        cursor=len(messages),
        model=model if model in MODELS else DEFAULT_MODEL,
        thinking=thinking_level_at(resumed.session.entries, resumed.session.leaf_id),
    )
