"""Wrong: persists once, after the last turn, instead of after every turn.

The file ends up right (8 messages, each once) and the cursor is right, so a check that only
looks at the end is fooled. But while the chat runs, nothing is on disk: a crash in turn 3
loses turns 1 and 2 as well, which is the one thing persisting per turn promises not to do.
"""

from __future__ import annotations

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session, persist_new_messages
from tools import default_tools

EXPECTED_FAIL = "turn 2 began with 0 saved, expected 2"


def chat(session: Session, inputs: list[str]) -> tuple[list[Message], int]:
    """Run one turn per input, persisting after each; return the messages and the cursor."""
    model, tools = ScriptedModel(), default_tools()
    messages: list[Message] = []
    persisted = 0  # how many of `messages` are already in the file
    for text in inputs:
        for _event in run_turn(model, tools, messages, user_text(text)):
            pass
    # "one write at the end: no duplicates possible"
    persisted = persist_new_messages(session, messages, persisted)
    return messages, persisted
