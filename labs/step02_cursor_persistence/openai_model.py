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
from collections.abc import Iterator, Sequence
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
        self.client = openai.OpenAI(max_retries=MAX_RETRIES, timeout=TIMEOUT)

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
                text = reply.add(chunk)
                if text:
                    yield TextDelta(text)  # to the terminal as it arrives
        except openai.APIStatusError as error:  # 401, 429 and 5xx after the retries, 400...
            raise ModelError(f"{self.name}: HTTP {error.status_code}: {shown(error)}") from None
        except openai.APIConnectionError as error:  # refused, timed out, cut mid-stream
            where = printable(str(self.client.base_url))
            raise ModelError(f"{self.name}: no answer from {where}: {shown(error)}") from None
        except openai.APIError as error:  # an error event in the middle of the stream
            raise ModelError(f"{self.name}: the stream reported an error: {shown(error)}") from None
        except ValueError as error:  # a chunk that is not JSON: the SDK lets json's error out
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
    """A tool call as it streams in: the id and the name come first, the arguments in pieces."""

    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class Reply:
    """The streamed chunks so far, put together."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, PartialCall] = field(default_factory=dict)  # by the chunk's `index`
    finish_reason: str | None = None

    def add(self, chunk: Any) -> str:
        """Take one chunk in; return its text (empty if it has none)."""
        if not chunk.choices:  # a chunk may carry only usage figures
            return ""
        choice = chunk.choices[0]
        delta = choice.delta
        for piece in delta.tool_calls or []:
            call = self.calls.setdefault(piece.index, PartialCall())
            call.id = call.id or piece.id or ""
            if piece.function is not None:
                call.name += piece.function.name or ""
                call.arguments += piece.function.arguments or ""
        if choice.finish_reason is not None:
            self.finish_reason = choice.finish_reason
        text = delta.content or ""
        self.text.append(text)
        return text

    def finished(self, model: str) -> AssistantMessage:
        """The one assistant message the chunks make; ModelError if they never finished."""
        if self.finish_reason not in FINISHED:
            why = self.finish_reason or "no finish reason"
            raise ModelError(f"{model}: the reply broke off ({printable(why)}); nothing was kept")
        calls: list[ToolCallBlock] = []
        for index, partial in sorted(self.calls.items()):
            try:
                arguments = json.loads(partial.arguments or "{}")
            except ValueError:
                arguments = None
            if not isinstance(arguments, dict):
                raise ModelError(
                    f"{model}: tool call {index} has arguments that are not a JSON object"
                )
            call_id = partial.id or f"call_{index}"  # some local servers send no id
            calls.append(
                {"type": "toolCall", "id": call_id, "name": partial.name, "arguments": arguments}
            )
        # The calls decide the stopReason, as for the scripted models: some local servers say
        # "stop" after a tool call, and a "tool_calls" without a call asks for nothing.
        return assistant_message("".join(self.text), calls)


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
    return printable(text if len(text) <= SHOWN else text[: SHOWN - 1] + "…")
