# >>file prod
"""/compact and --compact-at on a real model: the summary is the model's own, asked for in one
request with no tools, an earlier summary carried forward; it fails as a turn fails, in one
`error:` line, writing nothing, and the run goes on.

Each through main.py against the fake endpoint (`fake_endpoint.py`, on 127.0.0.1), which
answers a summary request with the lines it was sent, or with the fault a test names in
`Server.summary_behaviour`.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from fake_endpoint import Server, between
from harness import type_lines
from test_openai_model import (
    endpoint,
    environment,
    run_main,
    saved,
    saved_messages,
    started,
)

__all__ = ["endpoint"]  # the fixture, shared with test_openai_model.py


def summary_requests(endpoint: Server) -> list[dict[str, Any]]:
    return [r["body"] for r in endpoint.requests if "tools" not in r["body"]]


def compactions(tmp_path: Path) -> list[dict[str, Any]]:
    return [entry for entry in saved(tmp_path) if entry["type"] == "compaction"]


def test_compact_asks_the_model_and_carries_an_earlier_summary_forward(
    tmp_path: Path, endpoint: Server
) -> None:
    """OpenAIModel had no `summarize`: /compact on a real model ended in a traceback."""
    typed = "hello\nwhat is 12*8\n/compact\nthird\n/compact\nlast\n"
    done = run_main(tmp_path, typed, "--model", "openai:good", env=environment(endpoint.base_url))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert "compacted: a summary stands in for 2 messages; 4 kept" in lines
    assert "compacted: a summary stands in for 5 messages; 2 kept" in lines
    first, second = compactions(tmp_path)
    assert first["summary"] == "- asked: hello"
    # The second summary covers the first: what the first kept is not lost.
    assert second["summary"] == "- asked: hello\n- asked: what is 12*8\n- calc -> 96"

    from openai_request import SUMMARY_SYSTEM

    asked_first, asked_second = summary_requests(endpoint)
    for body in (asked_first, asked_second):
        system, user = body["messages"]
        assert system == {"role": "system", "content": SUMMARY_SYSTEM}
        assert body["model"] == "good" and body["stream"] is True
    assert "<earlier-summary>" not in asked_first["messages"][1]["content"]
    from messages import SUMMARY_HEADING

    assert SUMMARY_HEADING not in asked_second["messages"][1]["content"]  # sent once, apart
    assert (
        "<earlier-summary>\n- asked: hello\n</earlier-summary>"
        in (asked_second["messages"][1]["content"])
    )
    assert (
        '[assistant called calc] {"expression":"12*8"}' in (asked_second["messages"][1]["content"])
    )
    # The turn after a compaction is sent the summary, then the turn it kept.
    last_turn = endpoint.requests[-1]["body"]["messages"]
    assert [m["role"] for m in last_turn] == ["system", "user", "user", "assistant", "user"]
    assert last_turn[1]["content"].endswith(second["summary"])
    # The summary is never a message of its own in the file, nor the summariser's prompt.
    [path] = (tmp_path / "s").glob("*.jsonl")
    assert SUMMARY_SYSTEM[:40].encode() not in path.read_bytes()


FAULTS = {
    "fault-500": "cannot compact: openai:good: HTTP 500: Error code: 500 - Try again later.",
    "fault-cut-arguments": "cannot compact: openai:good: the stream from http://127.0.0.1:",
    "fault-split-surrogate": "cannot compact: openai:good: the reply holds half of a character",
    "fault-huge-reply": "cannot compact: openai:good: the stream sent a reply over 16,384 chara",
    "fault-no-finish": "cannot compact: openai:good: the reply broke off (no finish reason)",
    "fault-big-int": "cannot compact: openai:good: the reply holds an integer over 64 bits",
    "fault-empty-summary": "cannot compact: openai:good wrote no summary (an empty one)",
    "fault-call-not-summary": "cannot compact: openai:good wrote no summary (asked for a tool",
    "slow-pings": "cannot compact: openai:good: no whole reply within 1 s (the deadline",
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_summary_that_fails_is_one_error_line_writes_nothing_and_the_run_goes_on(
    tmp_path: Path, endpoint: Server, fault: str
) -> None:
    endpoint.summary_behaviour = fault
    env = environment(endpoint.base_url) | {"LAB_REPLY_DEADLINE": "1"}
    typed = "hello\nhi\n/compact\nagain\n"
    done = run_main(tmp_path, typed, "--model", "openai:good", env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    (error,) = done.stderr.splitlines()
    assert error.startswith(f"error: {FAULTS[fault]}"), error
    assert len(error) < 300
    assert done.stdout.count("assistant> Hello from good.") == 3  # the turn after it, too
    assert compactions(tmp_path) == []
    assert [m["role"] for m in saved_messages(tmp_path)] == ["user", "assistant"] * 3
    assert len(summary_requests(endpoint)) == (2 if fault == "fault-500" else 1)  # a retry


def test_compact_at_with_a_summary_that_fails_goes_on_with_the_whole_context(
    tmp_path: Path, endpoint: Server
) -> None:
    endpoint.summary_behaviour = "fault-500"
    env = environment(endpoint.base_url)
    typed = "hello\nhi\nagain\n"
    args = ("--model", "openai:good", "--compact-at", "40")
    done = run_main(tmp_path, typed, *args, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "error: cannot compact: openai:good: HTTP 500: Error code: 500 - Try again later.; "
        "the turn goes on uncompacted\n"
    )
    assert done.stdout.count("assistant> Hello from good.") == 3
    assert compactions(tmp_path) == []
    assert [m["role"] for m in endpoint.requests[-1]["body"]["messages"]] == [
        "system",
        *["user", "assistant"] * 2,
        "user",
    ]

    endpoint.summary_behaviour = "summary"  # the same, when the model can summarise
    again = run_main(tmp_path, "more\n", "--continue", *args, env=env)
    assert again.returncode == 0, again.stderr
    said = "compacted: a summary stands in for 4 messages; 2 kept: the context was over 40"
    assert said in again.stdout
    (compaction,) = compactions(tmp_path)
    assert compaction["summary"] == "- asked: hello\n- asked: hi"
    assert [e["type"] for e in saved(tmp_path)][-4:] == [
        "model_change",  # openai:good, again on the path (it was before the part kept)
        "compaction",
        "message",
        "message",
    ]


def interrupt_the_summary(process: subprocess.Popen[bytes], endpoint: Server) -> None:
    ends = time.monotonic() + 20
    while not summary_requests(endpoint):  # the summary has been asked for
        assert time.monotonic() < ends and process.poll() is None
        time.sleep(0.02)
    time.sleep(0.2)  # its reply has begun, and will never end
    process.send_signal(signal.SIGINT)


def test_ctrl_c_while_compact_at_summarises_abandons_the_compaction_and_the_line(
    tmp_path: Path, endpoint: Server
) -> None:
    endpoint.summary_behaviour = "slow-pings"
    with started(tmp_path, endpoint, "--compact-at", "40") as process:
        type_lines(process, "hello", "hi", "again")
        interrupt_the_summary(process, endpoint)
        endpoint.summary_behaviour = "summary"
        out, err = process.communicate(b"more\n", timeout=30)
    assert process.returncode == 0, err
    assert err.decode() == (
        "warning: interrupted: the compaction was abandoned, and your line with it (Ctrl-C at "
        "the prompt ends the run)\n"
    )
    assert "compacted: a summary stands in for 2 messages; 2 kept" in out.decode()
    texts = [m["content"][0]["text"] for m in saved_messages(tmp_path) if m["role"] == "user"]
    assert texts == ["hello", "hi", "more"]  # "again" was abandoned with its compaction


def test_ctrl_c_while_the_model_summarises_abandons_the_compaction_and_the_run_goes_on(
    tmp_path: Path, endpoint: Server
) -> None:
    endpoint.summary_behaviour = "slow-pings"
    with started(tmp_path, endpoint) as process:
        type_lines(process, "hello", "hi", "/compact")
        interrupt_the_summary(process, endpoint)
        out, err = process.communicate(b"again\n", timeout=30)
    assert process.returncode == 0, err
    assert err.decode() == (
        "warning: interrupted: the compaction was abandoned, nothing written (Ctrl-C at the "
        "prompt ends the run)\n"
    )
    assert out.decode().count("assistant> Hello from good.") == 3
    assert compactions(tmp_path) == []
    assert len(saved_messages(tmp_path)) == 6


def test_what_is_sent_to_be_summarised_is_bounded_line_by_line() -> None:
    """A tool result of megabytes is summarised by its start: one line of the transcript."""
    from messages import tool_result, user_text
    from openai_request import TRANSCRIPT_WIDTH, transcript

    call = {"type": "toolCall", "id": "c1", "name": "calc", "arguments": {"expression": "1"}}
    lines = transcript(
        [user_text("a\nquestion  on\tlines"), tool_result(call, "9" * 5_000_000, is_error=False)]
    ).splitlines()
    assert lines[0] == "[user] a question on lines"
    assert len(lines) == 2 and len(lines[1]) == TRANSCRIPT_WIDTH and lines[1].endswith("…")


def test_a_conversation_too_long_for_one_request_is_summarised_in_pieces(
    tmp_path: Path, endpoint: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/compact is needed when a conversation is too long for the model, and it once sent the
    whole transcript in one request, each message cut to 2,000 characters, the total unbounded.
    Each request now carries at most MAX_TRANSCRIPT_CHARS of it, and the summary so far. (A
    bound of 600 here, so that a few turns need several requests.)"""
    import openai_model

    monkeypatch.setattr(openai_model, "MAX_TRANSCRIPT_CHARS", 600)
    typed = "".join(f"q{n} {'x' * 100}\n" for n in range(20)) + "/compact\n"
    done = run_main(tmp_path, typed, "--model", "openai:good", env=environment(endpoint.base_url))
    assert done.returncode == 0, done.stderr
    asked = summary_requests(endpoint)
    assert len(asked) >= 4  # about 2,600 characters of transcript, 600 at most a request
    for body in asked:
        conversation = between(body["messages"][1]["content"], "<conversation>\n", "\n</conv")
        assert 0 < len(conversation) <= 600
    assert "<earlier-summary>" not in asked[0]["messages"][1]["content"]
    assert all("<earlier-summary>" in body["messages"][1]["content"] for body in asked[1:])
    [compaction] = compactions(tmp_path)
    # Every question the compaction covers is in its summary, however many pieces it took.
    assert all(f"- asked: q{n} " in compaction["summary"] for n in range(19))
