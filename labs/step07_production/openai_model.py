"""A real model behind the lab's `Model` interface: any OpenAI-compatible Chat Completions
endpoint (OpenAI, Ollama, vLLM, llama.cpp, LM Studio), through the official `openai` SDK.

Chosen with `--model openai:NAME`. The SDK reads the endpoint from OPENAI_BASE_URL and the key
from OPENAI_API_KEY. Both directions of the mapping live here and in openai_stream.py, and
nowhere else: the lab's messages become chat messages on the way out (here), and the streamed
chunks become one lab assistant message on the way back (openai_stream.py), so the loop, the
session file and the renderer never change. Every fault of the endpoint becomes one
`ModelError`, which ends the turn in one line; the run goes on. `summarize` asks the model for
the summary /compact writes, in a request of its own, and fails the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import closing
from typing import Any
from urllib.parse import unquote, urlsplit

import openai
import orjson

from messages import (
    Message,
    ToolCallBlock,
    history_problem,
    shortened,
    summary_in,
    text_of,
    tool_calls,
)
from model import Done, HistoryRefused, ModelError, ModelEvent, TextDelta, ToolCallEvent
from openai_stream import ChunkError, Deadline, DeadlinePassed, Reply, read_body
from terminal_text import printable
from tools import Tool

KEY_VARIABLE = "OPENAI_API_KEY"
MAX_RETRIES = 1  # the SDK retries a 429, a 5xx or a dropped connection this many times, then fails
TIMEOUT = openai.Timeout(60.0, connect=5.0)  # seconds: to connect, and between two chunks
# The time one reply may take in all, retries included (openai_stream.Deadline): long enough
# for a slow local model to write a long answer, short enough that a stalled one ends.
DEADLINE_VARIABLE = "LAB_REPLY_DEADLINE"
DEADLINE = 300.0
MAX_DEADLINE = 3600.0
SHOWN = 200  # at most this much of an endpoint's error text goes into the error line
# The system message every request starts with. It is the program's, not the conversation's:
# sent first, never saved, so a session file holds only what was said.
SYSTEM = (
    "You are the assistant in a small teaching lab about how a conversation survives the "
    "process that holds it: each message is saved to a session file the moment it ends, and "
    "a later run goes on from there. Answer briefly. For arithmetic, call a tool instead of "
    "working it out yourself. Your tools: {tools}."
)
# What a summary is asked for (summarize): what it must keep, so that "what was the result"
# still answers from it, and how long it may be. Its length is also enforced (MAX_SUMMARY_CHARS).
SUMMARY_SYSTEM = (
    "You summarise a conversation between a user and an assistant, so that the summary can "
    "replace it: the assistant will be given only the summary and what comes after it. Keep "
    "what each user message asked, each tool call with its arguments and its result, the "
    "facts and decisions, and any request still open. If an earlier summary is given, carry "
    "over all of it that still matters: it is all that is left of what came before it."
)
SUMMARY_ASK = "Write the summary now: plain text, at most 300 words, and nothing else."
MAX_SUMMARY_CHARS = 16 * 1024
TRANSCRIPT_WIDTH = 2000  # at most this much of one message is sent to be summarised
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
        one request with no tools, whose whole text is the summary. An earlier summary among
        `messages` is sent apart, to be carried forward (as the scripted models carry its
        lines over): the new summary is all the model will have of what came before.

        Stop here: the summary is a reply like any other, and fails like one (the endpoint's
        faults, the deadline, what the file cannot hold), as one ModelError, before anything
        is written. It is bounded (MAX_SUMMARY_CHARS): a compaction that made the context
        larger would defeat itself.
        """
        reply = Reply(limit=MAX_SUMMARY_CHARS)
        try:
            with closing(self.streamed(self.summary_request(messages), reply)) as texts:
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

    def summary_request(self, messages: Sequence[Message]) -> dict[str, Any]:
        """What the endpoint is sent for a summary: the summariser's system message, then one
        user message holding the earlier summary (if any) and the conversation as text. As
        text, not as chat turns: the model reads a conversation to summarise instead of one to
        go on with, and no tool is offered, so no tool call needs its result."""
        earlier = [summary for m in messages if (summary := summary_in(m)) is not None]
        parts = []
        if earlier:
            parts.append(f"<earlier-summary>\n{earlier[-1]}\n</earlier-summary>")
        said = [m for m in messages if summary_in(m) is None]
        parts.append(f"<conversation>\n{transcript(said)}\n</conversation>")
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


def read_chunk(reply: Reply, chunk: Any) -> str:
    """`reply.add(chunk)`, any fault of the chunk's shape turned into one ChunkError."""
    try:
        return reply.add(chunk)
    except (AttributeError, TypeError, KeyError, IndexError) as error:
        # The SDK builds chunks without checking them: any field may hold any JSON value.
        # What `add` does not check by name fails here, as one line.
        raise ChunkError(f"a chunk of a shape the API never sends ({error!r})") from None


def reply_deadline(model: str) -> float:
    """The seconds one reply may take: LAB_REPLY_DEADLINE if set, else DEADLINE."""
    raw = os.environ.get(DEADLINE_VARIABLE)
    if raw is None:
        return DEADLINE
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1
    if not 0 < seconds <= MAX_DEADLINE:  # NaN is neither
        shown_raw = printable(shortened(repr(raw), 40))
        raise ModelError(
            f"{model}: {DEADLINE_VARIABLE} must be a number of seconds, over 0 and at most "
            f"{MAX_DEADLINE:g}, not {shown_raw}"
        )
    return seconds


def address_shown(url: str) -> str:
    """`url` as an error line may show it: without a user name and password, a query string or
    a fragment, any of which may carry a key (`?key=...`); an error line is often shared."""
    scheme, found, rest = url.partition("://")
    if not found:
        return url
    where, slash, path = rest.partition("/")
    path = path.split("?", 1)[0].split("#", 1)[0]
    return f"{scheme}://{where.rpartition('@')[2]}{slash}{path}"


# Shorter than this, a "secret" is more likely a word of the message than a key: left alone.
SHORTEST_SECRET = 4


def endpoint_secrets() -> list[str]:
    """What no line may show: the key, and what OPENAI_BASE_URL holds beside its address (a
    password, the values of a query string), read where the SDK reads them; longest first."""
    found = [os.environ.get(KEY_VARIABLE, "")]
    try:
        url = urlsplit(os.environ.get("OPENAI_BASE_URL", ""))
        found += [url.password or "", url.username or ""]
    except ValueError:  # no URL the SDK could use either: what it holds is shown nowhere
        url = urlsplit("")
    for pair in url.query.split("&"):
        value = pair.partition("=")[2]
        found += [value, unquote(value)]
    return sorted({s for s in found if len(s) >= SHORTEST_SECRET}, key=len, reverse=True)


def without_secrets(text: str) -> str:
    """`text` with every endpoint secret blanked. Some gateways quote the key they refused in
    their error text (a 401 or 429 body that echoes it), and that text is shown to the user."""
    for secret in endpoint_secrets():
        text = text.replace(secret, "[hidden]")
    return text


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
    """The program's own first message (SYSTEM), naming the tools this run offers."""
    return {"role": "system", "content": SYSTEM.format(tools=", ".join(t.name for t in tools))}


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
    """An endpoint's error text, on one short printable line, with no secret in it (blanked
    before the line is cut short, so no piece of one is left either)."""
    text = without_secrets(" ".join(str(error).split()) or type(error).__name__)
    return printable(shortened(text, SHOWN))
