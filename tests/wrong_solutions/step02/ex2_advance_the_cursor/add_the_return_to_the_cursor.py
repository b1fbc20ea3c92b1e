"""Wrong: adds what persist_new_messages returns to the cursor, as if it were a count.

persist_new_messages returns the new cursor (how many messages of the list are in the file),
not how many it wrote. After turn 2 the sum overshoots (2 + 6 = 8 for a list of 6), so turn
3's persist starts past its messages and writes nothing: the last turn never reaches the file.
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
        for _event in run_turn(model, tools, messages, user_text(text)):
            pass
        persisted += persist_new_messages(session, messages, persisted)  # "count what is saved"
    return messages, persisted
