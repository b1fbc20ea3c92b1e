"""What a message in an entry line must hold before the model or the renderer is given it.

A file is data: a line can be valid JSON and still hold a message no chat API takes (a tool
call without an id, arguments nested past what can be sent). The reader refuses such a line
as damage, here, instead of failing later in the middle of a turn.
"""

from __future__ import annotations

from argument_depth import MAX_ARGUMENT_LEVELS, nesting_within


def is_message(value: object) -> bool:
    """Enough of a message that the model and the renderer can use it without crashing."""
    if not isinstance(value, dict) or not isinstance(content := value.get("content"), list):
        return False
    for block in content:
        if not isinstance(block, dict):
            return False
        match block.get("type"):
            case "text":
                if not isinstance(block.get("text"), str):
                    return False
            case "toolCall":
                if not (
                    isinstance(block.get("id"), str)
                    and isinstance(block.get("name"), str)
                    and isinstance(block.get("arguments"), dict)
                    # deeper, the next request could not be sent (messages.MAX_ARGUMENT_LEVELS)
                    and nesting_within(block["arguments"], MAX_ARGUMENT_LEVELS)
                ):
                    return False
            case str():
                pass  # a block kind this step does not show: kept, never rendered
            case _:
                return False
    match value.get("role"):
        case "user":
            return True
        case "assistant":
            return value.get("stopReason") in ("stop", "toolUse")
        case "toolResult":
            return (
                isinstance(value.get("toolCallId"), str)
                and isinstance(value.get("toolName"), str)
                and isinstance(value.get("isError"), bool)
            )
    return False


def is_optional_str(value: object) -> bool:
    return value is None or isinstance(value, str)
