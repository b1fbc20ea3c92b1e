"""`--model openai:NAME` against a fake Chat Completions endpoint this test starts on 127.0.0.1.

The fake speaks the streaming protocol as the real API does (Server-Sent Events, chunks with
`choices[0].delta`, tool-call arguments split across chunks, `data: [DONE]`) and refuses with
the API's own 400 a history whose tool calls are not all answered. The name after `openai:`
picks what it does (`openai:fault-401`...), so each fault is one real run of main.py, and the
run after it proves nothing was half-saved. No other address is ever used.

The same file is in every step from 02; `--continue` is used where the step has it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson
import pytest

STEP = Path(__file__).resolve().parent.parent
CONTINUES = "--continue" in (STEP / "main.py").read_text(encoding="utf-8")
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
    requests: list[dict[str, Any]]


@pytest.fixture
def endpoint() -> Iterator[Server]:
    server = Server(("127.0.0.1", 0), FakeEndpoint)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def environment(base_url: str | None, key: str | None = "test") -> dict[str, str]:
    """This process's environment, with the endpoint and key set, and no proxy: a request
    must go straight to 127.0.0.1 and nowhere else."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("OPENAI_") and "proxy" not in name.lower()
    }
    env["NO_PROXY"] = "*"
    if base_url is not None:
        env["OPENAI_BASE_URL"] = base_url
    if key is not None:
        env["OPENAI_API_KEY"] = key
    return env


def url(server: Server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def run_main(
    tmp_path: Path, stdin: str, *args: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(STEP / "main.py"), "--session-dir", str(tmp_path / "s"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )


def saved(tmp_path: Path) -> list[dict[str, Any]]:
    """Every entry of every session file, in order (headers left out)."""
    entries = []
    for path in sorted((tmp_path / "s").glob("*.jsonl")):
        entries += [orjson.loads(line) for line in path.read_bytes().splitlines()[1:]]
    return entries


def saved_messages(tmp_path: Path) -> list[dict[str, Any]]:
    return [entry["message"] for entry in saved(tmp_path) if entry["type"] == "message"]


def test_a_turn_with_a_tool_call_streams_through_the_endpoint(
    tmp_path: Path, endpoint: Server
) -> None:
    done = run_main(
        tmp_path, "what is 12*8\n", "--model", "openai:good", env=environment(url(endpoint))
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert "(model openai:good)" in lines[0] or "switched to openai:good" in lines
    assert "assistant> Let me use calc." in lines
    assert '[tool call] calc {"expression":"12*8"}' in lines
    assert "[tool result] calc -> 96" in lines
    assert "assistant> The answer is 96." in lines

    user, call, result, answer = saved_messages(tmp_path)
    assert user == {"role": "user", "content": [{"type": "text", "text": "what is 12*8"}]}
    assert call == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me use calc."},
            {
                "type": "toolCall",
                "id": "call_f1",
                "name": "calc",
                "arguments": {"expression": "12*8"},
            },
        ],
        "stopReason": "toolUse",
    }
    assert result["toolCallId"] == "call_f1" and result["content"][0]["text"] == "96"
    assert answer["content"] == [{"type": "text", "text": "The answer is 96."}]
    assert answer["stopReason"] == "stop"

    # What the endpoint was sent: the model's name, the key, calc as a function, and on the
    # second call the tool call (arguments as a JSON string) and its answer, paired by id.
    first, second = endpoint.requests
    assert first["auth"] == "Bearer test"
    assert first["body"]["model"] == "good" and first["body"]["stream"] is True
    (tool,) = first["body"]["tools"]
    assert tool["function"]["name"] == "calc"
    assert tool["function"]["parameters"] == {
        "type": "object",
        "properties": {"expression": {"type": "string"}},
        "required": ["expression"],
    }
    assert second["body"]["messages"][1:] == [
        {
            "role": "assistant",
            "content": "Let me use calc.",
            "tool_calls": [
                {
                    "id": "call_f1",
                    "type": "function",
                    "function": {"name": "calc", "arguments": '{"expression": "12*8"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_f1", "content": "96"},
    ]


def test_without_a_key_one_error_line_before_any_file(tmp_path: Path, endpoint: Server) -> None:
    done = run_main(
        tmp_path, "hello\n", "--model", "openai:good", env=environment(url(endpoint), key=None)
    )
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: ") and "OPENAI_API_KEY" in line
    assert "session file" not in done.stdout
    assert not (tmp_path / "s").exists()
    assert endpoint.requests == []


def test_an_unknown_model_name_is_one_error_line(tmp_path: Path) -> None:
    done = run_main(tmp_path, "hello\n", "--model", "gpt", env=environment(None))
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("error: ") and "openai:NAME" in line


def test_the_scripted_default_never_imports_the_sdk(tmp_path: Path) -> None:
    probe = (
        f"import sys; sys.path.insert(0, {str(STEP)!r}); import main, model; "
        "model.MODELS['scripted-v1']; print('openai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_the_fake_refuses_unanswered_tool_calls_as_the_api_does(endpoint: Server) -> None:
    """The fake's own check, proved: a model that sent this would get the API's 400."""
    import openai

    client = openai.OpenAI(base_url=url(endpoint), api_key="test", max_retries=0)
    call = {"id": "call_x", "type": "function", "function": {"name": "calc", "arguments": "{}"}}
    with pytest.raises(openai.BadRequestError, match="call_x"):
        client.chat.completions.create(
            model="good",
            messages=[
                {"role": "user", "content": "what is 1+1"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "user", "content": "hello"},
            ],
            stream=True,
        )


def refused_port() -> int:
    """A port on 127.0.0.1 with nothing listening: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


FAULTS = {
    "fault-401": "HTTP 401",
    "fault-429": "HTTP 429",
    "fault-500": "HTTP 500",
    "fault-malformed": "broken chunk",
    "fault-cut-arguments": "broke off",
    "fault-empty-stream": "broke off",
    "fault-no-finish": "broke off",
    "fault-error-event": "The server had an error.",
    "refused": "no answer from",
}


# The model is a layer, the same file in every step (tests/test_shared_layers.py): the last
# step tries every fault through its main.py, each other step one (about 2 s a fault).
TRIED = sorted(FAULTS) if STEP.name.startswith("step05") else ["fault-cut-arguments"]
# The next run is tried after one fault of each kind (a status, a stream cut, no connection):
# nothing of any fault was half-saved (checked above), so what follows is the same.
AFTER = ("fault-401", "fault-cut-arguments", "refused")


@pytest.mark.parametrize("fault", TRIED)
def test_a_fault_is_one_error_line_and_the_next_run_works(
    tmp_path: Path, endpoint: Server, fault: str
) -> None:
    base = f"http://127.0.0.1:{refused_port()}/v1" if fault == "refused" else url(endpoint)
    line = "what is 12*8\n" if fault == "fault-cut-arguments" else "hello\n"
    done = run_main(tmp_path, line, "--model", f"openai:{fault}", env=environment(base))
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    (error,) = done.stderr.splitlines()
    assert error.startswith(f"error: openai:{fault}: ") and FAULTS[fault] in error, error
    # Nothing half-saved: the user's line may stay, but no reply that broke off.
    assert [m["role"] for m in saved_messages(tmp_path)] in ([], ["user"])
    if fault in ("fault-429", "fault-500"):
        assert len(endpoint.requests) == 2  # the SDK retried once, then gave up

    if fault not in AFTER:
        return
    again = ["--continue"] if CONTINUES else []
    after = run_main(
        tmp_path, "hello\n", *again, "--model", "openai:good", env=environment(url(endpoint))
    )
    assert after.returncode == 0, after.stderr
    assert "assistant> Hello from good." in after.stdout.splitlines()
    assert [m["role"] for m in saved_messages(tmp_path)][-2:] == ["user", "assistant"]


SWITCHES = "/model" in (STEP / "commands.py").read_text(encoding="utf-8")


@pytest.mark.skipif(not SWITCHES, reason="this step has no /model command (step 04 adds it)")
def test_a_switch_to_an_openai_model_is_recorded_and_restored(
    tmp_path: Path, endpoint: Server
) -> None:
    env = environment(url(endpoint))
    done = run_main(tmp_path, "/model openai:good\nhello\n", env=env)
    assert done.returncode == 0, done.stderr
    assert "switched to openai:good" in done.stdout.splitlines()
    switches = [entry["model"] for entry in saved(tmp_path) if entry["type"] == "model_change"]
    assert switches == ["openai:good"]

    again = run_main(tmp_path, "hello\n", "--continue", env=env)
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    assert "model openai:good)" in lines[0]
    assert lines.count("assistant> Hello from good.") == 1
    assert [request["body"]["model"] for request in endpoint.requests] == ["good", "good"]


@pytest.mark.skipif(not SWITCHES, reason="this step has no /model command (step 04 adds it)")
def test_without_a_key_a_switch_is_refused_and_a_recorded_model_fails_before_any_turn(
    tmp_path: Path, endpoint: Server
) -> None:
    """`/model openai:NAME` without a key used to be recorded, and the turn after it failed; a
    session recorded with one resumed, and failed at the first question typed."""
    keyless = environment(url(endpoint), key=None)
    done = run_main(tmp_path, "hello\n/model openai:good\n", env=keyless)
    assert done.returncode == 0, done.stderr
    assert any("needs OPENAI_API_KEY" in line for line in done.stdout.splitlines())
    assert [entry["type"] for entry in saved(tmp_path)] == ["message", "message"]  # no switch

    keyed = environment(url(endpoint))
    switched = run_main(tmp_path, "/model openai:good\n", "--continue", env=keyed)
    assert switched.returncode == 0, switched.stderr
    again = run_main(tmp_path, "what is 2+3\n", "--continue", env=keyless)
    assert again.returncode == 1
    (error,) = again.stderr.splitlines()
    assert "needs OPENAI_API_KEY" in error
    assert "assistant>" not in again.stdout and endpoint.requests == []  # before any turn
