# >>file prod
"""A real model behind the lab's `Model` interface: any OpenAI-compatible Chat Completions
endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio), through the official `openai` SDK.

Chosen with `--model openai:NAME`. The SDK reads the endpoint from OPENAI_BASE_URL and the key
from OPENAI_API_KEY. Both directions of the mapping live in openai_request.py and
openai_stream.py, and nowhere else: the lab's messages become chat messages on the way out
(openai_request.py), and the streamed chunks become one lab assistant message on the way back
(openai_stream.py), so the loop, the session file and the renderer never change. Every fault of
the endpoint becomes one `ModelError` here, which ends the turn in one line; the run goes on.
`summarize` asks the model for the summary /compact writes, in a request of its own, and fails
the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import closing
from typing import Any, cast

import openai
import orjson

from deadline import DEADLINE_VARIABLE, Deadline, DeadlinePassed, reply_deadline
from endpoint_secrets import KEY_VARIABLE, address_shown, shown
from messages import (
    Message,
    history_problem,
    summary_in,
    text_of,
    tool_calls,
)
from model import Done, HistoryRefused, ModelError, ModelEvent, TextDelta, ToolCallEvent
from openai_body import read_body
from openai_request import (
    SUMMARY_ASK,
    SUMMARY_SYSTEM,
    chat_message,
    chat_tool,
    system_message,
    transcript_pieces,
)
from openai_stream import ChunkError, Reply
from terminal_text import printable
from tools import Tool

MAX_RETRIES = 1  # the SDK retries a 429, a 5xx or a dropped connection this many times, then fails
TIMEOUT = openai.Timeout(60.0, connect=5.0)  # seconds: to connect, and between two chunks
MAX_SUMMARY_CHARS = 16 * 1024  # what a summary may hold (summarize)
# What one summary request may carry of the conversation: about 12,000 tokens, which any model
# an agent would compact for takes with room to spare. A longer one goes in pieces.
MAX_TRANSCRIPT_CHARS = 48_000
_END = object()  # what `next` gives back when the stream has no chunk left


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
        self.deadline = reply_deadline(self.name)
        try:
            self.client = openai.OpenAI(
                max_retries=MAX_RETRIES,
                timeout=TIMEOUT,
                # A redirect would send the conversation to an address no one chose.
                http_client=openai.DefaultHttpxClient(
                    follow_redirects=False, event_hooks={"response": [read_body]}
                ),
            )
        except Exception as error:  # noqa: BLE001 - the HTTP library's own, for a broken URL
            raise ModelError(f"{self.name}: cannot use OPENAI_BASE_URL: {shown(error)}") from None

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        problem = history_problem(messages)
        if problem is not None:
            raise HistoryRefused(self.name, problem)
        reply = Reply()
        # Closed at once when the turn is abandoned: the connection is let go then, not later.
        with closing(self.streamed(self.request(messages, tools), reply)) as texts:
            for text in texts:
                yield TextDelta(text)  # to the terminal as it arrives
        # Stop here: only a reply that ended as the API says a reply ends becomes a message.
        # Anything else broke off, and raising before `Done` keeps it out of the history.
        message = reply.finished(self.name)
        for call in tool_calls(message):
            yield ToolCallEvent(call)
        yield Done(message)

    def summarize(self, messages: Sequence[Message]) -> str:
        """A summary of `messages` written by the model itself, for /compact and --compact-at:
        a request with no tools, whose whole text is the summary. An earlier summary among
        `messages` is sent apart, to be carried forward (as the scripted models carry its
        lines over): the new summary is all the model will have of what came before.

        Stop here: a compaction is needed when the context is too long for the model, so the
        conversation is never sent whole: at most MAX_TRANSCRIPT_CHARS a request. A longer one
        is summarised a piece at a time, each request carrying forward the summary so far.
        Each summary is a reply like any other, and fails like one (the endpoint's faults, the
        deadline, what the file cannot hold), as one ModelError, before anything is written.
        It is bounded (MAX_SUMMARY_CHARS): a compaction that made the context larger would
        defeat itself.
        """
        earlier = [summary for m in messages if (summary := summary_in(m)) is not None]
        summary = earlier[-1] if earlier else None
        said = [m for m in messages if summary_in(m) is None]
        for piece in transcript_pieces(said, MAX_TRANSCRIPT_CHARS):
            summary = self.summary_of(piece, summary)
        return cast(str, summary)

    def summary_of(self, conversation: str, earlier: str | None) -> str:
        """One summary request: `conversation` (a piece of the transcript), after `earlier`."""
        reply = Reply(limit=MAX_SUMMARY_CHARS)
        try:
            with closing(
                self.streamed(self.summary_request(conversation, earlier), reply)
            ) as texts:
                for _ in texts:
                    pass  # not shown: the line that says what was compacted is
            message = reply.finished(self.name)
        except ModelError as error:
            raise ModelError(f"cannot compact: {error}") from None
        summary = text_of(message).strip()
        why = "asked for a tool instead" if tool_calls(message) else "an empty one"
        if not summary or tool_calls(message):
            raise ModelError(f"cannot compact: {self.name} wrote no summary ({why})")
        return summary

    def streamed(self, request: dict[str, Any], reply: Reply) -> Iterator[str]:
        """Send `request`, read its streamed chunks into `reply`, and yield each piece of
        text as it arrives; every fault of the endpoint becomes one ModelError."""
        started = False  # a chunk came: a connection lost now was cut, not refused
        try:
            with Deadline(self.deadline) as deadline:
                chunks = deadline.wait(lambda: self.client.chat.completions.create(**request))
                try:
                    while (chunk := deadline.wait(lambda: next(chunks, _END))) is not _END:
                        started = True
                        text = read_chunk(reply, chunk)
                        if text:
                            yield text
                finally:  # also when the turn is abandoned: the connection is let go now
                    chunks.close()
        except DeadlinePassed:
            raise ModelError(
                f"{self.name}: no whole reply within {self.deadline:g} s "
                f"(the deadline {DEADLINE_VARIABLE} sets); nothing was kept"
            ) from None
        except openai.APIStatusError as error:  # 401, 429 and 5xx after the retries, 400...
            why = shown(error)
            if 300 <= error.status_code < 400:  # followed, it would send the conversation on
                why = "a redirect, not followed (point OPENAI_BASE_URL where it leads)"
            raise ModelError(f"{self.name}: HTTP {error.status_code}: {why}") from None
        except ChunkError as error:
            raise ModelError(f"{self.name}: the stream sent {shown(error)}; nothing kept") from None
        except openai.APIConnectionError as error:  # refused, timed out, cut mid-stream
            where = printable(address_shown(str(self.client.base_url)))
            if started:
                why = f"the stream from {where} was cut ({shown(error)}); nothing was kept"
                raise ModelError(f"{self.name}: {why}") from None
            raise ModelError(f"{self.name}: no answer from {where}: {shown(error)}") from None
        except openai.APIError as error:  # an error event in the middle of the stream
            raise ModelError(f"{self.name}: the stream reported an error: {shown(error)}") from None
        except (ValueError, RecursionError) as error:  # a chunk not JSON, or nested too deep
            raise ModelError(
                f"{self.name}: the stream sent a broken chunk: {shown(error)}"
            ) from None

    def request(self, messages: Sequence[Message], tools: Sequence[Tool]) -> dict[str, Any]:
        """What the endpoint is sent: the system message, then the conversation; the tools;
        a stream, with the usage figures at its end."""
        try:
            sent = [chat_message(message) for message in messages]
        except orjson.JSONEncodeError as error:  # the reader lets through none of these
            raise ModelError(f"{self.name}: the conversation cannot be sent: {error}") from None
        return {
            "model": self.api_model,
            "messages": [system_message(tools), *sent],
            "tools": [chat_tool(tool) for tool in tools],
            "stream": True,
            "stream_options": {"include_usage": True},
        }

    def summary_request(self, conversation: str, earlier: str | None) -> dict[str, Any]:
        """What the endpoint is sent for a summary: the summariser's system message, then one
        user message holding the earlier summary (if any) and the conversation as text. As
        text, not as chat turns: the model reads a conversation to summarise instead of one to
        go on with, and no tool is offered, so no tool call needs its result."""
        parts = []
        if earlier is not None:
            parts.append(f"<earlier-summary>\n{earlier}\n</earlier-summary>")
        parts.append(f"<conversation>\n{conversation}\n</conversation>")
        parts.append(SUMMARY_ASK)
        return {
            "model": self.api_model,
            "messages": [
                {"role": "system", "content": SUMMARY_SYSTEM},
                {"role": "user", "content": "\n\n".join(parts)},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
        }


def read_chunk(reply: Reply, chunk: Any) -> str:
    """`reply.add(chunk)`, any fault of the chunk's shape turned into one ChunkError."""
    try:
        return reply.add(chunk)
    except (AttributeError, TypeError, KeyError, IndexError) as error:
        # The SDK builds chunks without checking them: any field may hold any JSON value.
        # What `add` does not check by name fails here, as one line.
        raise ChunkError(f"a chunk of a shape the API never sends ({error!r})") from None
