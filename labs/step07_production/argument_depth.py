"""How deep a tool call's arguments may nest: one limit for both places they are read, a
model's reply (openai_stream.py) and a session file (entries.py), checked without recursion.
"""

from __future__ import annotations

from typing import Any

# How deep a tool call's arguments may nest. The writer (orjson) writes 254 levels in all, and
# a session line puts the arguments 4 levels down (entry, message, content, block); the reader
# reads 1,024. Arguments deeper than this are refused where they are read, from a model or
# from a file: accepted, every later request would fail before it is sent.
MAX_ARGUMENT_LEVELS = 200


def nesting_within(value: object, levels: int) -> bool:
    """Whether `value` nests objects and arrays at most `levels` deep (`{}` is one level).
    A loop, not recursion: a value 1,000 deep must not raise RecursionError here."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level > levels:
            return False
        stack.extend((child, level + 1) for child in children)
    return True
