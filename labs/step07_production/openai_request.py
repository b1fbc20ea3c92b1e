"""What an endpoint is sent: the lab's messages as chat messages, the lab's tools as functions,
and the program's own system messages.

The way out of the mapping between the lab and the Chat Completions API (the way back, chunks
to one assistant message, is openai_stream.py). openai_model.py puts a request together from
these pieces; nothing else in the lab knows what a chat message looks like.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import orjson

from messages import Message, ToolCallBlock, text_of, tool_calls
from tools import Tool

# The system message every request starts with. It is the program's, not the conversation's:
# sent first, never saved, so a session file holds only what was said.
SYSTEM_VARIABLE = "LAB_SYSTEM_PROMPT"
SYSTEM = (
    "You are the assistant in a small teaching lab about how a conversation survives the "
    "process that holds it: each message is saved to a session file the moment it ends, and "
    "a later run goes on from there. Answer briefly. For arithmetic, call a tool instead of "
    "working it out yourself. Your tools: {tools}."
)
# What a summary is asked for (openai_model.summarize): what it must keep, so that "what was
# the result" still answers from it, and how long it may be. Its length is also enforced
# (openai_model.MAX_SUMMARY_CHARS).
SUMMARY_SYSTEM = (
    "You summarise a conversation between a user and an assistant, so that the summary can "
    "replace it: the assistant will be given only the summary and what comes after it. Keep "
    "what each user message asked, each tool call with its arguments and its result, the "
    "facts and decisions, and any request still open. If an earlier summary is given, carry "
    "over all of it that still matters: it is all that is left of what came before it."
)
SUMMARY_ASK = "Write the summary now: plain text, at most 300 words, and nothing else."
TRANSCRIPT_WIDTH = 2000  # at most this much of one message is sent to be summarised


def chat_message(message: Message) -> dict[str, Any]:
    """One lab message as the Chat Completions API takes it."""
    if message["role"] == "toolResult":
        # The API has no error flag on a tool's answer: the model reads it in the text.
        text = f"error: {text_of(message)}" if message["isError"] else text_of(message)
        return {"role": "tool", "tool_call_id": message["toolCallId"], "content": text}
    if message["role"] == "user":
        return {"role": "user", "content": text_of(message)}
    chat: dict[str, Any] = {"role": "assistant", "content": text_of(message) or None}
    calls = tool_calls(message)
    if calls:
        chat["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": arguments_text(call)},
            }
            for call in calls
        ]
    return chat


def arguments_text(call: ToolCallBlock) -> str:
    """A tool call's arguments as the API takes them, a JSON string: written by the session
    file's own writer, so that what is sent and what is saved are the same JSON."""
    return orjson.dumps(call["arguments"]).decode()


def system_message(tools: Sequence[Tool]) -> dict[str, Any]:
    """The program's own first message: SYSTEM, naming the tools this run offers, or the text
    of LAB_SYSTEM_PROMPT where it is set (as it is, an agent's own instructions)."""
    own = os.environ.get(SYSTEM_VARIABLE)
    if own:
        return {"role": "system", "content": own}
    return {"role": "system", "content": SYSTEM.format(tools=", ".join(t.name for t in tools))}


def chat_tool(tool: Tool) -> dict[str, Any]:
    """A lab tool offered as a function: its parameters are already the JSON Schema the API
    takes (optional arguments, enums and descriptions included)."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def transcript_pieces(messages: Sequence[Message], most: int) -> list[str]:
    """The transcript in pieces of at most `most` characters, whole lines each: what one
    summary request may carry. At least one piece, empty for no messages."""
    pieces, piece, size = [], [], 0
    for line in transcript(messages).splitlines():
        if piece and size + 1 + len(line) > most:
            pieces.append("\n".join(piece))
            piece, size = [], 0
        piece.append(line)
        size += len(line) + (1 if size else 0)
    return [*pieces, "\n".join(piece)]


def transcript(messages: Sequence[Message]) -> str:
    """The messages as lines of text for a summariser to read, each cut to TRANSCRIPT_WIDTH:
    a tool result of megabytes is summarised by its start."""
    lines = []
    for message in messages:
        if message["role"] == "toolResult":
            kind = "error" if message["isError"] else "result"
            lines.append(f"[{message['toolName']} {kind}] {text_of(message)}")
            continue
        if text := text_of(message):
            lines.append(f"[{message['role']}] {text}")
        for call in tool_calls(message):
            lines.append(f"[assistant called {call['name']}] {arguments_text(call)}")
    return "\n".join(
        line if len(line) <= TRANSCRIPT_WIDTH else line[: TRANSCRIPT_WIDTH - 1] + "…"
        for line in (" ".join(line.split()) for line in lines)
    )
