"""Print the loop's events for a person at a terminal.

Text is written as it streams in and flushed at once, so a pipe (or a notebook reading one)
sees each line the moment it is complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

import orjson

from loop import LoopEvent, MessageEnd, ToolResultEvent, TurnEnd
from messages import text_of
from model import TextDelta, ToolCallEvent


def render(events: Iterable[LoopEvent], out: TextIO) -> None:
    """Consume the events of one turn and write them to `out`."""
    in_text = False
    for event in events:
        if isinstance(event, TextDelta):
            if not in_text:
                out.write("assistant> ")
                in_text = True
            out.write(event.text)
            out.flush()
            continue
        if in_text:  # any other event ends the assistant's text line
            out.write("\n")
            in_text = False
        line = describe(event)
        if line is not None:
            out.write(line + "\n")
        out.flush()


def describe(event: LoopEvent) -> str | None:
    """The line printed for a non-text event, or None for events that print nothing."""
    match event:
        case ToolCallEvent(call):
            arguments = orjson.dumps(call["arguments"]).decode()
            return f"[tool call] {call['name']} {arguments}"
        case ToolResultEvent(result):
            label = "tool error" if result["isError"] else "tool result"
            return f"[{label}] {result['toolName']} -> {text_of(result)}"
        case TurnEnd(added, total):
            return f"[turn end] {added} new messages in memory ({total} in all)"
        case MessageEnd():
            return None
    return None
