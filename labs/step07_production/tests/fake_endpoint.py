"""A fake OpenAI-compatible Chat Completions endpoint on 127.0.0.1, for tests and for trying
`--model openai:NAME` without a key or a network.

It streams as real endpoints do: Server-Sent Events in a chunked body, a `: ping` keep-alive
comment before the first chunk and before the end, chunks with `choices[0].delta`, the role in
the first delta only, tool-call arguments split across chunks by index, the finish reason in a
chunk of its own, a last chunk with the usage figures and no choices when the request asks for
it (`stream_options.include_usage`), then `data: [DONE]`. Like the real API it refuses, with
its own 400, a history whose tool calls are not all answered.

The model name picks the behaviour: `good` answers; `fault-401`, `fault-cut-arguments`... each
produce one fault a real endpoint produces, `odd-no-index`... one odd but real shape, and
`slow-pings`... a reply that never ends (see `FakeEndpoint.answer`). For the model `good`, a
user line whose first word names a behaviour (`fault-429`, `odd-not-streamed what is 12*8`)
picks it for that turn alone, so one run can meet a fault and go on. A request for a summary
(/compact: one without tools) is answered with one, made of the lines it was sent, unless a
test sets `Server.summary_behaviour` to a fault.

    python tests/fake_endpoint.py      serves until Ctrl-C, and prints a command that talks to it
"""

from __future__ import annotations

import json
import shlex
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson

UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
PREFIXES = ("fault-", "odd-", "slow-")  # the first word of a line that picks a behaviour
SLOW_SECONDS = 30  # how long a `slow-` reply goes on before it gives up (a test ends it first)
# Valid JSON the lab's writer cannot write, or that is not quite JSON, as a call's arguments.
HOSTILE_ARGUMENTS = {
    "fault-big-int": '{"expression": 18446744073709551616}',  # one over 64 bits
    "fault-nan": '{"expression": NaN}',  # Python's json reads it; JSON has no NaN
    "fault-infinity": '{"expression": 1e400}',  # a float too large: infinity
    "fault-deep-arguments": '{"expression": ' + "[" * 990 + "]" * 990 + "}",
}


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


def behaviour_of(body: dict[str, Any]) -> str:
    """The model's name; for `good`, the first word of the last user line, if it names one."""
    name = body["model"]
    if name != "good":
        return name
    users = [m for m in body["messages"] if m["role"] == "user"]
    words = str(users[-1]["content"]).split() if users else []
    return words[0] if words and words[0].startswith(PREFIXES) else name


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def text_chunks(text: str, finish: str | None = "stop") -> list[dict[str, Any]]:
    """The text in pieces of a few characters, as a model streams it, the role in the first
    piece only; then the finish, in a chunk of its own."""
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    chunks = [chunk({"content": piece}) for piece in pieces]
    chunks[0]["choices"][0]["delta"]["role"] = "assistant"
    return chunks + ([chunk({}, finish)] if finish else [])


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


def tool_call_pieces(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        piece
        for each in chunks
        for choice in each["choices"]
        for piece in choice["delta"].get("tool_calls", [])
    ]


def without_index(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool-call pieces with no `index` (some local servers send none)."""
    for piece in tool_call_pieces(chunks):
        del piece["index"]
    return chunks


def name_in_every_piece(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The call's id and whole name repeated in every piece (some servers do)."""
    for piece in tool_call_pieces(chunks):
        piece["id"] = "call_f1"
        piece.setdefault("function", {})["name"] = "calc"
    return chunks


def completion_of(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The chunks put together as the one JSON completion a server that ignores `stream`
    answers with: `message` instead of `delta`, the tool calls whole and without `index`."""
    content, calls, finish = [], {}, None
    for each in chunks:
        for choice in each["choices"]:
            content.append(choice["delta"].get("content") or "")
            finish = choice["finish_reason"] or finish
        for piece in tool_call_pieces([each]):
            function = {"name": "", "arguments": ""}
            call = calls.setdefault(piece["index"], {"type": "function", "function": function})
            call.setdefault("id", piece.get("id"))
            for part in ("name", "arguments"):
                call["function"][part] += piece.get("function", {}).get(part, "")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def between(text: str, start: str, end: str) -> str:
    return text.partition(start)[2].partition(end)[0]


def summary_of(body: dict[str, Any]) -> str:
    """What the fake writes when asked for a summary: the earlier summary's lines carried
    forward, then a line for each user line and each tool result of the conversation."""
    asked = body["messages"][-1]["content"]
    lines = between(asked, "<earlier-summary>\n", "\n</earlier-summary>").splitlines()
    for line in between(asked, "<conversation>\n", "\n</conversation>").splitlines():
        if line.startswith("[user] "):
            lines.append(f"- asked: {line.removeprefix('[user] ')}")
        elif line.startswith("[calc result] "):
            lines.append(f"- calc -> {line.removeprefix('[calc result] ')}")
    return "\n".join(lines) or "- nothing was said"


def usage_of(body: dict[str, Any], chunks: list[dict[str, Any]]) -> dict[str, int]:
    """Made-up but deterministic token counts: about four characters a token."""
    prompt = len(orjson.dumps(body["messages"])) // 4
    completion = 1 + len(orjson.dumps(chunks)) // 40
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


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
        try:
            self.answer(behaviour_of(body), body)
        except OSError:  # the client went away (a deadline, a Ctrl-C): nothing to answer
            self.close_connection = True

    def answer(self, behaviour: str, body: dict[str, Any]) -> None:
        name, last = body["model"], body["messages"][-1]
        if "tools" not in body:  # a summary: openai_model.summarize offers no tools
            behaviour = self.server.summary_behaviour
            if behaviour == "summary":
                return self.stream(text_chunks(summary_of(body)), usage=body)
            if behaviour == "fault-empty-summary":
                return self.stream(
                    [chunk({"role": "assistant", "content": " "}), chunk({}, "stop")]
                )
            if behaviour == "fault-call-not-summary":  # a tool call, though none was offered
                return self.stream(call_chunks("1+1"))
        if behaviour == "fault-401":
            return self.error(401, "Incorrect API key provided: test.")
        if behaviour in ("fault-401-echo", "fault-429-echo"):  # as some gateways do
            key = (self.headers["Authorization"] or "").removeprefix("Bearer ")
            why = f"Key {key} refused for {self.path}."
            return self.error(int(behaviour[6:9]), why)
        if behaviour in ("fault-429", "fault-500"):
            return self.error(int(behaviour[-3:]), "Try again later.")
        if behaviour == "fault-empty-stream":  # the stream is cut before it starts
            return self.stream([], done=False, chunked=False)
        if behaviour == "fault-redirect":  # to another path here: a followed redirect shows
            return self.redirect("/v1/elsewhere/chat/completions")
        if behaviour == "fault-endless-line":  # one event with no end: 17 MiB, and no blank line
            return self.stream([b"data: " + b"x" * (17 * 1024 * 1024)], done=False)
        if behaviour == "fault-huge-reply":  # a reply of more text than a session line may hold
            piece = chunk({"role": "assistant", "content": "x" * 65536})
            return self.stream([piece] * 65 + [chunk({}, "stop")])  # 4,259,840 characters
        if behaviour == "fault-odd-chunk":  # valid JSON, but a number where the text belongs
            return self.stream([chunk({"role": "assistant", "content": 42}), chunk({}, "stop")])
        if behaviour == "fault-call-id-number":  # a tool call whose id is a number
            call = {"index": 0, "id": 42, "type": "function", "function": {"name": "calc"}}
            arguments = {"index": 0, "function": {"arguments": '{"expression": "12*8"}'}}
            calls = [chunk({"tool_calls": [call]}), chunk({"tool_calls": [arguments]})]
            return self.stream(calls + [chunk({}, "tool_calls")])
        if behaviour == "fault-cut-arguments":  # the connection drops inside the arguments
            return self.stream(call_chunks("12*8")[:-2], done=False)
        if behaviour == "fault-endless-calls":  # a model that never stops asking for a tool
            return self.stream(call_chunks("1+1"), usage=body)
        if behaviour.startswith("slow-"):
            return self.never_ending(behaviour)
        if behaviour in HOSTILE_ARGUMENTS and last["role"] != "tool":
            call = {"index": 0, "id": "call_h1", "type": "function", "function": {"name": "calc"}}
            call["function"]["arguments"] = HOSTILE_ARGUMENTS[behaviour]
            return self.stream([chunk({"tool_calls": [call]}), chunk({}, "tool_calls")])
        if behaviour == "fault-split-surrogate":  # one emoji as two halves, in two chunks
            event = b'data: {"choices":[{"index":0,"delta":{"content":"\\u%s"}}]}\n\n'
            halves = [event % half for half in (b"d83d", b"de00")]
            return self.stream([*halves, chunk({}, "stop")])
        if behaviour == "fault-huge-name" and last["role"] != "tool":  # a tool no one has
            pieces = [
                {"index": 0, "function": {"name": code * 1024 * 1024}} for code in "\x01\x02\x03"
            ]
            pieces[0] |= {"id": "call_n1", "type": "function"}  # 3 Mi control characters in all
            calls = [chunk({"tool_calls": [piece]}) for piece in pieces]
            return self.stream([*calls, chunk({}, "tool_calls")])
        if last["role"] == "tool":
            chunks = text_chunks(f"The answer is {last['content']}.")
        elif "*" in last["content"]:
            chunks = call_chunks(last["content"].split()[-1])
        else:
            chunks = text_chunks(f"Hello from {name}.")
        if behaviour == "fault-malformed":
            return self.stream(chunks[:1] + [b'data: {"choices": [{"delta": \n\n'])
        if behaviour == "fault-no-finish":
            return self.stream(chunks[:-1])  # [DONE] follows, but no finish_reason ever came
        if behaviour == "fault-error-event":
            error = {"error": {"message": "The server had an error.", "type": "server_error"}}
            return self.stream(chunks[:1] + [error])
        if behaviour == "odd-no-index":
            return self.stream(without_index(chunks), usage=body)
        if behaviour == "odd-repeated-name":
            return self.stream(name_in_every_piece(chunks), usage=body)
        if behaviour == "odd-not-streamed":
            return self.whole(completion_of(chunks) | {"usage": usage_of(body, chunks)})
        if behaviour == "fault-json-array":  # a mock server's whole reply: its words, in a list
            return self.whole(["Hello", " from", f" {name}."])
        return self.stream(chunks, usage=body)

    def never_ending(self, behaviour: str) -> None:
        """A reply that starts, then sends only what keeps a connection alive: comments
        (`slow-pings`), chunks with an empty delta or with no choices. Ended by the client."""
        self.start_stream()
        self.send_bytes(self.event(chunk({"role": "assistant", "content": "Let me think."})))
        keep_alive = {
            "slow-pings": b": ping\n\n",
            "slow-empty-deltas": self.event(chunk({})),
            "slow-empty-choices": self.event({"id": "chatcmpl-1", "choices": []}),
        }[behaviour]
        ends = time.monotonic() + SLOW_SECONDS
        while time.monotonic() < ends:
            time.sleep(0.05)
            self.send_bytes(keep_alive)
        self.close_connection = True

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

    def whole(self, completion: Any) -> None:
        """One JSON completion, as a server that ignores `stream` answers."""
        data = orjson.dumps(completion)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(
        self,
        events: list[dict[str, Any] | bytes],
        done: bool = True,
        chunked: bool = True,
        usage: dict[str, Any] | None = None,
    ) -> None:
        """Server-Sent Events: a dict is one chunk, bytes go as they are. Chunked, as real
        endpoints send them; a body cut short (`done=False`) then lacks its last, empty
        chunk, which is how a client knows it was cut. Unchunked, the end is the close.
        With `usage` (the request) the usage chunk follows the last one, if it asked."""
        self.start_stream(chunked)
        if chunked:
            self.send_bytes(b": ping\n\n")
        for event in events:
            self.send_bytes(event if isinstance(event, bytes) else self.event(event))
        if usage is not None and (usage.get("stream_options") or {}).get("include_usage"):
            chunks = [event for event in events if isinstance(event, dict)]
            figures = {"id": "chatcmpl-1", "choices": [], "usage": usage_of(usage, chunks)}
            self.send_bytes(self.event(figures))
        if done:
            self.send_bytes(b": ping\n\ndata: [DONE]\n\n")
            if chunked:
                self.wfile.write(b"0\r\n\r\n")  # the last chunk: the body is whole
        self.close_connection = True

    def start_stream(self, chunked: bool = True) -> None:
        self.chunked = chunked
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
        self.end_headers()

    def send_bytes(self, data: bytes) -> None:
        """Some bytes of the body, as one HTTP chunk if the body is chunked."""
        if self.chunked:
            data = b"%x\r\n%s\r\n" % (len(data), data)
        self.wfile.write(data)
        self.wfile.flush()

    @staticmethod
    def event(data: dict[str, Any]) -> bytes:
        return b"data: " + orjson.dumps(data) + b"\n\n"


class Server(ThreadingHTTPServer):
    """The fake, serving in a thread of this process; `requests` is what it was sent."""

    requests: list[dict[str, Any]]
    # How a summary request (no tools) is answered: "summary", or a behaviour of the model's
    # (`fault-500`, `slow-pings`...), so a test can fail the summary alone.
    summary_behaviour: str

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
    server.summary_behaviour = "summary"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def command_line(base_url: str) -> str:
    """A shell command that runs this step's main.py against the fake: with this Python (the
    one that has the step's requirements) and main.py's whole path, so it works from any
    folder, in a shell whose `python` is another one."""
    main = Path(__file__).resolve().parent.parent / "main.py"
    program = f"{shlex.quote(sys.executable)} {shlex.quote(str(main))}"
    where = f"OPENAI_BASE_URL={base_url} OPENAI_API_KEY=any NO_PROXY=127.0.0.1"  # no proxy
    return f"{where} {program} --model openai:good"


if __name__ == "__main__":
    served = start()
    print(command_line(served.base_url), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        served.stop()
