"""Exercise 02.2: the cursor that never moves.

Fill-in exercise, about 10 minutes.

`chat(session, inputs)` is main.py's loop without the terminal: one turn per input, then a save
of what is new. It runs without an error, and the file even looks plausible at a glance. But
three turns (`hello`, `what is 12*8`, `what was the result`) make 8 messages, and the file gets
far more entries than that. Run the check first: it says how many, and when.

What the check holds you to (it reads the file as each turn begins, and once more at the end):

- Every message is in the file once and only once, whatever the number of turns.
- Each turn's messages are in the file before the next turn begins: a crash in turn 3 must
  not cost turns 1 and 2.
- `chat` returns the messages and the cursor: after the last turn, the messages in the file.

session.py is not changed: the bug is the caller's, and so is the fix.
Check it with `python -m exercises check 02.2` or the notebook; stuck: `make hint ID=02.2`.
"""

from __future__ import annotations

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session, persist_new_messages
from tools import default_tools


def chat(session: Session, inputs: list[str]) -> tuple[list[Message], int]:
    """Run one turn per input, persisting after each; return the messages and the cursor."""
    model, tools = ScriptedModel(), default_tools()
    messages: list[Message] = []
    persisted = 0  # how many of `messages` are already in the file
    for text in inputs:
        for _event in run_turn(model, tools, messages, user_text(text)):
            pass
        # The returned cursor is the whole point: without it, every turn rewrites history.
        persisted = persist_new_messages(session, messages, persisted)
    return messages, persisted
