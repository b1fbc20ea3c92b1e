"""Right: appends what is new itself, and moves the cursor to the length of the list.

persist_new_messages returns len(messages); a chat that writes messages[persisted:] with
session.append_message and then sets the cursor to len(messages) writes the same lines at
the same moments.
"""

from __future__ import annotations

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session
from tools import default_tools


def chat(session: Session, inputs: list[str]) -> tuple[list[Message], int]:
    """Run one turn per input, persisting after each; return the messages and the cursor."""
    model, tools = ScriptedModel(), default_tools()
    messages: list[Message] = []
    persisted = 0  # how many of `messages` are already in the file
    for text in inputs:
        for _event in run_turn(model, tools, messages, user_text(text)):
            pass
        for message in messages[persisted:]:
            session.append_message(message)
        persisted = len(messages)
    return messages, persisted
