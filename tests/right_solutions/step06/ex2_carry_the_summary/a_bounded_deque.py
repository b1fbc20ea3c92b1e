"""Right: the lines go into a deque bounded to SUMMARY_LINES, and an earlier summary is told by
its heading, as summary_message writes it.

The deque drops the oldest line as each new one comes: the newest SUMMARY_LINES are what is
left. Reading the heading by hand instead of summary_in is the same test.
"""

from __future__ import annotations

from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text  # noqa: F401
from model import MODELS, SUMMARY_LINES, SUMMARY_WIDTH


def summarize(messages: Sequence[Message]) -> str:
    """A summary that can stand in for `messages`: one line per question and result."""
    from collections import deque

    from messages import SUMMARY_HEADING

    lines: deque[str] = deque(maxlen=SUMMARY_LINES)
    for message in messages:
        full = text_of(message)
        text = " ".join(full.split())
        if message["role"] == "user" and full.startswith(SUMMARY_HEADING + "\n"):
            lines.extend(full.removeprefix(SUMMARY_HEADING + "\n").splitlines())
        elif message["role"] == "user":
            lines.append("- asked: " + shortened(text, SUMMARY_WIDTH))
        elif message["role"] == "toolResult" and not message["isError"]:
            call = expression_of(messages, message["toolCallId"])
            line = " ".join(f"- {message['toolName']}({call}) -> {text}".split())
            lines.append(shortened(line, SUMMARY_WIDTH))
    return "\n".join(lines)


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
