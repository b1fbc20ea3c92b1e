"""A tiny, deterministic message history to store.

Every store in this step saves the same history, so the only difference you measure is *how*
they write it. The messages have the shape every later step uses (the lab's session format,
documented in docs/session-format.md at the top of the repository): a `role` and a list of
content blocks.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]


def text_message(role: str, text: str) -> Message:
    """One `user` or `assistant` message holding a single text block."""
    return {"role": role, "content": [{"type": "text", "text": text}]}


def make_message(index: int) -> Message:
    """The message at position `index` (0-based): questions and answers take turns.

    Each message is a pure function of its index, so a history of any length can be
    rebuilt exactly, and two stores fed the same indices hold the same data.
    """
    n = index // 2 + 1
    if index % 2 == 0:
        return text_message("user", f"question {n}: what is {n} * 7?")
    return text_message("assistant", f"{n} * 7 = {n * 7}.")


def make_history(length: int, start: int = 0) -> list[Message]:
    """Messages `start`, `start + 1`, ... `start + length - 1`."""
    return [make_message(i) for i in range(start, start + length)]


def message_text(message: Message) -> str:
    """The text of a message's first text block ('' when it has none)."""
    for block in message.get("content", []):
        if block.get("type") == "text":
            return str(block.get("text", ""))
    return ""


def make_long_message(index: int, text_bytes: int) -> Message:
    """Message `index` with its text padded to `text_bytes` characters (ASCII, so bytes).

    A tool's output can be a whole file: such a message makes a ledger line of megabytes,
    whose single write takes long enough for a kill to land inside it.
    """
    message = make_message(index)
    text = message_text(message)
    return text_message(message["role"], text + "." * (text_bytes - len(text)))
