"""Exercise 04.1: a thinking level, recorded as an entry and restored on --continue.

A model that can reason before it answers takes a reasoning effort: off, low, medium or high.
Like the model, the level is a setting a session switches during its life, so the file must
record each switch where it happened, and `--continue` must bring back the level in force.
This step's `model_change` is the pattern; you add a third entry kind beside it:

    {"type": "thinking_level_change", "id": "e4", "parentId": "e3", "thinkingLevel": "high"}

Write three functions (the rest of this file is given):

1. `append_thinking_level_change(session, level)` writes that entry through the session's one
   write path, `session.append_entry(kind, fields)`: it picks the id, hangs the entry under
   the leaf, creates the file (header first) if needed and moves the leaf. Return the entry.
2. `thinking_command(chat, argument)`, the command `/thinking [LEVEL]`:
   - `/thinking` alone answers one line, `thinking level: LEVEL` (the level in force);
   - `/thinking LEVEL` with one of LEVELS other than the current one appends the entry, sets
     `chat.thinking` and answers `thinking level set to LEVEL`;
   - any other argument (`/thinking ultra`), or the level already in force, answers one line
     and writes nothing.
   A command never becomes a message: `chat.messages` and the cursor stay as they are.
3. `thinking_level_at(entries, leaf_id)`, the restore: the level of the LAST
   `thinking_level_change` on the path from the leaf (`entries.path_to_leaf`, as
   `build_context` does for the model), not the last one in the file: once the file has a
   branch, the two differ. No change on the path: DEFAULT_LEVEL. A file is data: if that
   last change's `thinkingLevel` is not one of LEVELS (a newer program's level, a hand edit,
   no field at all), use DEFAULT_LEVEL, as main.py does for a model it does not have.

The step folder is never edited by an exercise, so this file holds what main.py would use:
`ThinkingChat` (a `Chat` that also holds the level), `/thinking` in the step's own command
table (its run_command, as main.py calls it, dispatches the line) and `open_chat` (what
`--continue` would do). Check it with `python -m exercises check 04.1` or the notebook.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from commands import COMMANDS, Chat, Command, CommandResult
from entries import Entry, path_to_leaf  # noqa: F401  (you will need path_to_leaf)
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
    # TODO: one call to the session's one write path, with the kind and the field above.
    raise NotImplementedError("append_thinking_level_change is not written yet")


def thinking_command(chat: ThinkingChat, argument: str) -> CommandResult:
    """`/thinking` shows the level; `/thinking LEVEL` switches and records the switch."""
    # TODO: show, refuse (an unknown level, the current one), or append and set chat.thinking.
    raise NotImplementedError("thinking_command is not written yet")


def thinking_level_at(entries: Mapping[str, Entry], leaf_id: str | None) -> str:
    """The thinking level in force at `leaf_id`: the last change on the path from the leaf."""
    # TODO: walk path_to_leaf(entries, leaf_id).entries; remember each thinking_level_change.
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
