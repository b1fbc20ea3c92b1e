"""Right, another design: a summary is two lines. The first is JSON the model never reads (it
matches no form the model looks for): the newest questions and results, as data, which the
next summary reads back whole with json, never by guessing at prefixes. The second is the
newest result in the one form the model reads, `- NAME(EXPRESSION) -> RESULT`."""

from __future__ import annotations

import json
from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text
from model import MODELS

SUMMARY_LIMIT = 2_000  # characters: the check's bound
QUESTIONS = 3  # the newest questions a summary must hold
KEEP = 4  # of each, in the JSON line


def summarize(messages: Sequence[Message]) -> str:
    state: dict[str, list] = {"asked": [], "results": []}
    for message in messages:
        if (earlier := summary_in(message)) is not None:
            try:
                kept = json.loads(earlier.split("\n", 1)[0])
            except ValueError:
                kept = {}  # not one of mine: nothing of it can be read back
            for key in state:
                state[key] += kept.get(key, []) if isinstance(kept, dict) else []
        elif message["role"] == "user":
            state["asked"].append(shortened(" ".join(text_of(message).split()), 100))
        elif message["role"] == "toolResult" and not message["isError"]:
            expression = expression_of(messages, message["toolCallId"])
            result = shortened(" ".join(text_of(message).split()), 100)
            state["results"].append([message["toolName"], shortened(expression, 100), result])
    state = {key: values[-KEEP:] for key, values in state.items()}
    lines = [json.dumps(state, ensure_ascii=False)]
    if state["results"]:
        name, expression, result = state["results"][-1]
        lines.append(f"- {name}({expression}) -> {result}")
    return "\n".join(lines)


def expression_of(messages: Sequence[Message], call_id: str) -> str:
    for message in reversed(messages):
        for call in tool_calls(message):
            if call["id"] == call_id:
                return value_text(call["arguments"].get("expression", "?"))
    return "?"


def compact_command(chat: Chat, argument: str) -> CommandResult:
    model = MODELS[chat.model]
    model.summarize = summarize  # type: ignore[method-assign]
    try:
        return step_compact_command(chat, argument)
    finally:
        del model.summarize


COMMANDS["/compact"] = Command(
    "/compact", "replace all but the last turn with a summary (yours)", compact_command
)
