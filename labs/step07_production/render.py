"""Print the loop's events for a person at a terminal, each piece flushed as it streams in: a
pipe (or a notebook reading one) sees each line the moment it is complete.
Everything written goes through `printable`: the text comes from a model, a tool or a file,
and a terminal must only ever display it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from loop import LoopEvent, MessageEnd, ToolResultEvent, TurnEnd
from messages import text_of, value_text
from model import TextDelta, ToolCallEvent
from terminal_text import printable

ASSISTANT = "assistant> "
# Stop here: a multi-line answer keeps its line breaks (a list, a table, a poem should read as
# one), but every line after the first starts with this indent. The program's own lines
# (`you>`, `[tool result]`, `error:`...) always start at the left margin, so a model or a file
# can write "\nerror: disk full" and still only produce an indented line inside its answer.
# Every other line-moving character (\r, \x85, U+2028...) is escaped by `printable`.
CONTINUATION = " " * len(ASSISTANT)


def render(events: Iterable[LoopEvent], out: TextIO) -> None:
    """Consume the events of one turn and write them to `out`."""
    in_text = False
    line_breaks = 0  # newlines of the answer not written yet: trailing ones are dropped
    for event in events:
        if isinstance(event, TextDelta):
            if not in_text:
                out.write(ASSISTANT)
                in_text = True
            for index, piece in enumerate(event.text.split("\n")):
                if index > 0:
                    line_breaks += 1
                if piece:
                    if line_breaks:
                        out.write("\n" * line_breaks + CONTINUATION)
                        line_breaks = 0
                    out.write(printable(piece))
            out.flush()
            continue
        if in_text:  # any other event ends the assistant's text line
            out.write("\n")
            in_text, line_breaks = False, 0
        line = describe(event)
        if line is not None:
            out.write(line + "\n")
        out.flush()


def describe(event: LoopEvent) -> str | None:
    """The line printed for a non-text event (one line, printable), or None for events that
    print nothing."""
    match event:
        case ToolCallEvent(call):
            return printable(f"[tool call] {call['name']} {value_text(call['arguments'])}")
        case ToolResultEvent(result):
            label = "tool error" if result["isError"] else "tool result"
            return printable(f"[{label}] {result['toolName']} -> {text_of(result)}")
        case TurnEnd(added, total):
            # Not "in memory": turn.py saved each of them as it finished (saving_each_message).
            return f"[turn end] {counted(added, 'new message')} ({total} in all)"
        case MessageEnd():
            return None
    return None


def counted(number: int, noun: str) -> str:
    """A count as a person writes it: "1 message", "2 messages", "12,495 messages"."""
    return f"{number} {noun}" if number == 1 else f"{number:,} {noun}s"
