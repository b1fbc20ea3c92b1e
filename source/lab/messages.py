# >>file 02
"""The three message shapes a conversation is made of, exactly as the session file stores them.

Messages are plain dicts (typed with TypedDict): what the model receives, what the loop appends
and what orjson writes to disk are the same value, so nothing is lost on the way and back.
"""

from __future__ import annotations

# >> prod
import re

# << prod
# >> 03
from collections import deque

# << 03
# >> 05
from collections import Counter

# << 05
from collections.abc import Sequence
from typing import Any, Literal, TypedDict

# >> prod
from typing import NotRequired

# << prod
import orjson

# >> prod
from terminal_text import fitting, printable

# << prod


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


# >> prod
class Usage(TypedDict, total=False):
    """What a reply cost, in tokens, as the endpoint counted it (pi records the same): the
    size of a context, for a step that must decide when to compact it."""

    input: int  # the prompt: everything the model was given
    output: int  # the reply
    totalTokens: int


# << prod
class AssistantMessage(TypedDict):
    """`stopReason` tells the loop whether to go round again: "toolUse" means "run my tools"."""

    role: Literal["assistant"]
    content: list[TextBlock | ToolCallBlock]
    stopReason: StopReason
    # >> prod
    usage: NotRequired[Usage]  # a real model's, when its endpoint gives it
    # << prod


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


# >> 06
# A compaction's summary reaches the model as a user message that says what it is.
SUMMARY_HEADING = "Summary of the conversation before this point:"


def summary_message(summary: str) -> UserMessage:
    """What the model is given in place of the messages a compaction replaced."""
    return user_text(f"{SUMMARY_HEADING}\n{summary}")


def summary_in(message: Message) -> str | None:
    """The summary `message` carries, if `summary_message` made it; else None."""
    text = text_of(message)
    if message["role"] != "user" or not text.startswith(f"{SUMMARY_HEADING}\n"):
        return None
    return text.removeprefix(f"{SUMMARY_HEADING}\n")


def context_size(messages: Sequence[Message]) -> int:
    """How big a context is, in characters of its JSON: what --compact-at compares."""
    try:  # a file's tool arguments nested deeper than orjson writes: no API request holds them
        return len(orjson.dumps(messages).decode())
    except orjson.JSONEncodeError:
        return 1 << 62  # over every limit: a compaction summarises them away


# << 06
# >> 05
def unanswered_calls(messages: Sequence[Message]) -> list[ToolCallBlock]:
    """The tool calls at the end of the conversation that no toolResult answers.

    A model API rejects a history in which a tool call has no result, and a process that
    dies while a tool runs leaves exactly that at the end: the last assistant message,
    followed by nothing but the results it got. Stop here: once a user's line comes after
    it, the call is in the middle, and a result appended at the end would not answer it.
    Results are counted, not looked up: two calls with one id (a file is data) need two.
    """
    for index in range(len(messages) - 1, -1, -1):
        role = messages[index]["role"]
        if role == "assistant":
            answered = Counter(m["toolCallId"] for m in messages[index + 1 :])  # all results
            missing = []
            for call in tool_calls(messages[index]):
                if answered[call["id"]]:
                    answered[call["id"]] -= 1
                else:
                    missing.append(call)
            return missing
        if role != "toolResult":
            return []  # a user's line after the call: not the end of the path
    return []


# << 05
# >> 03
# The result a tool call gets, in memory only, when the file holds none: its line was damaged,
# or the run was killed while the call ran.
LOST_RESULT = "lost: this tool call's result is not in the session file; it was not run again"


# << 03
# >> 03 until prod
# def answered_in_memory(messages: Sequence[Message]) -> list[Message]:
#     """The messages of a path, paired up as a chat API requires, without writing anything.
#
#     A kill between two saves leaves a tool call at the very end without its result, and a
#     path that starts after a damaged line may start with a result whose call was before it. A
#     call without its result gets an error result right after the results it has (the model
#     reads that it was lost, and may ask again); a result without its call is left out.
#     """
# << 03 until prod
# >> prod
def answered_in_memory(messages: Sequence[Message], *, at_the_end: bool = True) -> list[Message]:
    """The messages of a path, paired up as a chat API requires, without writing anything.

    A kill between two saves leaves a tool call at the very end without its result, and a
    path that starts after a damaged line may start with a result whose call was before it. A
    call without its result gets an error result right after the results it has (the model
    reads that it was lost, and may ask again); a result without its call is left out.
    A damaged line costs only itself, so a path may also hold a call whose result was on that
    line, or a result whose call was (it answers nothing the model can see). Stop here:
    `at_the_end=False` leaves the calls the path ends on as they are, for a resume that writes
    their answer to the file (`repair_interrupted_calls`): answered only in memory, they are
    answered again on every resume.
    """
    # Stop here, for speed: this runs on every resume and every move of the leaf, over the
    # whole path (60,000 messages in the benchmark), and a file is data: 30,000 calls in one
    # message must not cost 30,000 squared. One plain loop; calls waiting kept by id.
    # << prod
    # >> 03
    paired: list[Message] = []
    waiting: dict[str, deque[ToolCallBlock]] = {}  # the last assistant's calls, by id, unanswered
    for message in messages:
        role = message["role"]
        if role == "toolResult":
            calls = waiting.get(message["toolCallId"])
            if calls:  # else its call is not on the path: left out
                calls.popleft()
                paired.append(message)
            continue
        if waiting:
            paired.extend(_lost(waiting))
            waiting = {}
        if role == "assistant":
            for block in message["content"]:
                if block["type"] == "toolCall":
                    waiting.setdefault(block["id"], deque()).append(block)
        paired.append(message)
    # >> 03 until prod
    # if waiting:
    # << 03 until prod
    # >> prod
    if waiting and at_the_end:
        # << prod
        paired.extend(_lost(waiting))
    return paired


def _lost(waiting: dict[str, deque[ToolCallBlock]]) -> list[Message]:
    calls = [call for same_id in waiting.values() for call in same_id]
    return [tool_result(call, LOST_RESULT, is_error=True) for call in calls]


# << 03
# What a chat API answers when tool calls and results do not pair up: OpenAI's words ("preceeding"
# is theirs). Anthropic's API refuses the same ("`tool_use` ids were found without ...").
MISSING_RESULTS = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
RESULT_WITHOUT_CALL = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'. (messages[{index}] answers tool_call_id {id})"
)
# >> 04
NOT_A_MESSAGE = "Invalid type for 'messages[{index}]': expected an object, but got {kind} instead."
# << 04
# >> prod
SHOWN_IDS = 5  # a file can hold any number of ids, each of any length: the error stays a line
SHOWN_ID_LENGTH = 40
# << prod


def history_problem(messages: Sequence[Message]) -> str | None:
    """Why a chat API would refuse this history, in its words; None if it would accept it.

    The rule: each tool call is answered by exactly one toolResult with its id, right after its
    assistant message, and a toolResult answers a call of the assistant message before it. Stop
    here: an API checks the whole list on every request, so one break is refused on every turn.
    """
    waiting: dict[str, int] = {}  # the last assistant's call ids, and how many results each lacks
    unanswered = 0
    for index, message in enumerate(messages):
        # >> 04
        if not isinstance(message, dict):  # what a careless reader can hand over, as JSON says it
            kind = {type(None): "null", str: "a string", list: "an array", bool: "a boolean"}
            return NOT_A_MESSAGE.format(index=index, kind=kind.get(type(message), "a number"))
        # << 04
        if message["role"] == "toolResult":
            call_id = message["toolCallId"]
            if waiting.get(call_id, 0) == 0:  # no such call, or it has its result already
                # >> 02 until prod
                # return RESULT_WITHOUT_CALL.format(index=index, id=call_id)
                # << 02 until prod
                # >> prod
                return RESULT_WITHOUT_CALL.format(index=index, id=_shown_id(call_id))
                # << prod
            waiting[call_id] -= 1
            unanswered -= 1
            continue
        if unanswered:  # a user or assistant message, while a call still waits for its result
            break
        waiting = {}
        for call in tool_calls(message):
            waiting[call["id"]] = waiting.get(call["id"], 0) + 1
            unanswered += 1
    if unanswered:
        missing = [call_id for call_id, lacking in waiting.items() if lacking]
        # >> 02 until prod
        # return MISSING_RESULTS.format(ids=", ".join(missing))
        # << 02 until prod
        # >> prod
        shown = ", ".join(_shown_id(call_id) for call_id in missing[:SHOWN_IDS])
        if len(missing) > SHOWN_IDS:
            shown += f" and {len(missing) - SHOWN_IDS} more"
        return MISSING_RESULTS.format(ids=shown)
        # << prod
    return None


# >> prod
def _shown_id(call_id: str) -> str:
    """An id from a file, safe to print on one short line."""
    return printable(shortened(call_id, SHOWN_ID_LENGTH))


# << prod
# >> 02 until prod
# def preview(message: Message, width: int = 40) -> str:
#     """One short line for tables and graph labels: text on one line, tool calls as name(args)."""
#     parts = [block["text"] for block in message["content"] if block["type"] == "text"]
#     parts += [
#         f"{call['name']}({', '.join(value_text(v) for v in call['arguments'].values())})"
#         for call in tool_calls(message)
#     ]
#     return shortened(" ".join(" ".join(parts).split()), width)  # any run of spaces: one
#
#
# def shortened(text: str, width: int) -> str:
#     """`text` whole if it has at most `width` characters, else cut and ended with "…"."""
#     return text if len(text) <= width else text[: width - 1] + "…"
#
#
# << 02 until prod
# >> prod
def preview(message: Message, width: int = 40) -> str:
    """One short line for tables and graph labels: text on one line, tool calls as name(args).

    Safe to print whatever the file held: control characters come out escaped. Words are read
    only until the line is full, so a long message does not cost a long preview.
    """
    parts = [block["text"] for block in message["content"] if block["type"] == "text"]
    parts += [
        f"{call['name']}({', '.join(value_text(v) for v in call['arguments'].values())})"
        for call in tool_calls(message)
    ]
    words = (printable(match.group()) for part in parts for match in _WORD.finditer(part))
    line = ""  # newlines and runs of spaces between words become one space
    for word in words:
        line = f"{line} {word}" if line else word
        if (cut := shortened(line, width)) != line:
            return cut
    return line


def shortened(text: str, width: int) -> str:
    """`text` as it fits in `width` terminal columns: whole, or cut and ended with "…"."""
    if len(text) > width or fitting(text, width) != text:
        return fitting(text, width - 1) + "…"
    return text


# << prod


def value_text(value: object) -> str:
    """A tool argument as text: a string as itself, anything else as compact JSON. Not str():
    str() of a list 1,000 deep raises RecursionError, of an int of 5,000 digits ValueError."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:  # nested deeper than orjson writes (254), an int over 64 bits
        return f"<{type(value).__name__} that cannot be shown as JSON>"


# >> prod


_WORD = re.compile(r"\S+")
# << prod
