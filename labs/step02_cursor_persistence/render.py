"""Print the loop's events for a person at a terminal, each piece flushed as it streams in: a
pipe (or a notebook reading one) sees each line the moment it is complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from loop import LoopEvent, MessageEnd, ToolResultEvent, TurnEnd
from messages import text_of, value_text
from model import TextDelta, ToolCallEvent

ASSISTANT = "assistant> "


def render(events: Iterable[LoopEvent], out: TextIO) -> None:
    """Consume the events of one turn and write them to `out`."""
    in_text = False
    for event in events:
        if isinstance(event, TextDelta):
            if not in_text:
                out.write(ASSISTANT)
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
            return f"[tool call] {call['name']} {value_text(call['arguments'])}"
        case ToolResultEvent(result):
            label = "tool error" if result["isError"] else "tool result"
            return f"[{label}] {result['toolName']} -> {text_of(result)}"
        case TurnEnd(added, total):
            return f"[turn end] {counted(added, 'new message')} in memory ({total} in all)"
        case MessageEnd():
            return None
    return None


def counted(number: int, noun: str) -> str:
    """A count as a person writes it: "1 message", "2 messages", "12,495 messages"."""
    return f"{number} {noun}" if number == 1 else f"{number:,} {noun}s"
