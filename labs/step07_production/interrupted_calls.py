"""A tool call the run never finished, answered in the file: the words its result says, and the
one function that writes it (on resume, and when Ctrl-C abandons a turn).

A model API refuses a history in which a tool call has no result, and a kill or Ctrl-C during
a tool call leaves exactly that at the end of the conversation. Step 03 answered such a call
in memory, on every resume; here it is answered once, by a line appended to the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from messages import tool_result, unanswered_calls

if TYPE_CHECKING:
    from commands import Chat

# The result given on resume to a tool call the program never finished. Its exact words are
# part of the file's format (docs/session-format.md): a later reader may look for them.
INTERRUPTED = (
    "interrupted: the program stopped before this tool call finished; it was not run again"
)
# The result a tool call gets when Ctrl-C abandons the turn it runs in (turn.abandon_turn).
CANCELLED = "interrupted: the user pressed Ctrl-C before this tool call finished"


def repair_interrupted_calls(chat: Chat, why: str = INTERRUPTED) -> int:
    """Answer each tool call the conversation ends on without a result (the program
    stopped while it ran, or Ctrl-C stopped it) with an error result saying so; return
    how many.

    Stop here: the results are appended, like any message, through the cursor: no byte is
    rewritten. The tool is not run again (it may have half-done something that must not
    be done twice); the model reads that it was interrupted and can decide to retry.
    """
    calls = unanswered_calls(chat.messages)
    chat.messages.extend(tool_result(call, why, is_error=True) for call in calls)
    chat.save_new()
    return len(calls)
