"""Wrong: persists at the start of each turn (what the previous turns made), not after it.

Every turn but the last is written before the next one starts, so the file looks right
between turns. But nothing comes after the last turn: its messages never reach the file.
"""

from __future__ import annotations

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session, persist_new_messages
from tools import default_tools

EXPECTED_FAIL = "the end came with 6 saved, expected 8"


def chat(session: Session, inputs: list[str]) -> tuple[list[Message], int]:
    """Run one turn per input, persisting after each; return the messages and the cursor."""
    model, tools = ScriptedModel(), default_tools()
    messages: list[Message] = []
    persisted = 0  # how many of `messages` are already in the file
    for text in inputs:
        # "save what we have before the next turn can go wrong"
        persisted = persist_new_messages(session, messages, persisted)
        for _event in run_turn(model, tools, messages, user_text(text)):
            pass
    return messages, persisted
