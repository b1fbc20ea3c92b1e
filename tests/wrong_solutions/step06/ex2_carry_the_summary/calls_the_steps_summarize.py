"""Wrong: calls the step's own summariser, which carries an earlier summary over already.

It writes the right lines, because it is the answer. But the exercise is to write it: the
check fails a summarize that calls ScriptedModel.summarize, as its starter says.
"""

from __future__ import annotations

from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text  # noqa: F401
from model import MODELS

EXPECTED_FAIL = (
    "write summarize yourself; after … 12*8, /compact: it called ScriptedModel.summarize"
)


def summarize(messages: Sequence[Message]) -> str:
    """A summary that can stand in for `messages`: one line per question and result."""
    from model import ScriptedModel

    return ScriptedModel().summarize(messages)


# --- Given: the expression a result answers, and /compact with your summarize -------------


def expression_of(messages: Sequence[Message], call_id: str) -> str:
    """The expression of the tool call `call_id` names, as a summary line shows it."""
    for message in reversed(messages):
        for call in tool_calls(message):
            if call["id"] == call_id:
                return value_text(call["arguments"].get("expression", "?"))
    return "?"


def compact_command(chat: Chat, argument: str) -> CommandResult:
    """`/compact`, the step's own, with `summarize` above as the model's summariser."""
    model = MODELS[chat.model]
    model.summarize = summarize  # type: ignore[method-assign]  (this object's, for one call)
    try:
        return step_compact_command(chat, argument)
    finally:
        del model.summarize  # the step's own again


COMMANDS["/compact"] = Command(
    "/compact", "replace all but the last turn with a summary (yours)", compact_command
)
