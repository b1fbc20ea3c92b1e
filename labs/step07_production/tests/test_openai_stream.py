"""The real model as a reader meets it: the odd but real shapes endpoints stream, the usage
figures, the system message, the one deadline of a reply, and replies the session file cannot
hold. Each through main.py against the fake endpoint (`fake_endpoint.py`, on 127.0.0.1), whose
model `good` takes a fault or a shape from the first word of the line typed, for that turn.
"""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from fake_endpoint import Server
from harness import write_session
from openai.types.chat import ChatCompletionChunk
from test_openai_model import endpoint, environment, run_main, saved_messages

__all__ = ["endpoint"]  # the fixture, shared with test_openai_model.py


def texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"][0]["text"] for m in messages if m["content"] and "text" in m["content"][0]]


# --- What the fake streams is what real endpoints stream ------------------------------------


def test_the_fake_streams_as_real_endpoints_do(endpoint: Server) -> None:
    """A chunked body with `: ping` comments, the role in the first delta only, the finish in
    a chunk of its own, and the usage chunk (no choices) when the request asks for it."""
    connection = http.client.HTTPConnection("127.0.0.1", endpoint.server_address[1], timeout=10)
    body = {
        "model": "good",
        "messages": [{"role": "user", "content": "hello"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    connection.request("POST", "/v1/chat/completions", json.dumps(body))
    response = connection.getresponse()
    assert response.getheader("Transfer-Encoding") == "chunked"
    raw = response.read()  # http.client joins the chunks
    assert raw.startswith(b": ping\n\n")
    events = [
        line.removeprefix(b"data: ") for line in raw.split(b"\n\n") if line.startswith(b"data")
    ]
    assert events[-1] == b"[DONE]"
    chunks = [orjson.loads(event) for event in events[:-1]]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert [("role" in delta) for delta in deltas] == [True] + [False] * (len(deltas) - 1)
    assert deltas[-1] == {} and chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and set(chunks[-1]["usage"]) == {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
    }


# --- Odd but real shapes: read ---------------------------------------------------------------


@pytest.mark.parametrize("shape", ["odd-no-index", "odd-repeated-name", "odd-not-streamed"])
def test_an_odd_but_real_stream_shape_is_read(tmp_path: Path, endpoint: Server, shape: str) -> None:
    """A tool call without `index` (it used to end the run: "`index` is not a whole number"),
    a name sent whole in every piece (it became `calccalccalccalc`, an unknown tool), one JSON
    completion from a server that ignores `stream` (it was "the reply broke off")."""
    env = environment(endpoint.base_url)
    done = run_main(tmp_path, f"{shape} what is 12*8\n", "--model", "openai:good", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert '[tool call] calc {"expression":"12*8"}' in lines
    assert "[tool result] calc -> 96" in lines and "assistant> The answer is 96." in lines
    user, call, result, answer = saved_messages(tmp_path)
    [block] = [b for b in call["content"] if b["type"] == "toolCall"]
    assert (block["name"], block["arguments"]) == ("calc", {"expression": "12*8"})
    assert result["toolCallId"] == block["id"] and not result["isError"]


def chunk_of(**delta: Any) -> ChatCompletionChunk:
    """A chunk as the SDK builds it from the wire: unchecked, as `construct` makes it."""
    from openai._models import construct_type

    value = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    value["choices"] = [{"index": 0, "delta": delta, "finish_reason": delta.pop("finish", None)}]
    return construct_type(type_=ChatCompletionChunk, value=value)  # type: ignore[return-value]


def test_pieces_without_index_go_on_with_their_call_or_start_the_next_by_id() -> None:
    """Two calls streamed without `index`: a piece that brings a new id starts the next call;
    one without an id goes on with the call before it."""
    from openai_stream import Reply

    reply = Reply()
    for delta in [
        {"tool_calls": [{"id": "a", "function": {"name": "calc", "arguments": '{"expression"'}}]},
        {"tool_calls": [{"function": {"arguments": ': "1+1"}'}}]},
        {"tool_calls": [{"id": "b", "function": {"name": "calc", "arguments": "{"}}]},
        {"tool_calls": [{"id": "b", "function": {"arguments": '"expression": "2+2"}'}}]},
        {"finish": "tool_calls"},
    ]:
        reply.add(chunk_of(**delta))
    calls = [block for block in reply.finished("m")["content"] if block["type"] == "toolCall"]
    assert [(c["id"], c["name"], c["arguments"]) for c in calls] == [
        ("a", "calc", {"expression": "1+1"}),
        ("b", "calc", {"expression": "2+2"}),
    ]


def test_a_name_in_pieces_is_joined_and_a_name_repeated_is_one_name() -> None:
    from openai_stream import Reply

    split, repeated = Reply(), Reply()
    for piece in ["ca", "lc"]:
        split.add(chunk_of(tool_calls=[{"index": 0, "function": {"name": piece}}]))
    for _ in range(4):
        repeated.add(chunk_of(tool_calls=[{"index": 0, "function": {"name": "calc"}}]))
    for reply in (split, repeated):
        reply.add(chunk_of(finish="tool_calls"))
        assert reply.finished("m")["content"][1]["name"] == "calc"  # type: ignore[typeddict-item]


# --- What is sent: the system message first, usage asked for; what is saved: the same JSON ---


def test_a_system_message_goes_first_and_is_never_saved(tmp_path: Path, endpoint: Server) -> None:
    done = run_main(
        tmp_path, "what is 12*8\n", "--model", "openai:good", env=environment(endpoint.base_url)
    )
    assert done.returncode == 0, done.stderr
    for request in endpoint.requests:  # two: the call, then the answer to its result
        first, second = request["body"]["messages"][:2]
        assert first["role"] == "system" and "calc" in first["content"]
        assert second == {"role": "user", "content": "what is 12*8"}
    assert len(endpoint.requests) == 2
    assert all(message["role"] != "system" for message in saved_messages(tmp_path))
    from openai_request import SYSTEM

    [path] = (tmp_path / "s").glob("*.jsonl")
    assert SYSTEM[:40].encode() not in path.read_bytes()


def test_usage_is_asked_for_and_recorded_on_each_assistant_message(
    tmp_path: Path, endpoint: Server
) -> None:
    done = run_main(
        tmp_path, "what is 12*8\n", "--model", "openai:good", env=environment(endpoint.base_url)
    )
    assert done.returncode == 0, done.stderr
    assert [r["body"]["stream_options"] for r in endpoint.requests] == [{"include_usage": True}] * 2
    answers = [m for m in saved_messages(tmp_path) if m["role"] == "assistant"]
    assert len(answers) == 2
    for answer in answers:
        usage = answer["usage"]
        assert set(usage) == {"input", "output", "totalTokens"}
        assert usage["input"] > 0 and usage["input"] + usage["output"] == usage["totalTokens"]
    assert answers[1]["usage"]["input"] > answers[0]["usage"]["input"]  # a longer context
    # Recorded, never sent back: the endpoint gets the conversation, not the bill.
    assert all("usage" not in m for m in endpoint.requests[1]["body"]["messages"])


def test_what_is_sent_is_what_is_saved(tmp_path: Path, endpoint: Server) -> None:
    """A call's arguments go back to the endpoint as the JSON the session file holds, byte
    for byte (they used to be json.dumps'ed: another spacing, and NaN where the file had null)."""
    env = environment(endpoint.base_url)
    assert run_main(tmp_path, "what is 12*8\n", "--model", "openai:good", env=env).returncode == 0
    [path] = (tmp_path / "s").glob("*.jsonl")
    saved_call = next(line for line in path.read_bytes().splitlines() if b'"toolCall"' in line)
    sent = endpoint.requests[1]["body"]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert f'"arguments":{sent}'.encode() in saved_call


# --- What the session file cannot hold: refused as the model's fault, in one line ------------

UNWRITABLE = {
    "fault-big-int": "an integer over 64 bits",
    "fault-split-surrogate": "half of a character",
    "fault-nan": "arguments that are not JSON (NaN)",
    "fault-infinity": "arguments that are not JSON (1e400 is too large for a number)",
    "fault-deep-arguments": "arguments nested over 200 levels deep",
}


@pytest.mark.parametrize("fault", sorted(UNWRITABLE))
def test_a_reply_the_file_cannot_hold_ends_the_turn_in_one_line(
    tmp_path: Path, endpoint: Server, fault: str
) -> None:
    """It used to be "cannot write <file>" (the run ended, and steps 02 to 04 lost the turn
    shown as ended), or, for NaN, `null` in the file and `NaN` in the next request."""
    env = environment(endpoint.base_url)
    typed = f"hello\n{fault}\nhello again\n"
    done = run_main(tmp_path, typed, "--model", "openai:good", env=env)
    assert done.returncode == 0, done.stderr
    (error,) = done.stderr.splitlines()
    assert error.startswith("error: openai:good: ") and UNWRITABLE[fault] in error, error
    assert done.stdout.count("assistant> Hello from good.") == 2
    # Every finished turn saved; of the reply that failed, nothing.
    roles = [m["role"] for m in saved_messages(tmp_path)]
    assert roles == ["user", "assistant", "user", "user", "assistant"]
    assert texts(saved_messages(tmp_path))[2:4] == [fault, "hello again"]


def test_arguments_nested_deeper_than_can_be_sent_are_refused_when_the_file_is_read(
    tmp_path: Path, endpoint: Server
) -> None:
    """orjson reads 1,024 levels but writes 254. A file's tool call nested 1,000 deep was
    accepted, then every real-model turn failed ("maximum recursion depth exceeded") before
    a request was sent. Now that line is damage, skipped and counted, and the turn is sent."""
    folder = tmp_path / "s"
    deep = b"[" * 1000 + b"]" * 1000
    lines = [
        b'{"type":"message","id":"e1","parentId":null,"message":{"role":"user","content":'
        b'[{"type":"text","text":"what is 1+1"}]}}',
        b'{"type":"message","id":"e2","parentId":"e1","message":{"role":"assistant","content":'
        b'[{"type":"toolCall","id":"c1","name":"calc","arguments":{"e":' + deep + b"}}],"
        b'"stopReason":"toolUse"}}',
        b'{"type":"message","id":"e3","parentId":"e2","message":{"role":"toolResult",'
        b'"toolCallId":"c1","toolName":"calc","content":[{"type":"text","text":"2"}],'
        b'"isError":false}}',
    ]
    write_session(folder, b"\n".join(lines) + b"\n", name="x.jsonl")
    done = run_main(
        tmp_path,
        "hello\n",
        "--continue",
        "--model",
        "openai:good",
        env=environment(endpoint.base_url),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [f"warning: skipped 1 damaged line in {folder / 'x.jsonl'}"]
    assert "assistant> Hello from good." in done.stdout.splitlines()
    [request] = endpoint.requests
    assert [m["role"] for m in request["body"]["messages"]] == ["system", "user", "user"]


# --- One deadline per reply -----------------------------------------------------------------


@pytest.mark.parametrize("stall", ["slow-pings", "slow-empty-deltas", "slow-empty-choices"])
def test_a_reply_that_never_ends_meets_its_deadline_and_the_run_goes_on(
    tmp_path: Path, endpoint: Server, stall: str
) -> None:
    """Keep-alive comments, empty deltas and chunks without choices each kept a run waiting
    for as long as the endpoint liked (a read timeout starts again at every byte)."""
    env = environment(endpoint.base_url) | {"LAB_REPLY_DEADLINE": "1"}
    started = time.monotonic()
    done = run_main(tmp_path, f"{stall}\nhello\n", "--model", "openai:good", env=env, timeout=20)
    assert time.monotonic() - started < 15
    assert done.returncode == 0, done.stderr
    (error,) = done.stderr.splitlines()
    assert error == (
        "error: openai:good: no whole reply within 1 s (the deadline LAB_REPLY_DEADLINE sets); "
        "nothing was kept"
    )
    assert "assistant> Hello from good." in done.stdout.splitlines()
    assert texts(saved_messages(tmp_path)) == [stall, "hello", "Hello from good."]


def test_a_deadline_that_is_no_number_of_seconds_is_one_error_line_before_any_file(
    tmp_path: Path, endpoint: Server
) -> None:
    env = environment(endpoint.base_url) | {"LAB_REPLY_DEADLINE": "soon"}
    done = run_main(tmp_path, "hello\n", "--model", "openai:good", env=env)
    assert done.returncode == 1
    (error,) = done.stderr.splitlines()
    assert error == (
        "error: openai:good: LAB_REPLY_DEADLINE must be a number of seconds, over 0 and at "
        "most 3600, not 'soon'"
    )
    assert endpoint.requests == [] and not (tmp_path / "s").exists()


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "7200", "1e400"])
def test_a_deadline_out_of_range_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    from deadline import reply_deadline
    from model import ModelError

    monkeypatch.setenv("LAB_REPLY_DEADLINE", value)
    with pytest.raises(ModelError, match="LAB_REPLY_DEADLINE must be a number of seconds"):
        reply_deadline("openai:m")
    monkeypatch.setenv("LAB_REPLY_DEADLINE", "2.5")
    assert reply_deadline("openai:m") == 2.5
    monkeypatch.delenv("LAB_REPLY_DEADLINE")
    assert reply_deadline("openai:m") == 300
