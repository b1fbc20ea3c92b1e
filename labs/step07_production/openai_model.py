"""A real model behind the lab's `Model` interface: any OpenAI-compatible Chat Completions
endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio), through the official `openai` SDK.

Chosen with `--model openai:NAME`. The SDK reads the endpoint from OPENAI_BASE_URL and the key
from OPENAI_API_KEY. Both directions of the mapping live here and nowhere else: the lab's
messages become chat messages on the way out, and the streamed chunks become one lab assistant
message on the way back, so the loop, the session file and the renderer never change.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from messages import (
    AssistantMessage,
    Message,
    ToolCallBlock,
    assistant_message,
    history_problem,
    printable,
    shortened,
    text_of,
    tool_calls,
)
from model import Done, HistoryRefused, ModelError, ModelEvent, TextDelta, ToolCallEvent
from tools import Tool

KEY_VARIABLE = "OPENAI_API_KEY"
MAX_RETRIES = 1  # the SDK retries a 429, a 5xx or a dropped connection this many times, then fails
TIMEOUT = openai.Timeout(60.0, connect=5.0)  # seconds: to connect, and between two chunks
FINISHED = ("stop", "tool_calls")  # how a whole reply ends; "length", None... broke off
SHOWN = 200  # at most this much of an endpoint's error text goes into the error line
# What one reply may hold: a reply this large still fits one line of the session file.
MAX_REPLY_CHARS = 4 * 1024 * 1024
CALL_CHARS = 64  # what a tool call counts against that bound before its id, name and arguments
# The SDK's decoder keeps a whole event (everything up to a blank line) in memory before it
# parses it; an endpoint that never sends the blank line would fill memory.
MAX_EVENT_BYTES = 16 * 1024 * 1024


class ChunkError(Exception):
    """A streamed chunk the API never sends: a field of the wrong type, a reply too large."""


class OpenAIModel:
    """`openai:NAME`: the endpoint is sent `"model": "NAME"`.

    Like the scripted models it checks the history first and refuses one whose tool calls and
    results do not pair up, so the endpoint never receives a history it would reject.
    """

    def __init__(self, api_model: str) -> None:
        self.name = f"openai:{api_model}"
        self.api_model = api_model
        if not os.environ.get(KEY_VARIABLE):  # the SDK would say so too, but in a traceback
            raise ModelError(
                f"{self.name} needs {KEY_VARIABLE} (the endpoint's key; for a local server "
                "that ignores it, any text) and, for any endpoint but OpenAI's, OPENAI_BASE_URL"
            )
        key = os.environ[KEY_VARIABLE]
        if not key.isascii() or not key.isprintable():  # it travels in an HTTP header
            raise ModelError(f"{self.name}: {KEY_VARIABLE} holds characters a key never has")
        try:
            self.client = openai.OpenAI(
                max_retries=MAX_RETRIES,
                timeout=TIMEOUT,
                # A redirect would send the conversation to an address no one chose.
                http_client=openai.DefaultHttpxClient(
                    follow_redirects=False, event_hooks={"response": [bounded_events]}
                ),
            )
        except Exception as error:  # noqa: BLE001 - the HTTP library's own, for a broken URL
            raise ModelError(f"{self.name}: cannot use OPENAI_BASE_URL: {shown(error)}") from None

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        problem = history_problem(messages)
        if problem is not None:
            raise HistoryRefused(self.name, problem)
        reply = Reply()
        try:
            chunks = self.client.chat.completions.create(
                model=self.api_model,
                messages=[chat_message(message) for message in messages],
                tools=[chat_tool(tool) for tool in tools],
                stream=True,
            )
            for chunk in chunks:
                try:
                    text = reply.add(chunk)
                except (AttributeError, TypeError, KeyError, IndexError) as error:
                    # The SDK builds chunks without checking them: any field may hold any
                    # JSON value. What `add` does not check by name fails here, as one line.
                    why = f"a chunk of a shape the API never sends ({error!r})"
                    raise ChunkError(why) from None
                if text:
                    yield TextDelta(text)  # to the terminal as it arrives
        except openai.APIStatusError as error:  # 401, 429 and 5xx after the retries, 400...
            why = shown(error)
            if 300 <= error.status_code < 400:  # followed, it would send the conversation on
                why = "a redirect, not followed (point OPENAI_BASE_URL where it leads)"
            raise ModelError(f"{self.name}: HTTP {error.status_code}: {why}") from None
        except ChunkError as error:
            raise ModelError(f"{self.name}: the stream sent {shown(error)}; nothing kept") from None
        except openai.APIConnectionError as error:  # refused, timed out, cut mid-stream
            where = printable(without_password(str(self.client.base_url)))
            raise ModelError(f"{self.name}: no answer from {where}: {shown(error)}") from None
        except openai.APIError as error:  # an error event in the middle of the stream
            raise ModelError(f"{self.name}: the stream reported an error: {shown(error)}") from None
        except (ValueError, RecursionError) as error:  # a chunk not JSON, or nested too deep
            raise ModelError(
                f"{self.name}: the stream sent a broken chunk: {shown(error)}"
            ) from None
        # Stop here: only a reply that ended as the API says a reply ends becomes a message.
        # Anything else broke off, and raising before `Done` keeps it out of the history.
        message = reply.finished(self.name)
        for call in tool_calls(message):
            yield ToolCallEvent(call)
        yield Done(message)


@dataclass
class PartialCall:
    """A tool call as it streams in: the id and the name come first, the arguments in pieces
    (kept as a list and joined once: adding each piece to a string copies it every time)."""

    id: str = ""
    name: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)


@dataclass
class Reply:
    """The streamed chunks so far, put together."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, PartialCall] = field(default_factory=dict)  # by the chunk's `index`
    finish_reason: str | None = None
    size: int = 0  # characters held so far, against MAX_REPLY_CHARS

    def add(self, chunk: Any) -> str:
        """Take one chunk in; return its text (empty if it has none).

        Each value kept is checked to be of the type the API documents: a number where text
        belongs would otherwise reach the terminal, or the file.
        """
        if not chunk.choices:  # a chunk may carry only usage figures
            return ""
        choice = chunk.choices[0]
        delta = choice.delta
        for piece in delta.tool_calls or []:
            index = piece.index
            if not isinstance(index, int) or isinstance(index, bool):
                raise ChunkError("a chunk whose `index` is not a whole number")
            if index not in self.calls:
                self.calls[index] = PartialCall()
                self._count(CALL_CHARS)
            call = self.calls[index]
            call.id = call.id or self._hold(text_field(piece.id, "id"))
            if piece.function is not None:
                call.name.append(self._hold(text_field(piece.function.name, "name")))
                arguments = text_field(piece.function.arguments, "arguments")
                call.arguments.append(self._hold(arguments))
        if choice.finish_reason is not None:
            self.finish_reason = text_field(choice.finish_reason, "finish_reason")
        text = self._hold(text_field(delta.content, "content"))
        self.text.append(text)
        return text

    def _hold(self, text: str) -> str:
        self._count(len(text))
        return text

    def _count(self, characters: int) -> None:
        self.size += characters
        if self.size > MAX_REPLY_CHARS:
            raise ChunkError(f"a reply over {MAX_REPLY_CHARS:,} characters")

    def finished(self, model: str) -> AssistantMessage:
        """The one assistant message the chunks make; ModelError if they never finished."""
        if self.finish_reason not in FINISHED:
            why = self.finish_reason or "no finish reason"
            raise ModelError(f"{model}: the reply broke off ({printable(why)}); nothing was kept")
        calls: list[ToolCallBlock] = []
        for index, partial in sorted(self.calls.items()):
            try:
                arguments = json.loads("".join(partial.arguments) or "{}")
            except (ValueError, RecursionError):
                arguments = None
            if not isinstance(arguments, dict):
                raise ModelError(
                    f"{model}: tool call {index} has arguments that are not a JSON object"
                )
            call_id = partial.id or f"call_{index}"  # some local servers send no id
            name = "".join(partial.name)
            calls.append({"type": "toolCall", "id": call_id, "name": name, "arguments": arguments})
        # The calls decide the stopReason, as for the scripted models: some local servers say
        # "stop" after a tool call, and a "tool_calls" without a call asks for nothing.
        return assistant_message("".join(self.text), calls)


def text_field(value: object, what: str) -> str:
    """A chunk's text field: "" when absent; refused when it is not text."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ChunkError(f"a chunk whose `{what}` is not a string")
    return value


def bounded_events(response: Any) -> None:
    """An httpx response hook: the body is read through `events_within`, so no event of it
    (no error body either) grows past MAX_EVENT_BYTES in memory.

    Stop here: the SDK reads a body with `response.iter_bytes()`, after decompressing it, so
    that is where the bound goes; a bound on the bytes received would let a compressed body
    of a few kilobytes unfold into gigabytes.
    """
    response.iter_bytes = events_within(response.iter_bytes, MAX_EVENT_BYTES)


def events_within(
    iter_bytes: Callable[..., Iterator[bytes]], limit: int
) -> Callable[..., Iterator[bytes]]:
    """`iter_bytes`, refusing (ChunkError) once the bytes since the last blank line pass
    `limit`: an event without end, or a body that is one endless line."""

    def bounded(*args: Any, **kwargs: Any) -> Iterator[bytes]:
        since, tail = 0, b""
        for piece in iter_bytes(*args, **kwargs):
            seen = tail + piece
            ends = [seen.rfind(blank) + len(blank) for blank in BLANK_LINES if blank in seen]
            since = len(seen) - max(ends) if ends else since + len(piece)
            if since > limit:
                raise ChunkError(f"an event over {limit:,} bytes, with no end in sight")
            tail = seen[-2:]
            yield piece

    return bounded


BLANK_LINES = (b"\n\n", b"\n\r\n", b"\r\r")  # where one event of the stream ends


def without_password(url: str) -> str:
    """`url` without a user name and password, if it has them: an error line is often shared."""
    scheme, found, rest = url.partition("://")
    if not found:
        return url
    where, slash, path = rest.partition("/")
    return f"{scheme}://{where.rpartition('@')[2]}{slash}{path}"


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
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for call in calls
        ]
    return chat


def chat_tool(tool: Tool) -> dict[str, Any]:
    """A lab tool offered as a function. The lab writes parameters as {name: JSON type};
    the API wants a JSON schema of an object with those properties, all required."""
    properties = {name: {"type": kind} for name, kind in tool.parameters.items()}
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
            },
        },
    }


def shown(error: Exception) -> str:
    """An endpoint's error text, on one short printable line."""
    text = " ".join(str(error).split()) or type(error).__name__
    return printable(shortened(text, SHOWN))
