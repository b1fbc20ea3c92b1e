"""A fake OpenAI-compatible Chat Completions endpoint on 127.0.0.1, for tests and for trying
`--model openai:NAME` without a key or a network.

It speaks the streaming protocol as the real API does: Server-Sent Events, chunks with
`choices[0].delta`, tool-call arguments split across chunks by index, `data: [DONE]`. Like the
real API it refuses, with its own 400, a history whose tool calls are not all answered. The
model name picks the behaviour: `good` answers, `fault-401`, `fault-cut-arguments`... each
produce one fault a real endpoint produces (see `FakeEndpoint.do_POST`).

    python tests/fake_endpoint.py      serves until Ctrl-C and prints the OPENAI_BASE_URL to use
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)


def unanswered_ids(messages: list[dict[str, Any]]) -> list[str]:
    """The API's own check: each tool call is answered by a tool message right after it."""
    for index, message in enumerate(messages):
        calls = [call["id"] for call in message.get("tool_calls") or []]
        answered = set()
        for later in messages[index + 1 :]:
            if later["role"] != "tool":
                break
            answered.add(later["tool_call_id"])
        if missing := [call for call in calls if call not in answered]:
            return missing
    return []


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def text_chunks(text: str, finish: str | None = "stop") -> list[dict[str, Any]]:
    """The text in pieces of a few characters, as a model streams it, then the finish."""
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    return [chunk({"role": "assistant", "content": piece}) for piece in pieces] + (
        [chunk({}, finish)] if finish else []
    )


def call_chunks(expression: str) -> list[dict[str, Any]]:
    """A calc call whose arguments arrive in three pieces, by index, the id and name first."""
    arguments = json.dumps({"expression": expression})
    first = {"index": 0, "id": "call_f1", "type": "function", "function": {"name": "calc"}}
    pieces = [arguments[:6], arguments[6:15], arguments[15:]]
    return text_chunks("Let me use calc.", finish=None) + [
        chunk({"tool_calls": [first]}),
        *[chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces],
        chunk({}, "tool_calls"),
    ]


class FakeEndpoint(BaseHTTPRequestHandler):
    """POST /v1/chat/completions, streamed. The model name says how to answer."""

    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"body": body, "auth": self.headers["Authorization"]})
        if missing := unanswered_ids(body["messages"]):
            return self.error(400, UNANSWERED.format(ids=", ".join(missing)))
        name, last = body["model"], body["messages"][-1]
        if name == "fault-401":
            return self.error(401, "Incorrect API key provided: test.")
        if name in ("fault-429", "fault-500"):
            return self.error(int(name[-3:]), "Try again later.")
        if name == "fault-empty-stream":  # the stream is cut before it starts
            return self.stream([], done=False)
        if name == "fault-redirect":  # to another path here: a followed redirect shows
            return self.redirect("/v1/elsewhere/chat/completions")
        if name == "fault-endless-line":  # one event with no end: 17 MiB, and no blank line
            return self.stream([], done=False, raw=b"data: " + b"x" * (17 * 1024 * 1024))
        if name == "fault-huge-reply":  # a reply of more text than a session line may hold
            piece = chunk({"role": "assistant", "content": "x" * 65536})
            return self.stream([piece] * 65 + [chunk({}, "stop")])  # 4,259,840 characters
        if name == "fault-odd-chunk":  # valid JSON, but a number where the text belongs
            return self.stream([chunk({"role": "assistant", "content": 42}), chunk({}, "stop")])
        if name == "fault-call-id-number":  # a tool call whose id is a number
            call = {"index": 0, "id": 42, "type": "function", "function": {"name": "calc"}}
            arguments = {"index": 0, "function": {"arguments": '{"expression": "12*8"}'}}
            calls = [chunk({"tool_calls": [call]}), chunk({"tool_calls": [arguments]})]
            return self.stream(calls + [chunk({}, "tool_calls")])
        if last["role"] == "tool":
            return self.stream(text_chunks(f"The answer is {last['content']}."))
        if "*" in last["content"]:
            chunks = call_chunks(last["content"].split()[-1])
            if name == "fault-cut-arguments":  # the connection drops inside the arguments
                return self.stream(chunks[:-2], done=False)
            return self.stream(chunks)
        chunks = text_chunks(f"Hello from {name}.")
        if name == "fault-malformed":
            return self.stream(chunks[:1], raw=b'data: {"choices": [{"delta": \n\n')
        if name == "fault-no-finish":
            return self.stream(chunks[:-1])  # [DONE] follows, but no finish_reason ever came
        if name == "fault-error-event":
            error = {"error": {"message": "The server had an error.", "type": "server_error"}}
            return self.stream(chunks[:1] + [error])
        return self.stream(chunks)

    def error(self, status: int, message: str) -> None:
        """The API's error body; a 429 or 5xx says when to retry (soon: tests stay quick)."""
        data = orjson.dumps({"error": {"message": message, "type": "invalid_request_error"}})
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("retry-after-ms", "10")
        self.end_headers()
        self.wfile.write(data)

    def redirect(self, location: str) -> None:
        self.send_response(307)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def stream(self, events: list[dict[str, Any]], done: bool = True, raw: bytes = b"") -> None:
        """Server-Sent Events until the connection closes (no length: the end is the close)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(b"data: " + orjson.dumps(event) + b"\n\n")
            self.wfile.flush()
        self.wfile.write(raw + (b"data: [DONE]\n\n" if done else b""))
        self.close_connection = True


class Server(ThreadingHTTPServer):
    """The fake, serving in a thread of this process; `requests` is what it was sent."""

    requests: list[dict[str, Any]]

    @property
    def base_url(self) -> str:
        """The OPENAI_BASE_URL that reaches it."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def start(port: int = 0) -> Server:
    """Serve on 127.0.0.1 (any free port unless one is given), in a daemon thread."""
    server = Server(("127.0.0.1", port), FakeEndpoint)
    server.requests = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    served = start()
    print(
        f"OPENAI_BASE_URL={served.base_url} OPENAI_API_KEY=any python main.py --model openai:good"
    )
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        served.stop()
