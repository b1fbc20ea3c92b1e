"""Wrong: the result's line is written as it is, its expression as the call holds it.

The question's text is made one line, so the result's looks done too. But the expression
comes from the tool call, and a user who typed "what is (2+", a line break and "3)" made a
call whose expression holds that line break: the summary gets a line "- calc((2+", and a
line "3) -> 5" of no form the model reads back, and "what was the result" misses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text
from model import MODELS, SUMMARY_LINES, SUMMARY_WIDTH

EXPECTED_FAIL = "line 2 is '- calc((2+', expected '- calc((2+ 3)) -> 5'"


def summarize(messages: Sequence[Message]) -> str:
    """A summary that can stand in for `messages`: one line per question and result."""
    lines: list[str] = []
    for message in messages:
        text = " ".join(text_of(message).split())  # one line, whatever the message held
        if (earlier := summary_in(message)) is not None:
            lines += earlier.splitlines()  # what the earlier compaction held, in its place
        elif message["role"] == "user":
            lines.append(f"- asked: {shortened(text, SUMMARY_WIDTH)}")
        elif message["role"] == "toolResult" and not message["isError"]:
            expression = expression_of(messages, message["toolCallId"])
            line = f"- {message['toolName']}({expression}) -> {text}"
            lines.append(shortened(line, SUMMARY_WIDTH))
    return "\n".join(lines[-SUMMARY_LINES:])


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
