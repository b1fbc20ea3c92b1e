"""A history a real chat API refuses is refused here too, in one `error:` line, no traceback.

The file below was not written by this program: a tool result hangs on the path without the
call it answers (a hand edit, another program). A real API answers such a request with an
HTTP 400; the scripted model says the same words, and main.py shows them in one line.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from conftest import RunMain

HEADER = {"type": "header", "version": 1, "id": "x", "createdAt": "t", "cwd": "/"}


def message(entry_id: str, parent: str | None, body: dict) -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "message": body}


def test_a_result_without_its_call_is_refused_in_one_line(
    tmp_path: Path, run_main: RunMain
) -> None:
    folder = tmp_path / ".sessions"
    folder.mkdir()
    path = folder / "orphan.jsonl"
    lines = [
        HEADER,
        message("e1", None, {"role": "user", "content": [{"type": "text", "text": "hello"}]}),
        message("e2", "e1", {"role": "assistant", "stopReason": "stop",
                             "content": [{"type": "text", "text": "Hello!"}]}),
        message("e3", "e2", {"role": "toolResult", "toolCallId": "call_9", "toolName": "calc",
                             "isError": False, "content": [{"type": "text", "text": "96"}]}),
    ]  # fmt: skip
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    done = run_main("what is 2+3\n", "--continue")
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: scripted-v1 refused the conversation: Invalid parameter: messages with role "
        "'tool' must be a response to a preceeding message with 'tool_calls'. "
        "(messages[2] answers tool_call_id call_9)\n"
    )
    assert b"Traceback" not in done.stdout + done.stderr
    assert b"[tool call]" not in done.stdout  # the model said nothing, and no tool ran
