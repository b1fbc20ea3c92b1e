# >>file prod
"""Reading one streamed Chat Completions reply: chunks in, one lab assistant message out.

What an endpoint sends is data from outside, like a line of a session file: every shape a
real endpoint sends is read here, and every other one is refused by name (`ChunkError`), so
that a reply either becomes one whole message the session file can hold, or nothing at all.
The shapes read, each seen from a real server:

- `role` in the first delta only; text in pieces; `finish_reason` in a chunk of its own; a
  last chunk with `usage` and no `choices` (asked for with `stream_options.include_usage`);
- tool calls in pieces, by `index`. A piece without `index` (some local servers send none)
  goes on with the call before it, or starts the next call when it brings an id of its own;
- a function name sent whole in every piece of its call: one name, not the name repeated;
- keep-alive comments (`: ping`), which the SDK's decoder reads past;
- a server that ignores `stream` and answers with one JSON completion: read as a stream of
  that one chunk (`one_completion_as_a_stream`, in openai_body.py).

The body those chunks come in is bounded in openai_body.py, and the whole reply has one
deadline (deadline.py), however the endpoint spends it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import openai
import orjson

from argument_depth import MAX_ARGUMENT_LEVELS, nesting_within
from messages import AssistantMessage, ToolCallBlock, Usage, assistant_message
from model import ModelError
from terminal_text import printable

FINISHED = ("stop", "tool_calls")  # how a whole reply ends; "length", None... broke off
# What one reply may hold: a reply this large still fits one line of the session file.
MAX_REPLY_CHARS = 4 * 1024 * 1024
CALL_CHARS = 64  # what a tool call counts against that bound before its id, name and arguments
# The usage figures an endpoint may send, by the names the session file gives them (pi's).
USAGE_FIGURES = {
    "input": "prompt_tokens",
    "output": "completion_tokens",
    "totalTokens": "total_tokens",
}


class ChunkError(Exception):
    """A streamed chunk the API never sends: a field of the wrong type, a reply too large."""


@dataclass
class PartialCall:
    """A tool call as it streams in: the id and the name come first, the arguments in pieces
    (kept as a list and joined once: adding each piece to a string copies it every time)."""

    id: str = ""
    name: list[str] = field(default_factory=list)
    name_length: int = 0  # of the name so far: joined only to compare with a piece as long
    arguments: list[str] = field(default_factory=list)


@dataclass
class Reply:
    """The streamed chunks so far, put together."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, PartialCall] = field(default_factory=dict)  # by the chunk's `index`
    current: int | None = None  # the index of the call the last piece went to
    finish_reason: str | None = None
    usage: Usage | None = None
    size: int = 0  # characters held so far, against `limit`
    limit: int = MAX_REPLY_CHARS  # a summary has a smaller one (openai_model.MAX_SUMMARY_CHARS)

    def add(self, chunk: Any) -> str:
        """Take one chunk in; return its text (empty if it has none).

        Each value kept is checked to be of the type the API documents: a number where text
        belongs would otherwise reach the terminal, or the file.
        """
        if chunk.usage is not None:  # the last chunk, when asked for; some servers send it
            self.usage = usage_of(chunk.usage)  # on every chunk: the last one counts
        if not chunk.choices:  # a chunk may carry only usage figures
            return ""
        choice = chunk.choices[0]
        delta = choice.delta
        for piece in delta.tool_calls or []:
            call = self._call_for(piece)
            if piece.function is not None:
                self._add_name(call, text_field(piece.function.name, "name"))
                arguments = text_field(piece.function.arguments, "arguments")
                call.arguments.append(self._hold(arguments))
        if choice.finish_reason is not None:
            self.finish_reason = text_field(choice.finish_reason, "finish_reason")
        text = self._hold(text_field(delta.content, "content"))
        self.text.append(text)
        return text

    def _call_for(self, piece: Any) -> PartialCall:
        """The call a piece belongs to, by its `index`; without one, the call before it, or the
        next one if the piece brings an id that call does not have."""
        index, call_id = piece.index, text_field(piece.id, "id")
        if index is None:
            before = None if self.current is None else self.calls[self.current]
            if before is None:
                index = 0
            elif call_id and before.id and call_id != before.id:
                index = max(self.calls) + 1
            else:
                index = self.current
        elif not isinstance(index, int) or isinstance(index, bool):
            raise ChunkError("a chunk whose `index` is not a whole number")
        if index not in self.calls:
            self.calls[index] = PartialCall()
            self._count(CALL_CHARS)
        self.current = index
        call = self.calls[index]
        if not call.id:
            call.id = self._hold(call_id)
        return call

    def _add_name(self, call: PartialCall, name: str) -> None:
        """Add a piece of the name, unless it is the whole name again (some servers send it in
        every piece: read as pieces, `calc` would become `calccalc...`)."""
        if not name or (len(name) == call.name_length and "".join(call.name) == name):
            return
        call.name.append(self._hold(name))
        call.name_length += len(name)

    def _hold(self, text: str) -> str:
        self._count(len(text))
        return text

    def _count(self, characters: int) -> None:
        self.size += characters
        if self.size > self.limit:
            raise ChunkError(f"a reply over {self.limit:,} characters")

    def finished(self, model: str) -> AssistantMessage:
        """The one assistant message the chunks make; ModelError if they never finished, or
        if they hold what the session file cannot (then nothing of them is kept either)."""
        if self.finish_reason not in FINISHED:
            why = self.finish_reason or "no finish reason"
            raise ModelError(f"{model}: the reply broke off ({printable(why)}); nothing was kept")
        calls: list[ToolCallBlock] = []
        for index, partial in sorted(self.calls.items()):
            arguments = arguments_of("".join(partial.arguments))
            if isinstance(arguments, str):
                raise ModelError(f"{model}: tool call {index} has arguments {arguments}")
            call_id = partial.id or f"call_{index}"  # some local servers send no id
            name = "".join(partial.name)
            calls.append({"type": "toolCall", "id": call_id, "name": name, "arguments": arguments})
        # The calls decide the stopReason, as for the scripted models: some local servers say
        # "stop" after a tool call, and a "tool_calls" without a call asks for nothing.
        message = assistant_message("".join(self.text), calls)
        if self.usage:
            message["usage"] = self.usage
        # Stop here: checked now, before the turn is shown as ended, not when the save fails.
        # What the writer cannot encode would otherwise end the run as "cannot write".
        if (why := unwritable(message)) is not None:
            raise ModelError(f"{model}: the reply holds {why}, which the session file cannot")
        return message


def text_field(value: object, what: str) -> str:
    """A chunk's text field: "" when absent; refused when it is not text."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ChunkError(f"a chunk whose `{what}` is not a string")
    return value


def usage_of(usage: object) -> Usage:
    """The usage figures of a chunk, by the session file's names; each a whole number."""
    if not isinstance(usage, openai.types.CompletionUsage):  # the SDK made no object of it
        raise ChunkError("a chunk whose `usage` is not an object")
    figures: Usage = {}
    for ours, theirs in USAGE_FIGURES.items():
        value = getattr(usage, theirs, None)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ChunkError(f"a chunk whose `usage.{theirs}` is not a whole number")
        figures[ours] = value  # type: ignore[literal-required]
    return figures


def arguments_of(text: str) -> dict[str, Any] | str:
    """A tool call's arguments, as the JSON object the model wrote; or, as text, why not.

    Stop here: read as JSON reads, not as Python's json does by default. It takes NaN,
    Infinity and 1e400 (an infinite float) too; the session file would then hold `null`
    where the next request sends `NaN`, two different conversations.
    """
    try:
        value = json.loads(text or "{}", parse_constant=_not_json, parse_float=_finite)
    except _NotJson as error:
        return f"that are not JSON ({error})"
    except RecursionError:
        return f"nested over {MAX_ARGUMENT_LEVELS} levels deep"
    except ValueError:
        return "that are not a JSON object"
    if not isinstance(value, dict):
        return "that are not a JSON object"
    if not nesting_within(value, MAX_ARGUMENT_LEVELS):  # the reader refuses them, too
        return f"nested over {MAX_ARGUMENT_LEVELS} levels deep"
    return value


class _NotJson(ValueError):
    pass


def _not_json(name: str) -> Any:
    raise _NotJson(name)


def _finite(digits: str) -> float:
    number = float(digits)
    if not math.isfinite(number):
        raise _NotJson(f"{digits[:20]} is too large for a number")
    return number


def unwritable(message: AssistantMessage) -> str | None:
    """What in `message` the session file's writer (orjson) cannot encode, or None."""
    try:
        orjson.dumps(message)
    except orjson.JSONEncodeError as error:
        reason = str(error)
        if "64-bit" in reason:
            return "an integer over 64 bits"
        if "surrogates" in reason:
            return "half of a character (a lone surrogate: a pair split in two?)"
        return printable(reason[:80])
    return None
