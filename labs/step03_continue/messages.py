"""The three message shapes a conversation is made of, exactly as the session file stores them.

Messages are plain dicts (typed with TypedDict), not objects: what the model receives, what the
loop appends and what orjson writes to disk are the same value, so nothing is lost or renamed on
the way to the file and back.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict


class TextBlock(TypedDict):
    type: Literal["text"]
    text: str


class ToolCallBlock(TypedDict):
    """The assistant asks for a tool; `id` pairs it with the toolResult that answers it."""

    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]


StopReason = Literal["stop", "toolUse"]


class UserMessage(TypedDict):
    role: Literal["user"]
    content: list[TextBlock]


class AssistantMessage(TypedDict):
    """`stopReason` tells the loop whether to go round again: "toolUse" means "run my tools"."""

    role: Literal["assistant"]
    content: list[TextBlock | ToolCallBlock]
    stopReason: StopReason


class ToolResultMessage(TypedDict):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[TextBlock]
    isError: bool


Message = UserMessage | AssistantMessage | ToolResultMessage


def user_text(text: str) -> UserMessage:
    """What one line typed by the user becomes."""
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant_message(text: str, calls: list[ToolCallBlock] | None = None) -> AssistantMessage:
    """An assistant reply; with tool calls its stopReason is "toolUse", else "stop"."""
    content: list[TextBlock | ToolCallBlock] = [{"type": "text", "text": text}]
    content.extend(calls or [])
    return {"role": "assistant", "content": content, "stopReason": "toolUse" if calls else "stop"}


def tool_result(call: ToolCallBlock, text: str, *, is_error: bool = False) -> ToolResultMessage:
    """The answer to one tool call, paired with it by `toolCallId`."""
    return {
        "role": "toolResult",
        "toolCallId": call["id"],
        "toolName": call["name"],
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    }


def text_of(message: Message) -> str:
    """All text blocks of a message joined by newlines (tool calls are not text)."""
    return "\n".join(block["text"] for block in message["content"] if block["type"] == "text")


def tool_calls(message: Message) -> list[ToolCallBlock]:
    """The tool calls an assistant message asks for (none for other roles)."""
    if message["role"] != "assistant":
        return []
    return [block for block in message["content"] if block["type"] == "toolCall"]


def preview(message: Message, width: int = 40) -> str:
    """One short line for tables and graph labels: text on one line, tool calls as name(args)."""
    parts = [text_of(message)]
    parts += [
        f"{call['name']}({', '.join(str(v) for v in call['arguments'].values())})"
        for call in tool_calls(message)
    ]
    line = " ".join(" ".join(parts).split())  # newlines and runs of spaces become one space
    return line if len(line) <= width else line[: width - 1] + "…"
