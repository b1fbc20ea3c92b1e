# >>file 02
"""The agent loop: one user turn, as many model calls and tool runs as it takes.

It appends to the in-memory message list and reports what happens as events. It knows nothing
of sessions, files or the terminal: whoever runs it decides what to print and what to save.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from messages import Message, ToolCallBlock, ToolResultMessage, UserMessage, tool_calls, tool_result

# >> prod
from messages import shortened

# << prod
from model import Done, Model, TextDelta, ToolCallEvent
from tools import Tool, ToolError

MAX_ROUNDS = 10  # model calls per user turn; a model that never stops calling tools is a bug
# >> prod
SHOWN_NAME = 80  # at most this much of an unknown tool's name goes into its result
# << prod


@dataclass(frozen=True)
class TurnStart:
    prompt: UserMessage


@dataclass(frozen=True)
class ToolResultEvent:
    result: ToolResultMessage


@dataclass(frozen=True)
class MessageEnd:
    """A message is finished and has just been appended to the list."""

    message: Message


@dataclass(frozen=True)
class TurnEnd:
    added: int  # messages this turn appended
    total: int  # messages in the list now


LoopEvent = TurnStart | TextDelta | ToolCallEvent | ToolResultEvent | MessageEnd | TurnEnd


class TooManyRounds(Exception):
    """The model kept asking for tools; the loop gives up instead of spinning forever."""


def run_turn(
    model: Model, tools: Mapping[str, Tool], messages: list[Message], prompt: UserMessage
) -> Iterator[LoopEvent]:
    """Run one user turn: append `prompt`, then call the model and run its tools until it stops.
    Everything is appended to `messages` in order; nothing happens until the caller iterates."""
    start = len(messages)
    messages.append(prompt)
    yield TurnStart(prompt)
    yield MessageEnd(prompt)

    for _ in range(MAX_ROUNDS):
        reply = None
        for event in model.stream(messages, list(tools.values())):
            if isinstance(event, Done):
                reply = event.message
            else:
                yield event  # text deltas and tool calls pass straight through
        if reply is None:
            raise RuntimeError(f"model {model.name} ended its stream without a Done event")
        messages.append(reply)
        yield MessageEnd(reply)

        calls = tool_calls(reply)
        # Stop here: the only way out of the loop is a reply that asks for no tool.
        if reply["stopReason"] != "toolUse" or not calls:
            yield TurnEnd(added=len(messages) - start, total=len(messages))
            return

        for call in calls:
            result = execute(tools, call)
            messages.append(result)  # the result goes into the list: the model reads it next
            yield ToolResultEvent(result)
            yield MessageEnd(result)

    raise TooManyRounds(f"no final answer after {MAX_ROUNDS} model calls")


def execute(tools: Mapping[str, Tool], call: ToolCallBlock) -> ToolResultMessage:
    """Run one tool call. A failure is an answer for the model (isError), never a crash."""
    tool = tools.get(call["name"])
    if tool is None:
        # >> 02 until prod
        # return tool_result(call, f"unknown tool: {call['name']}", is_error=True)
        # << 02 until prod
        # >> prod
        # The name is the model's, of any length. Quoted whole, it would be in this result's
        # line twice (toolName, and the text): a 3 Mi-character name, within the reply's
        # bound, made a line over the session line's, and the run ended.
        name = shortened(call["name"], SHOWN_NAME)
        return tool_result(call, f"unknown tool: {name}", is_error=True)
        # << prod
    try:
        output = tool.run(call["arguments"])
        if not isinstance(output, str):  # a message holds text, and so does the file
            raise TypeError(f"returned {type(output).__name__}, not text")
    except ToolError as error:
        return tool_result(call, str(error), is_error=True)
    except Exception as error:
        # Stop here: a tool is code meeting made-up input, and it can have a bug the input
        # finds. Raised out of the loop, that bug would end the turn before it is saved: the
        # user's message and the tool call would be lost. Told as an error, the model answers
        # and the turn is saved like any other. (Ctrl-C is not an Exception: it still stops.)
        failure = f"{call['name']} failed: {type(error).__name__}: {error}"
        return tool_result(call, failure, is_error=True)
    return tool_result(call, output)
