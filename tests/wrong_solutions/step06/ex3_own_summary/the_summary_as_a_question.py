"""Wrong: an earlier summary is a user message, so it is summarised as one more question: one
`? Summary of the conversation…` line, cut, in place of all it held: its result lines are
no longer lines the model can read."""

from __future__ import annotations

import re
from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, text_of, tool_calls, value_text
from model import MODELS

SUMMARY_LIMIT = 2_000  # characters: the check's bound
QUESTIONS = 3  # the newest questions a summary must hold
ASKED = "? "  # a question's line starts so; a result's line is the model's form
RESULT_LINE = re.compile(r"- \w+\(.*\) -> .*")  # the form the scripted model reads
KEPT_QUESTIONS, KEPT_RESULTS = 6, 5  # the newest of each; older ones go first
WIDTH = 120  # characters of a line, at most

EXPECTED_FAIL = "the newest result is recalled"


def summarize(messages: Sequence[Message]) -> str:
    """A summary of your own that can stand in for `messages`, an earlier one's among them."""
    asked: list[str] = []
    results: list[str] = []
    for message in messages:
        if message["role"] == "user":
            asked.append(shortened(ASKED + " ".join(text_of(message).split()), WIDTH))
        elif message["role"] == "toolResult" and not message["isError"]:
            expression = expression_of(messages, message["toolCallId"])
            line = f"- {message['toolName']}({expression}) -> {text_of(message)}"
            results.append(shortened(" ".join(line.split()), WIDTH))
    # Two sections, each bounded on its own: the questions, then the results, the newest
    # result last, where the model looks for it.
    return "\n".join(asked[-KEPT_QUESTIONS:] + results[-KEPT_RESULTS:])


# --- Given: the expression a result answers, and /compact with your summarize -------------


def expression_of(messages: Sequence[Message], call_id: str) -> str:
    """The expression of the tool call `call_id` names, as text."""
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
