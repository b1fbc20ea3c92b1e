"""Wrong: keeps the new cursor in a second variable, and returns the one that never moved.

The file is right after every turn. But chat returns `persisted`, still 0: a caller that
resumes from that cursor (the next persist, or a restart) writes the whole history again.
"""

from __future__ import annotations

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session, persist_new_messages
from tools import default_tools

EXPECTED_FAIL = "the cursor is 0, expected 8"


def chat(session: Session, inputs: list[str]) -> tuple[list[Message], int]:
    """Run one turn per input, persisting after each; return the messages and the cursor."""
    model, tools = ScriptedModel(), default_tools()
    messages: list[Message] = []
    persisted = 0  # how many of `messages` are already in the file
    cursor = persisted
    for text in inputs:
        for _event in run_turn(model, tools, messages, user_text(text)):
            pass
        cursor = persist_new_messages(session, messages, cursor)
    return messages, persisted
