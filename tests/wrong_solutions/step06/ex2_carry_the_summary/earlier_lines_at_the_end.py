"""Wrong: the new lines first, then the earlier summary's, kept apart and added at the end.

Nothing is lost while the summary is short. But the lines are no longer in the order things
happened: the scripted model recalls the NEWEST result, the last such line, and now that is
an old one; and once the bound cuts, it cuts the newest lines, not the oldest.
"""

from __future__ import annotations

from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text  # noqa: F401
from model import MODELS, SUMMARY_LINES, SUMMARY_WIDTH

EXPECTED_FAIL = "line 1 is '- asked: what is 12*8', expected '- asked: hello'"


def summarize(messages: Sequence[Message]) -> str:
    """A summary that can stand in for `messages`: one line per question and result."""
    carried: list[str] = []
    lines: list[str] = []
    for message in messages:
        text = " ".join(text_of(message).split())
        if (earlier := summary_in(message)) is not None:
            carried += earlier.splitlines()  # kept for the end
        elif message["role"] == "user":
            lines.append(f"- asked: {shortened(text, SUMMARY_WIDTH)}")
        elif message["role"] == "toolResult" and not message["isError"]:
            expression = expression_of(messages, message["toolCallId"])
            line = f"- {message['toolName']}({expression}) -> {text}"
            lines.append(shortened(" ".join(line.split()), SUMMARY_WIDTH))  # one line
    return "\n".join([*lines, *carried][-SUMMARY_LINES:])


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
